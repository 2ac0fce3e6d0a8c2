"""Model lifecycle on a real server process: a --model_config_file with two models, version
policies and labels, the file reloaded while serving, versions rolled in and out under load,
a corrupt version reported while the old one serves, a version unloaded only after its
requests in flight, batching over HTTP (joined requests, 503 on a full queue) and SIGTERM."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time

import pytest
from _serving_testlib import IRIS_ROWS, Server, load, serialized_examples

pytestmark = pytest.mark.slow  # (a server process each: about 10 s on an idle machine)

PREDICT = {"signature_name": "predict", "instances": IRIS_ROWS[:1]}


def _wait_for(condition, seconds=60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _logits(path: str) -> list[float]:
    return load(path).signatures["predict"](
        examples=serialized_examples(IRIS_ROWS[:1]))["logits"].tolist()[0]


def _put_version(src: str, base: str, version: int) -> None:
    """Copies an export in as `version`, complete before it appears (copy, then rename)."""
    scratch = os.path.join(base, f"tmp-{version}")
    shutil.copytree(src, scratch)
    os.rename(scratch, os.path.join(base, str(version)))


def _states(server: Server, model: str) -> dict[str, str]:
    status, body = server.get(f"/v1/models/{model}")
    assert status == 200, body
    return {v["version"]: v["state"] for v in body["model_version_status"]}


def _config(models: list[str]) -> str:
    return "model_config_list {\n" + "\n".join(f"  config {{ {m} }}" for m in models) + "\n}\n"


@pytest.fixture(scope="module")
def logits(exports) -> dict[str, list[float]]:
    return {"v1": _logits(exports["iris_v1"]), "v2": _logits(exports["iris_v2"])}


def _predict(server: Server, path: str) -> list[float]:
    status, body = server.post(path, PREDICT)
    assert status == 200, body
    return body["predictions"][0]["logits"]


def test_two_models_policies_labels_and_config_reload(exports, logits, tmp_path):
    config = tmp_path / "models.config"
    iris = (f'name: "iris" base_path: "{exports["iris_base"]}" model_platform: "tensorflow" '
            'model_version_policy { specific { versions: 1 versions: 2 } } '
            'version_labels { key: "stable" value: 1 } version_labels { key: "canary" value: 2 }')
    newest = f'name: "newest" base_path: "{exports["iris_base"]}"'
    config.write_text(_config([iris, newest]))
    server = Server("iris", str(tmp_path / "server"), "--model_config_file", str(config),
                    "--model_config_file_poll_wait_seconds", "0.3", "--log_level", "info")
    try:
        assert _states(server, "iris") == {"1": "AVAILABLE", "2": "AVAILABLE"}
        assert _predict(server, "/v1/models/iris/labels/stable:predict") == pytest.approx(
            logits["v1"], abs=1e-6)
        assert _predict(server, "/v1/models/iris/labels/canary:predict") == pytest.approx(
            logits["v2"], abs=1e-6)
        assert _predict(server, "/v1/models/iris/versions/1:predict") == pytest.approx(
            logits["v1"], abs=1e-6)
        assert _predict(server, "/v1/models/iris:predict") == pytest.approx(logits["v2"],
                                                                            abs=1e-6)
        status, body = server.get("/v1/models/iris/labels/stable")
        assert status == 200 and [v["version"] for v in body["model_version_status"]] == ["1"]
        status, body = server.get("/v1/models/iris/labels/stable/metadata")
        assert status == 200 and body["model_spec"]["version"] == "1"
        status, body = server.post("/v1/models/iris/labels/nope:predict", PREDICT)
        assert status == 404 and "Unrecognized servable version label: nope" in body["error"]
        # the default policy serves the newest version only, and only it
        assert _states(server, "newest") == {"2": "AVAILABLE"}
        status, body = server.post("/v1/models/newest/versions/1:predict", PREDICT)
        assert status == 404 and "Specific(newest, 1)" in body["error"]
        assert "latest { num_versions: 1 }" in body["error"]
        log = server.log()
        for name, version in (("iris", 1), ("iris", 2), ("newest", 2)):
            assert log.count(f"Successfully loaded servable version {{name: {name} version: "
                             f"{version}}}") == 1, log

        # the file changes: iris serves version 2 only, "newest" goes, "raw" comes
        iris2 = (f'name: "iris" base_path: "{exports["iris_base"]}" '
                 'model_version_policy { specific { versions: 2 } } '
                 'version_labels { key: "stable" value: 2 }')
        raw = f'name: "raw" base_path: "{exports["raw_base"]}"'
        config.write_text(_config([iris2, raw]))
        assert _wait_for(lambda: server.get("/v1/models/raw")[0] == 200), server.log()
        assert _wait_for(lambda: _states(server, "iris") == {"2": "AVAILABLE"}), server.log()
        assert _predict(server, "/v1/models/iris/labels/stable:predict") == pytest.approx(
            logits["v2"], abs=1e-6)
        assert _wait_for(lambda: server.get("/v1/models/newest")[0] == 404), server.log()
        log = server.log()
        assert "Done unloading servable version {name: iris version: 1}" in log
        assert "Done unloading servable version {name: newest version: 2}" in log
        # a file that no longer parses changes nothing
        config.write_text("model_config_list { config { name: 'iris' oops } }")
        assert _wait_for(lambda: "Reloading --model_config_file" in server.log()), server.log()
        assert server.get("/v1/models/raw")[0] == 200
    finally:
        server.stop()


def test_versions_rolled_in_and_out_under_load_fail_no_request(exports, logits, tmp_path):
    base = str(tmp_path / "iris")
    os.makedirs(base)
    _put_version(exports["iris_v1"], base, 1)
    config = tmp_path / "models.config"
    config.write_text(_config([f'name: "iris" base_path: "{base}"']))
    server = Server("iris", str(tmp_path / "server"), "--model_config_file", str(config),
                    "--rest_api_num_threads", "8", "--log_level", "info")
    failures: list = []
    seen: set[str] = set()
    stop = threading.Event()

    def client():
        while not stop.is_set():
            try:
                status, body = server.post("/v1/models/iris:predict", PREDICT)
            except OSError as error:
                failures.append(repr(error))
                continue
            if status != 200:
                failures.append((status, body))
                continue
            got = body["predictions"][0]["logits"]
            seen.add("v1" if got == pytest.approx(logits["v1"], abs=1e-6) else "v2")

    clients = [threading.Thread(target=client) for _ in range(6)]
    for thread in clients:
        thread.start()
    try:
        time.sleep(0.3)
        _put_version(exports["iris_v2"], base, 2)  # rolled in: 1 is unloaded after the swap
        assert _wait_for(lambda: _states(server, "iris") == {"2": "AVAILABLE"}), server.log()
        time.sleep(0.3)
        # a corrupt version 3: reported END with its error, version 2 keeps serving
        os.makedirs(os.path.join(base, "3"))
        with open(os.path.join(base, "3", "saved_model.json"), "w") as f:
            f.write("{broken")
        assert _wait_for(lambda: _states(server, "iris").get("3") == "END"), server.log()
        status, body = server.get("/v1/models/iris/versions/3")
        assert body["model_version_status"][0]["status"]["error_message"], body
        assert _states(server, "iris")["2"] == "AVAILABLE"
        # version 1 again, as 4: rolled in, version 2 out
        _put_version(exports["iris_v1"], base, 4)
        assert _wait_for(lambda: _states(server, "iris").get("4") == "AVAILABLE"
                         and "2" not in _states(server, "iris")), server.log()
        time.sleep(0.3)
    finally:
        stop.set()
        for thread in clients:
            thread.join(30)
        server.stop()
    assert failures == []
    assert seen == {"v1", "v2"}
    log = server.log()
    assert "Done unloading servable version {name: iris version: 1}" in log
    assert "Done unloading servable version {name: iris version: 2}" in log
    assert re.search(r"Loading servable: \{name: iris version: 3\} failed", log), log


BATCHING = ("max_batch_size {{ value: 8 }} batch_timeout_micros {{ value: {micros} }} "
            "num_batch_threads {{ value: 1 }} max_enqueued_batches {{ value: 1 }}")


def _send(server: Server, path: str, body: dict, answers: list) -> threading.Thread:
    thread = threading.Thread(target=lambda: answers.append(server.post(path, body)))
    thread.start()
    return thread


def test_a_replaced_version_is_unloaded_after_its_requests_in_flight(exports, logits,
                                                                     tmp_path):
    """A request held in a batch (3 s timeout) on version 1 while version 2 rolls in: it is
    answered by version 1, which is reported UNLOADING until then, and unloaded after."""
    base = str(tmp_path / "iris")
    os.makedirs(base)
    _put_version(exports["iris_v1"], base, 1)
    params = tmp_path / "batching.config"
    params.write_text(BATCHING.format(micros=3_000_000))
    server = Server("iris", base, "--enable_batching", "--batching_parameters_file",
                    str(params), "--log_level", "info")
    try:
        answers: list = []
        sender = _send(server, "/v1/models/iris:predict", PREDICT, answers)
        time.sleep(0.3)
        _put_version(exports["iris_v2"], base, 2)
        assert _wait_for(lambda: _states(server, "iris") == {"1": "UNLOADING",
                                                             "2": "AVAILABLE"}, 2.5), (
            _states(server, "iris"), server.log())
        assert "Done unloading servable version {name: iris version: 1}" not in server.log()
        sender.join(30)
        status, body = answers[0]
        assert status == 200, body
        assert body["predictions"][0]["logits"] == pytest.approx(logits["v1"], abs=1e-6)
        assert _wait_for(lambda: "Done unloading servable version {name: iris version: 1}"
                         in server.log(), 5), server.log()
        assert _states(server, "iris") == {"2": "AVAILABLE"}
    finally:
        server.stop()


def test_batching_over_http_joins_requests_refuses_a_full_queue_and_drains_on_sigterm(
        exports, tmp_path):
    params = tmp_path / "batching.config"
    params.write_text(BATCHING.format(micros=1_000_000))
    server = Server("raw", exports["raw_base"], "--enable_batching",
                    "--batching_parameters_file", str(params), "--rest_api_num_threads", "16",
                    "--log_level", "debug")
    row = {"signature_name": "predict", "instances": [
        {k: v for k, v in IRIS_ROWS[0].items()}]}
    try:
        answers: list = []
        senders = [_send(server, "/v1/models/raw:predict", row, answers) for _ in range(6)]
        for sender in senders:
            sender.join(30)
        assert [status for status, _ in answers] == [200] * 6, answers
        assert all(body == answers[0][1] for _, body in answers)
        assert _wait_for(lambda: "Ran a batch of 6 request(s), 6 row(s)" in server.log(), 5), (
            server.log()[-3000:])

        # 5 rows wait in the open batch; 4 more would need a second one: 503 at once
        answers = []
        five = {"signature_name": "predict", "instances": row["instances"] * 5}
        sender = _send(server, "/v1/models/raw:predict", five, answers)
        time.sleep(0.3)
        started = time.monotonic()
        status, body = server.post("/v1/models/raw:predict",
                                   {"signature_name": "predict",
                                    "instances": row["instances"] * 4})
        assert status == 503, body
        assert time.monotonic() - started < 0.8
        assert "batch scheduling queue" in body["error"] and "max_enqueued_batches" in body[
            "error"]
        sender.join(30)
        assert answers[0][0] == 200 and len(answers[0][1]["predictions"]) == 5

        # SIGTERM while a request waits in its batch: it is answered, then the server exits 0
        answers = []
        sender = _send(server, "/v1/models/raw:predict", row, answers)
        time.sleep(0.3)
        server.process.terminate()
        sender.join(30)
        assert answers and answers[0][0] == 200, answers
        assert server.process.wait(30) == 0, server.log()[-3000:]
    finally:
        server.stop()
