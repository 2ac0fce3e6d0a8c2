"""The server's limits: a request body over `max_body_bytes` is a 413, a body nested deeper than
the JSON depth limit is a 400 naming the limit (never a RecursionError or a 500), a request
running past `timeout_seconds` is a 504 while the server keeps serving, no file path from a
request is ever opened (model names and versions like `..`, `%2e%2e`, absolute paths: a 4xx, and
no file outside the base path is touched), and version directories that are symlinks out of
`model_base_path` are refused (not loaded, logged). The app is driven in-process (its ASGI
callable) and, for the URL forms, through a real `torchestimator serve` over HTTP."""

from __future__ import annotations

import http.client
import json
import logging
import os
import shutil
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
    assert status == 504 and "300 ms" in body["error"] and "--rest_api_timeout_in_ms" in body["error"]
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
