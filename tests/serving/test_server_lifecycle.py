"""The server process: new versions picked up while serving, 500 concurrent requests, SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time

import pytest
from _serving_testlib import IRIS_ROWS, Server, load, serialized_examples

pytestmark = pytest.mark.slow

PREDICT = {"signature_name": "predict", "instances": IRIS_ROWS[:1]}


def _wait_for(condition, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_new_version_is_loaded_while_serving_and_removed_version_unloaded(exports, tmp_path):
    base = str(tmp_path / "iris")
    shutil.copytree(exports["iris_v1"], os.path.join(base, "1"))
    server = Server("iris", base)
    try:
        v1 = load(exports["iris_v1"]).signatures["predict"](
            examples=serialized_examples(IRIS_ROWS[:1]))["logits"].tolist()
        v2 = load(exports["iris_v2"]).signatures["predict"](
            examples=serialized_examples(IRIS_ROWS[:1]))["logits"].tolist()

        def logits():
            status, body = server.post("/v1/models/iris:predict", PREDICT)
            assert status == 200, body
            return body["predictions"][0]["logits"]

        assert logits() == pytest.approx(v1[0], abs=1e-6)
        # export_saved_model writes a new version (timestamp-named, renamed into place at the end)
        newest = os.path.basename(os.fsdecode(exports["export_iris"](base)))
        assert _wait_for(lambda: logits() == pytest.approx(v2[0], abs=1e-6)), server.log()
        status, listing = server.get("/v1/models/iris")
        assert listing["model_version_status"] == [  # version 1 was unloaded after the swap
            {"version": newest, "state": "AVAILABLE",
             "status": {"error_code": "OK", "error_message": ""}}]
        status, body = server.post("/v1/models/iris/versions/1:predict", PREDICT)
        assert status == 200  # still on disk: loaded on request
        # the newest version's directory goes away: the server falls back to version 1
        shutil.rmtree(os.path.join(base, newest))
        assert _wait_for(lambda: logits() == pytest.approx(v1[0], abs=1e-6)), server.log()
        status, body = server.post(f"/v1/models/iris/versions/{newest}:predict", PREDICT)
        assert status == 404
        # a broken version is reported by the status API and does not stop serving
        os.makedirs(os.path.join(base, "9"))
        with open(os.path.join(base, "9", "saved_model.json"), "w") as f:
            f.write("{broken")
        assert _wait_for(lambda: any(
            v["version"] == "9" and v["state"] == "END"
            for v in server.get("/v1/models/iris")[1]["model_version_status"])), server.log()
        assert logits() == pytest.approx(v1[0], abs=1e-6)
        # SIGTERM while a large request is in flight: it is answered, then the server exits 0
        answers = []
        big = {"signature_name": "predict", "instances": IRIS_ROWS * 2000}
        sender = threading.Thread(target=lambda: answers.append(
            server.post("/v1/models/iris:predict", big)))
        sender.start()
        time.sleep(0.5)
        server.process.terminate()
        sender.join(60)
        assert answers and answers[0][0] == 200, answers[:1]
        assert len(answers[0][1]["predictions"]) == 6000
        assert server.process.wait(30) == 0, server.log()
    finally:
        server.stop()


async def _one_request(port: int, body: bytes, index: int) -> tuple[int, dict]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"POST /v1/models/iris:predict HTTP/1.1\r\nHost: localhost\r\n"
                     b"Content-Type: application/json\r\nConnection: close\r\n"
                     + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await writer.drain()
        response = await reader.read()
    finally:
        writer.close()
    head, _, payload = response.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(payload)


def test_500_concurrent_requests_are_all_answered(iris_server):
    bodies = [json.dumps({"signature_name": "predict",
                          "instances": [IRIS_ROWS[i % 3]] * (1 + i % 4)}).encode()
              for i in range(500)]

    async def run():
        return await asyncio.gather(*(_one_request(iris_server.port, b, i)
                                      for i, b in enumerate(bodies)))

    answers = asyncio.run(run())
    assert [status for status, _ in answers] == [200] * 500
    reference = {}
    for i, (_, body) in enumerate(answers):
        predictions = body["predictions"]
        assert len(predictions) == 1 + i % 4
        first = reference.setdefault(i % 3, predictions[0]["logits"])
        # (torch's batch-1 product may differ from larger batches' in the last float32 bit)
        assert predictions[0]["logits"] == pytest.approx(first, rel=1e-5)


def test_a_slow_request_does_not_hold_up_the_others(iris_server):
    """The model runs off the event loop: a small request is answered while a large one runs."""
    small = {"signature_name": "predict", "instances": IRIS_ROWS[:1]}
    repeats = 4000
    for _ in range(3):  # a large request of about a second, whatever this machine's speed
        big = {"signature_name": "predict", "instances": IRIS_ROWS * repeats}
        started = time.perf_counter()
        iris_server.post("/v1/models/iris:predict", big)
        alone = time.perf_counter() - started
        if alone >= 1.0:
            break
        repeats = int(repeats * min(8.0, 1.2 / max(alone, 0.05)))
    if alone < 0.3:
        pytest.skip(f"the large request took only {alone:.2f} s: nothing to overtake")
    finished = threading.Event()
    sender = threading.Thread(target=lambda: (iris_server.post("/v1/models/iris:predict", big),
                                              finished.set()))
    sender.start()
    time.sleep(min(0.2, alone / 5))
    started = time.perf_counter()
    status, _ = iris_server.post("/v1/models/iris:predict", small)
    latency = time.perf_counter() - started
    assert status == 200
    overtook = not finished.is_set()
    sender.join(120)
    assert overtook, (alone, latency)


def test_worker_processes_share_the_port(exports):
    server = Server("iris", exports["iris_base"], "--rest_api_workers", "2")
    try:
        answers = [server.post("/v1/models/iris:predict", PREDICT) for _ in range(20)]
        assert {status for status, _ in answers} == {200}
        assert all(body == answers[0][1] for _, body in answers)
        children = open(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read()
        assert len(children.split()) >= 2  # the two workers (and multiprocessing's tracker)
        server.process.terminate()
        assert server.process.wait(60) == 0, server.log()
    finally:
        server.stop()
