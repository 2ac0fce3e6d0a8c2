"""The server's limits: a request body over `max_body_bytes` is a 413, a body nested deeper than
the JSON depth limit is a 400 naming the limit (never a RecursionError or a 500), a request
running past `timeout_seconds` is a 504 while the server keeps serving, no file path from a
request is ever opened (model names and versions like `..`, `%2e%2e`, absolute paths: a 4xx, and
no file outside the base path is touched), and version directories that are symlinks out of
`model_base_path` are refused (not loaded, logged). The app is driven in-process (its ASGI
callable) and, for the URL forms, through a real `torchestimator serve` over HTTP."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import os
import shutil
import socket
import sys
import time

import pytest
from _serving_helpers import PREDICT, asgi_request, make_export, serving_testlib

from torchestimator.serving import create_app
from torchestimator.serving._rest import MAX_JSON_DEPTH
from torchestimator.serving._versions import load_export


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("limits")
    return make_export(str(root / "model"), str(root / "scratch"))


@pytest.fixture
def layout(tmp_path, export):
    """base/1 (an export) and, next to base, outside/1 (another copy nobody may reach)."""
    base, outside = tmp_path / "base", tmp_path / "outside"
    shutil.copytree(export, base / "1")
    shutil.copytree(export, outside / "1")
    return str(base), str(outside)


def test_a_body_over_the_size_limit_is_413(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, max_body_bytes=200)
    status, body = asgi_request(app, "POST", "/v1/models/m:predict", PREDICT)
    assert status == 200, body
    big = json.dumps({"signature_name": "predict", "instances": [0.5] * 100}).encode()
    status, body = asgi_request(app, "POST", "/v1/models/m:predict", big)
    assert status == 413 and "200 bytes" in body["error"] and "--max_body_bytes" in body["error"]


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 5000, 200_000])
def test_a_body_nested_past_the_depth_limit_is_400_naming_the_limit(layout, depth):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1)
    for key in ("instances", "inputs"):
        deep = ('{"signature_name": "predict", "' + key + '": ' + "[" * depth + "]" * depth
                + "}").encode()
        status, body = asgi_request(app, "POST", "/v1/models/m:predict", deep)
        assert status == 400, body
        assert f"limit of {MAX_JSON_DEPTH} levels" in body["error"]


def test_the_depth_limit_holds_for_utf16_bodies(layout):
    # json.loads takes UTF-16: characters like U+5D5D hold a "]" byte that must not count
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1)
    deep = ('{"signature_name": "predict", "instances": ' + "[" * 150 + "]" * 150
            + ', "note": "' + "\u5d5d" * 400 + '"}')
    status, body = asgi_request(app, "POST", "/v1/models/m:predict", deep.encode("utf-16-le"))
    assert status == 400 and f"limit of {MAX_JSON_DEPTH} levels" in body["error"], body


def test_a_body_within_the_depth_limit_is_not_refused_for_depth(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1)
    depth = MAX_JSON_DEPTH - 2  # plus the document object and the "instances" list
    nested = ('{"signature_name": "predict", "instances": [' + "[" * depth + "0.5"
              + "]" * depth + "]}").encode()
    status, body = asgi_request(app, "POST", "/v1/models/m:predict", nested)
    assert status == 400 and "limit of" not in body["error"] and "'x'" in body["error"]
    # brackets inside strings do not count
    strings = json.dumps({"signature_name": "predict", "instances": [0.5],
                          "note": "[" * 5000}).encode()
    status, body = asgi_request(app, "POST", "/v1/models/m:predict", strings)
    assert "limit of" not in body.get("error", ""), body


class _Slow:
    """An export whose signatures take `seconds` per call."""

    def __init__(self, loaded, seconds):
        self.feature_spec = getattr(loaded, "feature_spec", None)
        self.signatures = {k: _SlowSignature(v, seconds) for k, v in loaded.signatures.items()}


class _SlowSignature:
    def __init__(self, signature, seconds):
        self._signature, self._seconds = signature, seconds
        self.inputs = signature.inputs

    def __getattr__(self, name):
        return getattr(self._signature, name)

    def __call__(self, **kwargs):
        time.sleep(self._seconds)
        return self._signature(**kwargs)


def test_a_request_past_the_timeout_is_504_and_the_server_keeps_serving(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=2, timeout_seconds=0.3,
                     loader=lambda path: _Slow(load_export(path), 1.5))
    started = time.monotonic()
    status, body = asgi_request(app, "POST", "/v1/models/m:predict", PREDICT)
    assert status == 504 and "--rest_api_timeout_in_ms" in body["error"]
    # the event loop's timer answers, naming the timeout; on a loaded machine the worker thread
    # may start the call past its deadline before the loop runs the timer, and its own deadline
    # check answers (seen once under xdist on 2 busy cores)
    assert "300 ms" in body["error"] or "its work was stopped" in body["error"], body
    assert time.monotonic() - started < 1.4
    assert asgi_request(app, "GET", "/v1/models/m")[0] == 200


TRAVERSALS = [
    ("POST", "/v1/models/..:predict"),
    ("POST", "/v1/models/../versions/1:predict"),
    ("GET", "/v1/models/.."),
    ("GET", "/v1/models/../outside"),
    ("GET", "/v1/models/m/versions/../../outside/1"),
    ("POST", "/v1/models/m/versions/..%2f..%2foutside%2f1:predict"),
    ("POST", "/v1/models/%2e%2e:predict"),
    ("GET", "/v1/models//etc/passwd"),
    ("GET", "/v1/models/m/versions//etc"),
    ("POST", "/v1/models/OUTSIDE_ABS:predict"),
    ("GET", "/v1/models/m/versions/1/../../../outside/1/metadata"),
    ("GET", "/../../outside/1/saved_model.json"),
    ("GET", "/v1/models/m/labels/..%2f..%2foutside"),
    ("GET", "/v1/models/outside"),  # a directory next to the base path is not a model
    ("POST", "/v1/models/outside/versions/1:predict"),
]


def test_no_file_path_from_a_request_is_opened(layout):
    base, outside = layout
    app = create_app("m", base, poll_seconds=0, num_threads=1)
    assert asgi_request(app, "POST", "/v1/models/m:predict", PREDICT)[0] == 200  # imports done
    touched: list[str] = []
    active = [True]

    def audit(event, args):
        if active[0] and event in ("open", "os.listdir", "os.scandir", "os.chdir") and args:
            touched.append(os.fsdecode(args[0]) if isinstance(args[0], (str, bytes)) else "")

    sys.addaudithook(audit)
    try:
        for method, path in TRAVERSALS:
            path = path.replace("OUTSIDE_ABS", outside.replace("/", "%2f"))
            body = PREDICT if method == "POST" else b""
            status, answer = asgi_request(app, method, path, body)
            assert status in (400, 404), (path, status, answer)
            decoded = path.replace("%2f", "/").replace("%2e", ".")
            status, answer = asgi_request(app, method, decoded, body)  # as a server decodes it
            assert status in (400, 404), (decoded, status, answer)
    finally:
        active[0] = False
    real_outside = os.path.realpath(outside)
    assert not [p for p in touched if p and os.path.realpath(p).startswith(real_outside)]
    assert not [p for p in touched if p and "passwd" in p]


def test_traversals_over_real_http_are_refused(layout):
    base, _ = layout
    lib = serving_testlib()
    server = lib.Server("m", base)
    try:
        for method, path in TRAVERSALS:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            connection.request(method, path.replace("OUTSIDE_ABS", "%2ftmp"),
                               body=PREDICT if method == "POST" else None)
            response = connection.getresponse()
            answer = response.read()
            connection.close()
            assert response.status in (400, 404), (path, response.status, answer)
        assert server.post(server.model(":predict"), raw=PREDICT)[0] == 200
    finally:
        server.stop()


def test_version_symlinks_out_of_the_base_path_are_refused(layout, caplog):
    base, outside = layout
    os.symlink(os.path.join(outside, "1"), os.path.join(base, "5"))  # out of the base: refused
    os.symlink(os.path.join(base, "1"), os.path.join(base, "3"))  # inside the base: served
    with caplog.at_level(logging.ERROR, logger="torchestimator.serving"):
        app = create_app("m", base, poll_seconds=0, num_threads=1)
        status, body = asgi_request(app, "GET", "/v1/models/m")
        assert status == 200
        assert [v["version"] for v in body["model_version_status"]] == ["3"]
        status, body = asgi_request(app, "POST", "/v1/models/m/versions/5:predict", PREDICT)
        assert status == 404, body
        assert asgi_request(app, "GET", "/v1/models/m/versions/5")[0] == 404
        assert asgi_request(app, "POST", "/v1/models/m/versions/3:predict", PREDICT)[0] == 200
    refused = [r.getMessage() for r in caplog.records if "Refusing version directory" in
               r.getMessage()]
    assert refused and "outside the model base path" in refused[0]
    assert os.path.join(base, "5") in refused[0]


# ----------------------------------------------------------------- rows, answer size, bodies
def _predict_body(rows: int, key: str = "instances") -> bytes:
    return json.dumps({"signature_name": "predict", key: [0.5] * rows}).encode()


@pytest.mark.parametrize("key", ["instances", "inputs"])
def test_more_rows_than_the_limit_is_413_naming_limit_and_flag(layout, key):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, max_rows=10)
    assert asgi_request(app, "POST", "/v1/models/m:predict", _predict_body(10, key))[0] == 200
    status, body = asgi_request(app, "POST", "/v1/models/m:predict", _predict_body(11, key))
    assert status == 413, body
    assert "11" in body["error"] and "limit of 10" in body["error"]
    assert "--max_request_rows" in body["error"]


def test_an_answer_over_the_size_limit_is_413_naming_limit_and_flag(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, max_response_bytes=400)
    assert asgi_request(app, "POST", "/v1/models/m:predict", _predict_body(5))[0] == 200
    for rows in (40, 1000):  # past the limit once written / certain from the value count
        status, body = asgi_request(app, "POST", "/v1/models/m:predict", _predict_body(rows))
        assert status == 413, body
        assert "limit of 400 bytes" in body["error"] and "--max_response_bytes" in body["error"]


def test_the_answer_to_many_rows_is_built_without_a_python_object_per_value(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, max_rows=None,
                     max_response_bytes=None)
    rows = 200_000
    started = time.perf_counter()
    status, body = asgi_request(app, "POST", "/v1/models/m:predict",
                                _predict_body(rows, "inputs"))
    assert status == 200 and len(body["outputs"]) == rows
    assert time.perf_counter() - started < 30  # (about 1 s; was 10x that)


MALFORMED = [
    ("lone surrogate escape", b'{"signature_name": "predict", "instances": ["\\ud800"]}',
     ["lone UTF-16 surrogate"]),
    ("lone low surrogate", b'{"signature_name": "predict", "instances": [0.5], "\\udc00": 1}',
     ["lone UTF-16 surrogate"]),
    ("raw surrogate bytes", b'{"signature_name": "predict", "instances": ["\xed\xa0\x80"]}',
     ["JSON Parse error"]),
    ("5000-digit integer", b'{"signature_name": "predict", "instances": [1' + b"0" * 5000
     + b"]}", ["too long", "4300 digits"]),
    ("huge integer in a float input", b'{"signature_name": "predict", "instances": [1'
     + b"0" * 400 + b"]}", ["float32"]),
    ("not UTF-8", b'{"signature_name": "predict", "instances": ["\xff"]}', ["UTF-8"]),
    ("bare NaN string", b'{"signature_name": "predict", "instances": ["NaN"]}', ["String"]),
    ("nan lowercase", b'{"signature_name": "predict", "instances": [nan]}',
     ["JSON Parse error"]),
]


@pytest.mark.parametrize("name, body, words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_bodies_are_400_with_a_message_and_no_traceback(layout, caplog, name, body,
                                                                  words):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1)
    with caplog.at_level(logging.ERROR, logger="torchestimator.serving"):
        status, answer = asgi_request(app, "POST", "/v1/models/m:predict", body)
    assert status == 400, answer
    for word in words:
        assert word in answer["error"], (word, answer)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_nan_and_infinity_literals_are_taken_as_tf_serving_takes_them(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1)
    body = b'{"signature_name": "predict", "instances": [NaN, Infinity, -Infinity, 0.5]}'
    status, answer = asgi_request(app, "POST", "/v1/models/m:predict", body)
    assert status == 200 and len(answer["predictions"]) == 4, answer


# ----------------------------------------------------------------- queue, deadline, body time
class _Counting:
    """An export whose signatures take `seconds` per call and count the calls."""

    def __init__(self, loaded, seconds):
        self.calls = 0
        self.feature_spec = getattr(loaded, "feature_spec", None)
        self.signatures = {k: _CountingSignature(v, seconds, self)
                           for k, v in loaded.signatures.items()}


class _CountingSignature(_SlowSignature):
    def __init__(self, signature, seconds, owner):
        super().__init__(signature, seconds)
        self._owner = owner

    def __call__(self, **kwargs):
        self._owner.calls += 1
        return super().__call__(**kwargs)


async def _gather_requests(app, count: int, body: bytes = PREDICT) -> list[int]:
    async def one() -> int:
        sent: list[dict] = []

        async def receive():
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message):
            sent.append(message)

        await app({"type": "http", "method": "POST", "path": "/v1/models/m:predict",
                   "headers": []}, receive, send)
        return sent[0]["status"]

    return list(await asyncio.gather(*(one() for _ in range(count))))


def test_requests_whose_deadline_passed_while_queued_never_run(layout):
    models = []

    def loader(path):
        models.append(_Counting(load_export(path), 0.6))
        return models[-1]

    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, timeout_seconds=0.3,
                     loader=loader)
    started = time.monotonic()
    statuses = asyncio.run(_gather_requests(app, 4))
    assert statuses == [504] * 4 and time.monotonic() - started < 2.0
    time.sleep(1.0)  # the one that started finishes its model call, the others never run
    assert models[0].calls == 1


def test_past_the_queue_limit_requests_get_503_at_once(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, max_queue=2,
                     loader=lambda path: _Slow(load_export(path), 0.3))
    statuses = asyncio.run(_gather_requests(app, 5))
    assert sorted(statuses) == [200, 200, 503, 503, 503], statuses
    assert asgi_request(app, "POST", "/v1/models/m:predict", PREDICT)[0] == 200


def test_the_queue_limit_message_names_limit_and_flag(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, max_queue=1,
                     loader=lambda path: _Slow(load_export(path), 0.3))
    answers: list[bytes] = []

    async def run():
        async def one():
            sent: list[dict] = []

            async def receive():
                return {"type": "http.request", "body": PREDICT, "more_body": False}

            async def send(message):
                sent.append(message)

            await app({"type": "http", "method": "POST", "path": "/v1/models/m:predict",
                       "headers": []}, receive, send)
            answers.append(sent[1]["body"])
        await asyncio.gather(one(), one())

    asyncio.run(run())
    refused = [json.loads(a)["error"] for a in answers if b"overloaded" in a]
    assert refused and "--rest_api_max_queue=1" in refused[0]


def test_a_body_that_stops_arriving_is_408_and_closes_the_connection(layout):
    app = create_app("m", layout[0], poll_seconds=0, num_threads=1, body_timeout_seconds=0.3)
    sent: list[dict] = []
    parts = [{"type": "http.request", "body": PREDICT[:10], "more_body": True}]

    async def receive():
        if parts:
            return parts.pop()
        await asyncio.sleep(60)  # the rest never comes

    async def send(message):
        sent.append(message)

    started = time.monotonic()
    asyncio.run(app({"type": "http", "method": "POST", "path": "/v1/models/m:predict",
                     "headers": []}, receive, send))
    assert time.monotonic() - started < 5
    assert sent[0]["status"] == 408 and (b"connection", b"close") in sent[0]["headers"]
    error = json.loads(sent[1]["body"])["error"]
    assert "0.3 s" in error and "--body_timeout_seconds" in error


def test_limits_must_be_positive(layout):
    for name in ("max_rows", "max_response_bytes", "max_queue", "body_timeout_seconds"):
        with pytest.raises(ValueError, match=name):
            create_app("m", layout[0], poll_seconds=0, **{name: 0})


# ------------------------------------------------------------- the version poller, descriptors
def test_the_version_poller_survives_running_out_of_file_descriptors(layout, caplog,
                                                                     monkeypatch):
    import errno

    from torchestimator.serving import _versions

    base, _ = layout
    real_scandir = os.scandir
    failing = [True]

    def scandir(path):
        if failing[0]:
            raise OSError(errno.EMFILE, "Too many open files")
        return real_scandir(path)

    versions = _versions.ModelVersions("m", base, poll_seconds=0.05)
    versions.start()
    try:
        shutil.copytree(os.path.join(base, "1"), os.path.join(base, "tmp-2"))
        monkeypatch.setattr(_versions.os, "scandir", scandir)
        os.rename(os.path.join(base, "tmp-2"), os.path.join(base, "2"))
        with caplog.at_level(logging.INFO, logger="torchestimator.serving"):
            time.sleep(0.5)
            assert versions._thread.is_alive()
            failing[0] = False
            deadline = time.monotonic() + 30
            while versions.get(None).version != 2 and time.monotonic() < deadline:
                time.sleep(0.05)
        assert versions.get(None).version == 2
        failures = [r for r in caplog.records if "Too many open files" in r.getMessage()]
        assert len(failures) == 1  # logged once, not every poll
    finally:
        versions.stop()


def test_a_load_failing_for_want_of_descriptors_is_tried_again(layout, monkeypatch):
    import errno

    from torchestimator.serving import _versions

    base, _ = layout
    attempts = []

    def loader(path):
        attempts.append(path)
        if len(attempts) == 1:
            raise OSError(errno.EMFILE, "Too many open files")
        return load_export(path)

    versions = _versions.ModelVersions("m", base, loader=loader, poll_seconds=0)
    versions.start()
    assert versions._latest is None
    versions.refresh()
    assert versions.get(None).version == 1 and len(attempts) == 2


def test_listening_on_all_interfaces_is_logged(caplog):
    from torchestimator.serving._server import log_exposure

    with caplog.at_level(logging.INFO, logger="torchestimator.serving"):
        log_exposure("127.0.0.1")
        assert not caplog.records
        for host in ("0.0.0.0", "::"):
            log_exposure(host)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2 and all("without authentication" in m for m in messages)
    assert "all network interfaces" in messages[0]


# ------------------------------------------------- per-connection limits, on a real server
SOCKET_LIMITS = ["--header_timeout_seconds", "1", "--body_timeout_seconds", "1",
                 "--keep_alive_timeout_seconds", "1", "--rest_api_max_connections", "6",
                 "--max_requests_per_connection", "3", "--max_header_bytes", "4096",
                 "--max_request_rows", "50"]


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory, export):
    base = tmp_path_factory.mktemp("limited") / "base"
    shutil.copytree(export, base / "1")
    server = serving_testlib().Server("m", str(base), *SOCKET_LIMITS)
    yield server
    server.stop()


def _connect(server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def _read_all(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _request(path: str, body: bytes = b"", extra: str = "") -> bytes:
    method = "POST" if body else "GET"
    return (f"{method} {path} HTTP/1.1\r\nHost: x\r\n{extra}Content-Length: {len(body)}\r\n\r\n"
            .encode() + body)


def test_headers_that_never_finish_get_408_and_the_connection_closes(limited_server):
    started = time.monotonic()
    with _connect(limited_server) as sock:
        sock.sendall(b"POST /v1/models/m:predict HTTP/1.1\r\nHost: x\r\n")  # and no more
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408") and b"--header_timeout_seconds" in answer
    assert time.monotonic() - started < 5


def test_headers_dribbled_a_byte_at_a_time_are_cut_off(limited_server):
    started = time.monotonic()
    with _connect(limited_server) as sock:
        try:
            for byte in b"GET /v1/models/m HTTP/1.1\r\nX-Slow: " + b"a" * 100:
                sock.sendall(bytes([byte]))
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert time.monotonic() - started < 5


def test_a_connection_that_sends_nothing_is_closed(limited_server):
    started = time.monotonic()
    with _connect(limited_server) as sock:
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 5


def test_a_body_that_stops_arriving_over_a_socket_is_408(limited_server):
    with _connect(limited_server) as sock:
        head = _request("/v1/models/m:predict", PREDICT)
        sock.sendall(head[:-10])  # the body's last 10 bytes never come
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408") and b"--body_timeout_seconds" in answer
    assert b"connection: close" in answer.lower()


def test_headers_over_the_size_limit_get_431(limited_server):
    with _connect(limited_server) as sock:
        sock.sendall(b"GET /v1/models/m HTTP/1.1\r\nX-Big: " + b"a" * 8000)
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 431") and b"--max_header_bytes" in answer


def test_a_connection_is_closed_after_its_request_limit(limited_server):
    with _connect(limited_server) as sock:
        answers = b""
        for _ in range(3):
            sock.sendall(_request("/v1/models/m"))
            time.sleep(0.1)
        answers = _read_all(sock)
    assert answers.count(b"HTTP/1.1 200") == 3
    assert answers.lower().count(b"connection: close") == 1


def test_an_idle_keep_alive_connection_is_closed(limited_server):
    with _connect(limited_server) as sock:
        sock.sendall(_request("/v1/models/m"))
        started = time.monotonic()
        answer = _read_all(sock)  # the answer, then the close after the keep-alive timeout
    assert answer.startswith(b"HTTP/1.1 200") and time.monotonic() - started < 5


def test_past_the_connection_limit_requests_get_503(limited_server):
    held = [_connect(limited_server) for _ in range(6)]
    try:
        for sock in held:
            sock.sendall(b"GET /v1/models/m HTTP/1.1\r\n")  # headers unfinished: held open
        time.sleep(0.2)
        with _connect(limited_server) as sock:
            sock.sendall(_request("/v1/models/m"))
            answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 503"), answer
        extra = [_connect(limited_server) for _ in range(12)]  # past 6 + 8: closed at once
        closed = 0
        for sock in extra:
            try:
                closed += sock.recv(100) == b""
            except (ConnectionResetError, TimeoutError):
                closed += 1
            sock.close()
        assert closed >= 1
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 10  # once they are gone, the server answers again
    while time.monotonic() < deadline:
        if limited_server.get("/v1/models/m")[0] == 200:
            break
        time.sleep(0.2)
    assert limited_server.post("/v1/models/m:predict", raw=PREDICT)[0] == 200


def test_the_row_limit_over_http(limited_server):
    status, body = limited_server.post("/v1/models/m:predict", raw=_predict_body(51))
    assert status == 413 and "--max_request_rows" in body["error"]
    assert limited_server.post("/v1/models/m:predict", raw=_predict_body(50))[0] == 200
