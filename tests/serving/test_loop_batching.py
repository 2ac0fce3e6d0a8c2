"""Batching on the event loop, in process on real exports: REST requests and gRPC calls
wait for their batch without holding a thread, so that a batch fills past the number of
worker threads; a queued request times out (504 / DEADLINE_EXCEEDED); a full queue answers
UNAVAILABLE at once; a cancelled one is skipped; a call measured cheap is answered on the
gRPC server's loop; the metrics count batched requests under the signature they ran."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import numpy as np
import pytest
from _serving_testlib import IRIS_ROWS, asgi_request, free_port, load, serialized_examples
from prometheus_client.parser import text_string_to_metric_families

from torchestimator.serving import _model_calls
from torchestimator.serving import _serving_protos as pb
from torchestimator.serving._app import RestApp
from torchestimator.serving._batching import Batcher, BatchQueueFull
from torchestimator.serving._errors import RequestError
from torchestimator.serving._grpc import start_grpc_server
from torchestimator.serving._model_config import BatchingParameters
from torchestimator.serving._monitoring import REQUEST_COUNT, Metrics, MonitoredApp
from torchestimator.serving._rest import RestApi
from torchestimator.serving._versions import ModelVersions, Servable

PREDICT = "/tensorflow.serving.PredictionService/Predict"


@pytest.fixture(scope="module")
def models(exports):
    versions = ModelVersions("iris", exports["iris_base"], poll_seconds=0)
    versions.start()
    yield versions
    versions.stop()


@pytest.fixture()
def counted(monkeypatch):
    """The model calls made (rows of each, and the thread each ran on)."""
    calls: list[tuple[int, str]] = []
    real = _model_calls.call_signature

    def counting(signature, inputs, features=False):
        first = next(iter(inputs.values()))
        calls.append((len(first), threading.current_thread().name))
        return real(signature, inputs, features)

    monkeypatch.setattr(_model_calls, "call_signature", counting)
    monkeypatch.setattr("torchestimator.serving._batching.call_signature", counting)
    return calls


def _rest_call(app: RestApp, path: str, body: bytes, method: str = "POST"):
    return asgi_request(app, path, body, method)


def _body(row: dict) -> bytes:
    return json.dumps({"signature_name": "predict", "instances": [row]}).encode()


def test_rest_requests_on_one_thread_fill_one_batch(models, counted):
    """Eight concurrent :predict requests with ONE worker thread: all eight wait for their
    batch on the event loop, and the model runs once on the batch thread."""
    batcher = Batcher(BatchingParameters(max_batch_size=8, batch_timeout_micros=2_000_000,
                                         num_batch_threads=1))
    executor = ThreadPoolExecutor(1)
    app = RestApp(RestApi({"iris": models}, batcher=batcher), executor, 1 << 20,
                  timeout_seconds=30)
    rows = [dict(IRIS_ROWS[i % 3], SepalLength=4.0 + i / 10) for i in range(8)]

    async def together():
        return await asyncio.gather(*[_rest_call(app, "/v1/models/iris:predict", _body(r))
                                      for r in rows])

    try:
        started = time.monotonic()
        answers = asyncio.run(together())
        assert time.monotonic() - started < 1.5  # a full batch runs at once, not at the timeout
        assert [n for n, _ in counted] == [8], counted
        assert batcher.stats["batches"] == 1 and batcher.stats["tasks"] == 8
        alone = RestApi({"iris": models})
        for row, (status, body) in zip(rows, answers):
            assert status == 200, body
            (got,) = json.loads(body)["predictions"]
            (want,) = json.loads(alone.handle("POST", "/v1/models/iris:predict",
                                              _body(row))[1])["predictions"]
            assert set(got) == set(want)
            for key in want:
                if isinstance(want[key][0], float):
                    np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6)
                else:
                    assert got[key] == want[key], key
    finally:
        batcher.stop()
        executor.shutdown()


def test_rest_classify_and_status_through_the_loop_with_a_batcher(models, counted):
    """:classify (features parsed from JSON Examples: call_on_features), and the status and
    metadata GETs, answered on the loop with a batcher as without one."""
    batcher = Batcher(BatchingParameters(max_batch_size=16, batch_timeout_micros=1_000,
                                         num_batch_threads=1))
    executor = ThreadPoolExecutor(1)
    app = RestApp(RestApi({"iris": models}, batcher=batcher), executor, 1 << 20,
                  timeout_seconds=30)
    alone = RestApi({"iris": models})
    body = json.dumps({"signature_name": "classification", "examples": IRIS_ROWS}).encode()

    async def together():
        return await asyncio.gather(
            _rest_call(app, "/v1/models/iris:classify", body),
            _rest_call(app, "/v1/models/iris:classify", body),
            _rest_call(app, "/v1/models/iris", b"", "GET"),
            _rest_call(app, "/v1/models/iris/metadata", b"", "GET"))

    want = json.loads(alone.handle("POST", "/v1/models/iris:classify", body)[1])
    counted.clear()
    try:
        first, second, status, metadata = asyncio.run(together())
        for got in (first, second):
            assert got[0] == 200, got
            for row, want_row in zip(json.loads(got[1])["results"], want["results"]):
                assert [label for label, _ in row] == [label for label, _ in want_row]
                np.testing.assert_allclose([s for _, s in row], [s for _, s in want_row],
                                           rtol=1e-5, atol=1e-6)
        assert [n for n, _ in counted] == [6]  # both :classify in one call of 3 + 3 rows
        assert status == (200, alone.handle("GET", "/v1/models/iris", b"")[1])
        assert metadata == (200, alone.handle("GET", "/v1/models/iris/metadata", b"")[1])
    finally:
        batcher.stop()
        executor.shutdown()


def test_rest_errors_timeouts_and_requests_the_batcher_does_not_take(models, counted):
    batcher = Batcher(BatchingParameters(max_batch_size=2, batch_timeout_micros=5_000_000,
                                         num_batch_threads=1))
    executor = ThreadPoolExecutor(1, thread_name_prefix="worker")
    app = RestApp(RestApi({"iris": models}, batcher=batcher), executor, 1 << 20,
                  timeout_seconds=0.3)
    try:
        # queued past the request's timeout (the batch waits 5 s for a second request): 504
        status, body = asyncio.run(_rest_call(app, "/v1/models/iris:predict",
                                              _body(IRIS_ROWS[0])))
        assert status == 504 and b"--rest_api_timeout_in_ms" in body
        # more rows than max_batch_size: run alone, on a worker thread
        body = json.dumps({"signature_name": "predict", "instances": IRIS_ROWS}).encode()
        status, answer = asyncio.run(_rest_call(app, "/v1/models/iris:predict", body))
        assert status == 200 and len(json.loads(answer)["predictions"]) == 3
        assert counted[-1] == (3, counted[-1][1]) and counted[-1][1].startswith("worker")
        # a value the model rejects: 400 naming it; an unknown model: 404
        bad = _body(dict(IRIS_ROWS[0], SepalLength="x"))
        status, answer = asyncio.run(_rest_call(app, "/v1/models/iris:predict", bad))
        assert status == 400 and b"SepalLength" in answer
        status, _ = asyncio.run(_rest_call(app, "/v1/models/nope:predict", bad))
        assert status == 404
    finally:
        batcher.stop()
        executor.shutdown()


def test_submit_futures_queue_full_timeout_and_cancel(exports):
    iris = Servable(2, exports["iris_v2"], load(exports["iris_v2"]), "iris")
    batcher = Batcher(BatchingParameters(max_batch_size=2, batch_timeout_micros=200_000,
                                         num_batch_threads=1, max_enqueued_batches=1))
    one = {"examples": np.array(serialized_examples(IRIS_ROWS[:1]), dtype=object)}
    signature = iris.signature("predict")

    async def scenario():
        first = batcher.submit(iris, "predict", one, features=False)
        second = batcher.submit(iris, "predict", one)  # fills the batch: it runs at once
        with pytest.raises(BatchQueueFull):  # (while that batch is still queued)
            batcher.submit(iris, "predict", one)
        results = await asyncio.gather(first, second)
        late = batcher.submit(iris, "predict", one, deadline=time.monotonic() + 0.01)
        with pytest.raises(RequestError) as info:
            await late
        assert info.value.status == 504
        await asyncio.sleep(0.4)  # (its batch, now empty, is dropped at its timeout)
        cancelled = batcher.submit(iris, "predict", one)
        cancelled.cancel()
        kept = batcher.submit(iris, "predict", one)
        scalar = {"examples": np.array(one["examples"][0], dtype=object)}
        return results, await kept, batcher.submit(iris, "predict", scalar)

    try:
        (first, second), kept, unbatchable = asyncio.run(scenario())
        want = np.asarray(signature(**one)["logits"])
        for outputs in (first, second, kept):
            np.testing.assert_allclose(np.asarray(outputs["logits"]), want, rtol=1e-5,
                                       atol=1e-6)
        assert unbatchable is None  # (a scalar: the caller runs it alone)
        time.sleep(0.5)
        # the timed-out and the cancelled request never ran: 2 + 1 tasks in 2 batches
        assert batcher.stats["tasks"] == 3 and batcher.stats["batches"] == 2, batcher.stats
    finally:
        batcher.stop()


def _predict_request(rows) -> pb.PredictRequest:
    request = pb.PredictRequest()
    request.model_spec.name, request.model_spec.signature_name = "iris", "predict"
    tensor = request.inputs["examples"]
    tensor.dtype = 7
    tensor.tensor_shape.dim.add(size=len(rows))
    tensor.string_val.extend(serialized_examples(rows))
    return request


def _stub(port: int):
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    grpc.channel_ready_future(channel).result(timeout=30)
    return channel, channel.unary_unary(
        PREDICT, request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=pb.PredictResponse.FromString)


def test_grpc_calls_on_one_thread_fill_one_batch(models, counted):
    batcher = Batcher(BatchingParameters(max_batch_size=8, batch_timeout_micros=2_000_000,
                                         num_batch_threads=1))
    port = free_port()
    server = start_grpc_server({"iris": models}, host="127.0.0.1", port=port, max_threads=1,
                               max_message_bytes=1 << 20, batcher=batcher)
    channel, stub = _stub(port)
    try:
        futures = [stub.future(_predict_request([IRIS_ROWS[i % 3]]), timeout=60)
                   for i in range(8)]
        answers = [f.result() for f in futures]
        assert all("logits" in a.outputs for a in answers)
        assert [n for n, _ in counted] == [8], counted
        assert batcher.stats["batches"] == 1 and batcher.stats["tasks"] == 8
        # a call queued past its deadline: DEADLINE_EXCEEDED (the batch waits 2 s)
        with pytest.raises(grpc.RpcError) as info:
            stub(_predict_request(IRIS_ROWS[:1]), timeout=0.3)
        assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        channel.close()
        assert server.stop(5).wait(30)
        batcher.stop()


def test_grpc_call_past_a_full_batch_queue_is_unavailable_at_once(models, counted):
    """TF Serving's answer to a full batch queue: UNAVAILABLE, at once, naming the limit;
    the call that was queued is answered when a call that fits fills its batch."""
    batcher = Batcher(BatchingParameters(max_batch_size=2, batch_timeout_micros=10_000_000,
                                         num_batch_threads=1, max_enqueued_batches=1))
    port = free_port()
    server = start_grpc_server({"iris": models}, host="127.0.0.1", port=port, max_threads=1,
                               max_message_bytes=1 << 20, batcher=batcher)
    channel, stub = _stub(port)
    try:
        queued = stub.future(_predict_request(IRIS_ROWS[:1]), timeout=60)  # opens a batch
        time.sleep(1.0)  # (it waits up to 10 s for a second row)
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:  # 1 + 2 rows: a second batch, over the limit
            stub(_predict_request(IRIS_ROWS[:2]), timeout=60)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE, info.value
        assert "max_enqueued_batches=1" in info.value.details()
        assert time.monotonic() - started < 5.0  # refused, not queued behind the open batch
        assert batcher.stats["queue_full"] == 1
        filler = stub(_predict_request(IRIS_ROWS[1:2]), timeout=60)  # fits: the batch runs
        assert "logits" in queued.result(timeout=30).outputs and "logits" in filler.outputs
        assert [n for n, _ in counted] == [2], counted  # one model call for both
    finally:
        channel.close()
        assert server.stop(5).wait(30)
        batcher.stop()


def _signature_counts(metrics: Metrics) -> dict:
    families = {f.name: f for f in text_string_to_metric_families(metrics.render().decode())}
    return {(s.labels["API"], s.labels["signature_name"], s.labels["entrypoint"],
             s.labels["status"]): s.value for s in families[REQUEST_COUNT].samples}


def test_batched_requests_are_counted_under_the_signature_they_ran(models):
    """The metrics' signature label on the loop's batched paths: REST (`handle_async`, the
    app inside `MonitoredApp`) and gRPC (`run_steps_async`)."""
    batcher = Batcher(BatchingParameters(max_batch_size=2, batch_timeout_micros=1000,
                                         num_batch_threads=1))
    executor = ThreadPoolExecutor(1)
    metrics = Metrics({"iris": models})
    app = MonitoredApp(RestApp(RestApi({"iris": models}, batcher=batcher), executor, 1 << 20,
                               timeout_seconds=30), metrics)
    port = free_port()
    server = start_grpc_server({"iris": models}, host="127.0.0.1", port=port, max_threads=1,
                               max_message_bytes=1 << 20, batcher=batcher, metrics=metrics)
    channel, stub = _stub(port)
    try:
        assert asyncio.run(_rest_call(app, "/v1/models/iris:predict",
                                      _body(IRIS_ROWS[0])))[0] == 200
        body = json.dumps({"examples": IRIS_ROWS[:1]}).encode()
        assert asyncio.run(_rest_call(app, "/v1/models/iris:classify", body))[0] == 200
        unknown = json.dumps({"signature_name": "nope", "instances": [IRIS_ROWS[0]]}).encode()
        assert asyncio.run(_rest_call(app, "/v1/models/iris:predict", unknown))[0] == 400
        assert "logits" in stub(_predict_request(IRIS_ROWS[:1]), timeout=60).outputs
        assert _signature_counts(metrics) == {
            ("predict", "predict", "REST", "OK"): 1.0,
            ("classify", "serving_default", "REST", "OK"): 1.0,
            ("predict", "", "REST", "INVALID_ARGUMENT"): 1.0,
            ("predict", "predict", "GRPC", "OK"): 1.0}
    finally:
        channel.close()
        assert server.stop(5).wait(30)
        batcher.stop()
        executor.shutdown()


def test_grpc_calls_measured_cheap_run_on_the_servers_loop(models, counted):
    port = free_port()
    server = start_grpc_server({"iris": models}, host="127.0.0.1", port=port, max_threads=2,
                               max_message_bytes=1 << 20)
    channel, stub = _stub(port)
    try:
        expected = load(models.get(None).path).signatures["predict"](
            examples=np.array(serialized_examples(IRIS_ROWS[:1]), dtype=object))["logits"]
        for _ in range(5):
            answer = stub(_predict_request(IRIS_ROWS[:1]), timeout=60)
        threads = [name for _, name in counted]
        assert threads[0].startswith("serving-grpc_")  # measured on a worker first
        assert threads[-1] == "serving-grpc-loop", threads  # then answered on the loop
        got = np.asarray(answer.outputs["logits"].float_val).reshape(1, -1)
        np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-5, atol=1e-6)
        # a call that names a version (which may load on first use) takes a worker thread
        request = _predict_request(IRIS_ROWS[:1])
        request.model_spec.version.value = models.get(None).version
        stub(request, timeout=60)
        assert counted[-1][1].startswith("serving-grpc_")
    finally:
        channel.close()
        assert server.stop(5).wait(30)
