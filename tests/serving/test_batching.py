"""The Batcher on real exports, in process: requests joined into one model call, padding,
a full queue refused, requests too large run alone, a faulty request failing alone."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from _serving_testlib import IRIS, IRIS_ROWS, load

from torchestimator.serving._batching import Batcher, BatchQueueFull
from torchestimator.serving._errors import RequestError
from torchestimator.serving._model_config import BatchingParameters
from torchestimator.serving._versions import Servable


@pytest.fixture(scope="module")
def raw(exports) -> Servable:
    return Servable(1, exports["raw"], load(exports["raw"]), "raw")


@pytest.fixture(scope="module")
def iris(exports) -> Servable:
    return Servable(2, exports["iris_v2"], load(exports["iris_v2"]), "iris")


def _rows(n: int, start: int = 0) -> dict[str, np.ndarray]:
    rows = [IRIS_ROWS[(start + i) % 3] for i in range(n)]
    return {k: np.asarray([r[k] + 0.01 * (start + i) for i, r in enumerate(rows)], np.float32)
            for k in IRIS}


def _together(calls: list) -> list:
    """Runs the calls on threads started at once; returns their results (or exceptions)."""
    results: list = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i):
        barrier.wait()
        try:
            results[i] = calls[i]()
        except Exception as error:  # noqa: BLE001 - returned to the test
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_concurrent_requests_are_joined_into_one_model_call(raw):
    batcher = Batcher(BatchingParameters(max_batch_size=64, batch_timeout_micros=300_000,
                                         num_batch_threads=2))
    try:
        inputs = [_rows(1 + i % 3, start=i) for i in range(8)]
        results = _together([lambda x=x: batcher.call(raw, "predict", x) for x in inputs])
        assert batcher.stats["batches"] == 1, batcher.stats
        assert batcher.stats["tasks"] == 8 and batcher.stats["rows"] == sum(
            1 + i % 3 for i in range(8))
        signature = raw.signature("predict")
        for x, result in zip(inputs, results):
            assert not isinstance(result, Exception), result
            alone = signature(**x)
            assert set(result) == set(alone)
            for key in alone:
                got, want = np.asarray(result[key]), np.asarray(alone[key])
                if want.dtype.kind in "fc":
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
                else:
                    assert got.tolist() == want.tolist(), key
    finally:
        batcher.stop()


def test_a_batch_is_padded_to_an_allowed_size(raw):
    batcher = Batcher(BatchingParameters(max_batch_size=8, allowed_batch_sizes=(4, 8),
                                         num_batch_threads=1))
    try:
        result = batcher.call(raw, "predict", _rows(3))
        assert batcher.stats["padding_rows"] == 1 and batcher.stats["rows"] == 3
        assert np.asarray(result["logits"]).shape == (3, 3)
        np.testing.assert_allclose(np.asarray(result["logits"]), np.asarray(
            raw.signature("predict")(**_rows(3))["logits"]), rtol=1e-5, atol=1e-6)
    finally:
        batcher.stop()


def test_a_full_queue_refuses_at_once_with_503(raw):
    batcher = Batcher(BatchingParameters(max_batch_size=4, batch_timeout_micros=1_000_000,
                                         max_enqueued_batches=1, num_batch_threads=1))
    try:
        first: list = []
        sender = threading.Thread(target=lambda: first.append(
            batcher.call(raw, "predict", _rows(3))))
        sender.start()
        time.sleep(0.2)  # the first batch is open, waiting out its timeout
        started = time.monotonic()
        with pytest.raises(BatchQueueFull) as raised:
            batcher.call(raw, "predict", _rows(2))  # 3 + 2 > 4: would need a second batch
        assert time.monotonic() - started < 0.5
        assert raised.value.status == 503
        assert "max_enqueued_batches=1" in raised.value.message
        assert batcher.stats["queue_full"] == 1
        # one that fits joins the open batch
        assert np.asarray(batcher.call(raw, "predict", _rows(1))["logits"]).shape == (1, 3)
        sender.join(10)
        assert np.asarray(first[0]["logits"]).shape == (3, 3)
        assert batcher.stats["batches"] == 1 and batcher.stats["tasks"] == 2
    finally:
        batcher.stop()


def test_a_request_over_max_batch_size_runs_alone(raw):
    batcher = Batcher(BatchingParameters(max_batch_size=4, num_batch_threads=1))
    try:
        result = batcher.call(raw, "predict", _rows(10))
        assert np.asarray(result["logits"]).shape == (10, 3)
        assert batcher.stats["unbatched"] == 1 and batcher.stats["batches"] == 0
    finally:
        batcher.stop()


def test_a_faulty_request_fails_alone_and_features_are_batched(iris):
    batcher = Batcher(BatchingParameters(max_batch_size=64, batch_timeout_micros=300_000,
                                         num_batch_threads=1))
    try:
        good = {k: [row[k] for row in IRIS_ROWS] for k in IRIS}
        bad = dict(good, SepalLength=["not a number"] * 3)
        results = _together([lambda: batcher.call(iris, "predict", good, features=True),
                             lambda: batcher.call(iris, "predict", bad, features=True),
                             lambda: batcher.call(iris, "predict", good, features=True)])
        assert isinstance(results[1], Exception) and not isinstance(results[1], RequestError)
        expected = np.asarray(iris.signature("predict").call_on_features(good)["logits"])
        for result in (results[0], results[2]):
            np.testing.assert_allclose(np.asarray(result["logits"]), expected, rtol=1e-5,
                                       atol=1e-6)
        assert batcher.stats["batches"] == 1 and batcher.stats["tasks"] == 3
    finally:
        batcher.stop()


def test_a_request_past_its_deadline_in_the_queue_gets_504(raw):
    batcher = Batcher(BatchingParameters(max_batch_size=8, batch_timeout_micros=2_000_000,
                                         num_batch_threads=1))
    try:
        with pytest.raises(RequestError) as raised:
            batcher.call(raw, "predict", _rows(1), deadline=time.monotonic() + 0.1)
        assert raised.value.status == 504
    finally:
        batcher.stop()


def test_requests_to_different_signatures_or_shapes_are_not_joined(raw):
    batcher = Batcher(BatchingParameters(max_batch_size=64, batch_timeout_micros=200_000,
                                         num_batch_threads=2))
    try:
        wide = {k: v.astype(np.float64) for k, v in _rows(2).items()}  # another dtype
        results = _together([lambda: batcher.call(raw, "predict", _rows(2)),
                             lambda: batcher.call(raw, "predict", wide)])
        assert all(not isinstance(r, Exception) for r in results), results
        assert batcher.stats["batches"] == 2
    finally:
        batcher.stop()


def test_a_batch_of_one_serialized_example_takes_the_batch_1_path(exports, monkeypatch):
    from _serving_testlib import serialized_examples

    from torchestimator.serving import _fast_call

    iris = Servable(2, exports["iris_v2"], load(exports["iris_v2"]), "iris")
    used = []
    real = _fast_call.fast_call

    def counting(signature, inputs):  # the real fast path, counted
        outputs = real(signature, inputs)
        used.append(outputs is not None)
        return outputs

    monkeypatch.setattr("torchestimator.serving._model_calls.fast_call", counting)
    batcher = Batcher(BatchingParameters(max_batch_size=8, batch_timeout_micros=1_000,
                                         num_batch_threads=1))
    try:
        one, two = serialized_examples(IRIS_ROWS[:2])
        alone = batcher.call(iris, "predict", {"examples": np.array([one], dtype=object)})
        assert used == [True]  # one request in its batch: the fast path answered
        general = iris.loaded.signatures["predict"](examples=np.array([one], dtype=object))
        for key, value in general.items():
            np.testing.assert_array_equal(np.asarray(alone[key]), np.asarray(value), err_msg=key)
        batcher.call(iris, "predict", {"examples": np.array([one, two], dtype=object)})
        assert used == [True, True]  # a small batch: the fast path too
        many = [one, two] * (_fast_call.MAX_FAST_EXAMPLES // 2 + 1)
        batcher.call(iris, "predict", {"examples": np.array(many, dtype=object)})
        assert used == [True, True, False]  # past MAX_FAST_EXAMPLES: the general path
    finally:
        batcher.stop()
