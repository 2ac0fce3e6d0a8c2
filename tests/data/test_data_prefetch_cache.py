"""prefetch and threads (no leaks, errors surface), and cache (memory and file)."""

import gc
import os
import threading
import time

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.data import Dataset, background


def data_threads():
    return [t for t in threading.enumerate() if t.name.startswith("tf.data")]


def wait_no_threads(timeout=5.0):
    deadline = time.monotonic() + timeout
    while data_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    return data_threads()


def test_prefetch_yields_the_same_elements():
    ds = Dataset.range(100).batch(7)
    expected = [b.tolist() for b in ds.as_numpy_iterator()]
    for size in (1, 3, tf.data.AUTOTUNE, 0):
        got = [b.tolist() for b in ds.prefetch(size).as_numpy_iterator()]
        assert got == expected
    assert ds.prefetch(2).cardinality() == ds.cardinality()
    with pytest.raises(ValueError, match="buffer_size"):
        ds.prefetch(-5)


def _costly_at_once(monkeypatch):
    """Every prefetched input proves costly at its second element (a thread from the third on)."""
    monkeypatch.setattr(background, "COSTLY_ELEMENT_S", 0.0)
    monkeypatch.setattr(background, "COST_WINDOW", 1)


def test_breaking_out_of_a_prefetched_loop_stops_its_threads(monkeypatch):
    _costly_at_once(monkeypatch)
    ds = Dataset.range(10**9).map(lambda x: x + 1).prefetch(4).prefetch(2)
    for i, _ in enumerate(ds):
        if i == 5:
            assert data_threads()
            break
    gc.collect()
    assert wait_no_threads() == []
    it = iter(Dataset.range(10**9).map(lambda x: x * 2).prefetch(3))
    for _ in range(3):  # the first element, one timed window, then the thread
        next(it)
    assert data_threads()
    it.close()
    assert wait_no_threads() == []


def test_a_cheap_input_is_prefetched_in_the_consumers_thread():
    ds = Dataset.range(1000).batch(8).prefetch(tf.data.AUTOTUNE)
    it = iter(ds)
    got = [next(it).tolist() for _ in range(100)]
    assert not data_threads()  # slices of a range cost less than a handoff
    assert got + [b.tolist() for b in it] == [b.tolist() for b in Dataset.range(1000).batch(8)]


def test_a_costly_input_moves_to_a_thread_after_its_first_window():
    consumer = threading.get_ident()
    where = []

    def slow(x):  # 4 times the cost that makes an input worth a thread
        where.append(threading.get_ident())
        time.sleep(4 * background.COSTLY_ELEMENT_S)
        return x * 2

    ds = Dataset.range(60).map(lambda x: tf.py_function(slow, [x], tf.int64)).prefetch(2)
    it = iter(ds)
    got = [int(next(it)) for _ in range(1 + background.COST_WINDOW)]
    assert set(where) == {consumer}  # the first element and one timed window: here
    got += [int(x) for x in it]
    assert got == [2 * i for i in range(60)]
    assert set(where[1 + background.COST_WINDOW:]) - {consumer}  # then ahead, on a thread
    assert wait_no_threads() == []


def test_errors_after_the_move_to_a_thread_reach_the_caller(monkeypatch):
    _costly_at_once(monkeypatch)

    def gen():
        yield from range(5)
        raise ValueError("broken generator")

    ds = Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64)).prefetch(2)
    got = []
    with pytest.raises(ValueError, match="broken generator"):
        for x in ds:
            got.append(int(x))
    assert got == list(range(5))
    assert wait_no_threads() == []


def test_parallel_map_and_interleave_threads_stop():
    ds = Dataset.range(10**6).map(lambda x: x * 2, num_parallel_calls=4)
    it = iter(ds)
    assert [int(next(it)) for _ in range(5)] == [0, 2, 4, 6, 8]
    del it
    gc.collect()
    inter = Dataset.range(8).interleave(lambda x: Dataset.range(10**6), cycle_length=3,
                                        num_parallel_calls=3)
    it = iter(inter)
    next(it)
    del it
    gc.collect()
    assert wait_no_threads() == []
    assert not [t for t in threading.enumerate() if t.name.startswith("tf.data-map")]


def test_errors_in_a_prefetched_pipeline_reach_the_caller():
    def gen():
        yield 1
        raise ValueError("broken generator")

    ds = Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64)).prefetch(2)
    with pytest.raises(ValueError, match="broken generator"):
        list(ds)
    assert wait_no_threads() == []


def test_memory_cache_replays_without_recomputing():
    calls = []

    def f(x):
        calls.append(int(x))
        return x * 10

    ds = Dataset.range(5).map(f).cache()
    assert list(ds.as_numpy_iterator()) == [0, 10, 20, 30, 40]
    assert list(ds.as_numpy_iterator()) == [0, 10, 20, 30, 40]
    assert calls == [0, 1, 2, 3, 4]
    # The completed cache is an in-memory source: shuffle/batch work on indices.
    shuffled = [int(v) for b in ds.shuffle(5, seed=0).batch(2).as_numpy_iterator() for v in b]
    assert sorted(shuffled) == [0, 10, 20, 30, 40]
    assert calls == [0, 1, 2, 3, 4]
    assert ds.cardinality() == 5


def test_memory_cache_is_only_kept_after_a_complete_pass():
    calls = []
    ds = Dataset.range(4).map(lambda x: calls.append(1) or x).cache()
    it = iter(ds)
    next(it)
    del it
    assert len(list(ds)) == 4 and len(calls) == 5
    assert len(list(ds)) == 4 and len(calls) == 5


def test_cache_of_batches_with_a_remainder_and_strings():
    ds = Dataset.from_tensor_slices({"s": np.array(list("abcde"))}).batch(2).cache()
    first = [b["s"].tolist() for b in ds.as_numpy_iterator()]
    assert first == [["a", "b"], ["c", "d"], ["e"]]
    assert [b["s"].tolist() for b in ds.as_numpy_iterator()] == first


def test_file_cache_writes_once_and_replays_in_a_new_pipeline(tmp_path):
    prefix = str(tmp_path / "cache")
    calls = []

    def build():
        def f(x):
            calls.append(1)
            return {"v": x, "sq": [x, x * x], "s": "row"}
        return Dataset.range(6).map(f).batch(4).cache(prefix)

    ds = build()
    expected = [{k: v.tolist() for k, v in b.items()} for b in ds.as_numpy_iterator()]
    assert os.path.exists(prefix + ".arrow") and len(calls) == 6
    again = [{k: v.tolist() for k, v in b.items()} for b in build().as_numpy_iterator()]
    assert again == expected and len(calls) == 6
    assert expected[1]["sq"] == [[4, 16], [5, 25]] and expected[0]["s"] == ["row"] * 4


def test_file_cache_partial_pass_leaves_no_file(tmp_path):
    prefix = str(tmp_path / "c")
    ds = Dataset.range(100).cache(prefix)
    it = iter(ds)
    next(it)
    del it
    gc.collect()
    assert os.listdir(tmp_path) == []
    assert len(list(ds)) == 100 and os.listdir(tmp_path) == ["c.arrow"]
    other = Dataset.zip(Dataset.range(3), Dataset.range(3))
    other.element_spec  # noqa: B018 - a known spec is checked against the file's
    with pytest.raises(ValueError, match="different pipeline"):
        list(other.cache(prefix))
