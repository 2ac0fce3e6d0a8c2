"""Issue 28: what crosses between the host and the device, and how often.

The 'meta' device stands in for an accelerator on the CPU (tensors move there without data); a
`TorchFunctionMode` records every `Tensor.to`/`pin_memory` call.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode

import torchestimator as tf
from torchestimator._engine import loop
from torchestimator.feature_column import _inputs
from torchestimator.feature_column._base import SparseIds

META = torch.device("meta")


class Recorder(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.calls: list = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in (torch.Tensor.to, torch.Tensor.pin_memory, torch.Tensor.cpu):
            self.calls.append((func.__name__, args[0].data_ptr() if args[0].device.type == "cpu" else None))
        return func(*args, **(kwargs or {}))


def _batch():
    features = {"x": torch.ones(4, 3), "word_id": torch.tensor([1, 2, 3, 4]),
                "word": np.array([b"a", b"b", b"c", b"d"], dtype=object)}
    return features, torch.tensor([0, 1, 0, 1])


def test_each_tensor_is_copied_once_and_host_features_stay():
    recorder = Recorder()
    with recorder:
        features, labels = next(loop.moved_batches([_batch()], META, lambda: frozenset({"word_id"})))
    assert features["x"].device == META and labels.device == META
    assert features["word_id"].device.type == "cpu"  # read by a categorical column on the host
    assert features["word"].dtype == object  # strings never cross
    moves = [c for c in recorder.calls if c[0] == "to"]
    assert len(moves) == 2 and len({ptr for _, ptr in moves}) == 2  # x and labels, once each
    assert not [c for c in recorder.calls if c[0] == "pin_memory"]  # pinning only for CUDA


def _packed_batch(with_host_key=False):
    """A batch of `tf.data`: 12 float columns that it keeps packed in one [batch, 12] matrix (in
    the order of their sorted names), a string column and the labels."""
    x = np.random.default_rng(0).normal(size=(64, 12)).astype(np.float32)
    columns = {f"f{i}": x[:, i] for i in range(12)}
    columns["word"] = np.array([b"a", b"b"] * 32, dtype=object)
    dataset = tf.data.Dataset.from_tensor_slices((columns, np.arange(64))).batch(16)
    batches = loop.iter_on_host(dataset)
    next(batches)
    return next(batches)  # rows 16-31: a block inside the matrix, not its start


def test_a_packed_block_of_numeric_features_crosses_in_one_copy():
    features, labels = _packed_batch()
    recorder = Recorder()
    with recorder:
        moved, _ = next(loop.moved_batches([(features, labels)], META, lambda: frozenset({"word"})))
    assert [c[0] for c in recorder.calls] == ["to", "to"]  # the matrix and the labels
    assert all(moved[f"f{i}"].device == META and moved[f"f{i}"].shape == (16,) for i in range(12))
    keys = sorted(f"f{i}" for i in range(12))
    assert [moved[k].stride() for k in keys] == [(12,)] * 12  # columns of one device matrix


def test_a_packed_block_lands_with_its_values(monkeypatch):
    from _harness import device_leaks  # noqa: PLC0415 - lazy: the stand-in device's harness

    if not device_leaks.available():
        pytest.skip("torch's lazy backend is not in this build")
    features, labels = _packed_batch()
    moved = loop.to_device(features, device_leaks.leak_device())
    for i in range(12):
        assert moved[f"f{i}"].device.type == "lazy"
        assert torch.equal(moved[f"f{i}"].cpu(), features[f"f{i}"]), f"f{i}"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_a_packed_block_on_cuda_is_one_matrix_for_the_feature_columns():
    from torchestimator.data.columns import packed_matrix  # noqa: PLC0415 - lazy: CUDA-only test

    features, _ = _packed_batch()
    moved = loop.to_device(features, torch.device("cuda"))
    keys = sorted(f"f{i}" for i in range(12))
    matrix = packed_matrix([moved[k] for k in keys])
    assert matrix is not None and matrix.device.type == "cuda"
    assert torch.equal(matrix.cpu(), torch.stack([features[k] for k in keys], 1))


def test_a_partial_packed_block_moves_column_by_column():
    features, labels = _packed_batch()
    recorder = Recorder()
    with recorder:
        loop.to_device(features, META, host_keys=frozenset({"f3"}))
    assert [c[0] for c in recorder.calls] == ["to"] * 11


def test_to_device_on_the_cpu_copies_and_pins_nothing():
    recorder = Recorder()
    batch = _batch()
    with recorder:
        out = loop.to_device(batch, torch.device("cpu"))
    assert not recorder.calls and out[0]["x"] is batch[0]["x"]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_to_cuda_copies_from_pinned_memory():
    recorder = Recorder()
    with recorder:
        out = loop.to_device(torch.ones(8), torch.device("cuda"))
    assert out.device.type == "cuda" and [c[0] for c in recorder.calls] == ["pin_memory", "to"]


def test_sparse_ids_cross_in_one_copy():
    sp = SparseIds.from_dense(np.array([3, -1, 5, 7], dtype=np.int64), 4, 1, -1)
    recorder = Recorder()
    with recorder:
        moved = sp.to(META)
    assert [c[0] for c in recorder.calls] == ["to"]
    assert moved.ids.device == moved.rows.device == moved.cols.device == META
    assert moved.ids.shape == (3,) and moved.batch_size == 4


def test_categorical_column_marks_a_device_tensor_it_reads_back():
    value = torch.tensor([1, 2], device=META)
    with pytest.raises((NotImplementedError, RuntimeError)):  # a meta tensor has no values to read
        _inputs.raw_sparse(value, "word_id", "word_id", want_string=False)
    assert getattr(value, _inputs.HOST_READ, False)
    host = torch.tensor([1, 2])
    _inputs.raw_sparse(host, "word_id", "word_id", want_string=False)
    assert not getattr(host, _inputs.HOST_READ, False)


def test_estimator_learns_the_host_features():
    from torchestimator.estimator._placement import HostFeatures

    host = HostFeatures()
    marked = torch.tensor([1])
    _inputs.mark_read_on_host(marked)
    host.learn({"word_id": marked, "x": torch.ones(1)})
    assert host.current() == frozenset({"word_id"}) and host.learning
    host.learn({"x": torch.ones(1)})
    assert not host.learning and host.current() == frozenset({"word_id"})


def test_wide_and_deep_on_the_cpu_trains_with_host_columns(tmp_path):
    """The whole path on the CPU: string, hashed and crossed columns, with the meta device's
    stand-in absent (the Estimator keeps CPU batches where they are)."""
    rng = np.random.default_rng(0)
    word = np.array([b"a", b"b", b"c"])[rng.integers(0, 3, 64)]
    x = rng.normal(size=(64, 2)).astype(np.float32)
    y = (word == b"a").astype(np.int64)[:, None]

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"word": word, "x": x}, y)).repeat().batch(16)

    words = tf.feature_column.categorical_column_with_vocabulary_list("word", ["a", "b", "c"])
    hashed = tf.feature_column.categorical_column_with_hash_bucket("word", 10)
    crossed = tf.feature_column.crossed_column([words, "word"], 20)
    estimator = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[crossed, hashed], dnn_feature_columns=[
            tf.feature_column.embedding_column(words, 3), tf.feature_column.numeric_column("x", shape=(2,))],
        dnn_hidden_units=[4], model_dir=str(tmp_path),
        config=tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None))
    estimator.train(input_fn, steps=20)
    assert np.isfinite(estimator.evaluate(input_fn, steps=1)["loss"])


def test_prefetch_to_device_moves_elements(monkeypatch):
    from torchestimator._ops.control_ops import _context

    ds = tf.data.Dataset.from_tensor_slices(({"a": np.arange(4.0)}, np.arange(4))).batch(2)
    on_host = list(ds.apply(tf.data.experimental.prefetch_to_device("/gpu:0")))
    if _context._resolve_device("/gpu:0").type == "cpu":  # soft placement: no GPU, the host
        assert on_host[0][0]["a"].device.type == "cpu"
    monkeypatch.setattr(_context, "_resolve_device", lambda name: META)
    for transformation in (tf.data.experimental.prefetch_to_device("/gpu:0", buffer_size=1),
                           tf.data.experimental.copy_to_device("/gpu:0")):
        elements = list(ds.apply(transformation))
        assert len(elements) == 2
        assert elements[0][0]["a"].device == META and elements[0][1].device == META
    with pytest.raises(TypeError, match="device string"):
        tf.data.experimental.prefetch_to_device(0)


def test_prefetch_to_a_cuda_device_copies_on_a_thread_from_the_first_element(monkeypatch):
    """The copy to a GPU must overlap the step from the start, however cheap the input: the
    copier runs on the prefetch thread for every element (`Dataset.prefetch` alone would
    produce a cheap input in the consumer's thread). The copier is stubbed: no GPU here."""
    import threading

    from torchestimator._ops.control_ops import _context
    from torchestimator.data import transformations

    copied_on = []

    def copier(device):
        def move(*components):
            copied_on.append(threading.current_thread().name)
            return components if len(components) > 1 else components[0]
        return move

    monkeypatch.setattr(_context, "_resolve_device", lambda name: torch.device("cuda", 0))
    monkeypatch.setattr(transformations, "_cuda_copier", copier)
    ds = tf.data.Dataset.range(40).batch(2)
    for transformation in (tf.data.experimental.prefetch_to_device("/gpu:0", buffer_size=2),
                           tf.data.experimental.copy_to_device("/gpu:0")):
        copied_on.clear()
        got = [b.tolist() for b in ds.apply(transformation)]
        assert got == [[i, i + 1] for i in range(0, 40, 2)]
        assert len(copied_on) == 20 and all(name.startswith("tf.data") for name in copied_on)
    with pytest.raises(ValueError, match="buffer_size"):
        ds.apply(tf.data.experimental.prefetch_to_device("/gpu:0", buffer_size=-3))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_prefetch_to_device_copies_on_its_own_stream_and_the_step_reads_whole_batches():
    """The copy runs on a stream of its own; a step that reads each batch on the training stream
    while the next ones are copied sees every batch whole (the copy waited for, its memory not
    reused while the step still reads it)."""
    n, width = 64, 1 << 16
    rows = np.arange(n, dtype=np.float32)[:, None] * np.ones((1, width), np.float32)
    ds = tf.data.Dataset.from_tensor_slices(rows).batch(1).apply(
        tf.data.experimental.prefetch_to_device("/gpu:0", buffer_size=4))
    seen = []
    for i, batch in enumerate(ds):
        assert batch.device.type == "cuda"
        big = torch.randn(2048, 2048, device=batch.device)
        for _ in range(4):  # keep the training stream busy while the next copies run
            big = big @ big / 2048
        seen.append((batch.sum() / width - i).abs().max())
    assert float(torch.stack(seen).max()) == 0.0


def test_tf_device_block_chooses_the_training_device(monkeypatch):
    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "meta")
    assert loop.default_device() == META
    with tf.device("/CPU:0"):
        assert loop.default_device() == torch.device("cpu")
    assert loop.default_device() == META


def test_run_config_device_fn_and_tf_device_choose_the_estimator_device(monkeypatch, tmp_path):
    from torchestimator.estimator._placement import device_for_call

    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "meta")
    assert device_for_call(tf.estimator.RunConfig()) == META
    config = tf.estimator.RunConfig(device_fn=lambda op: "/cpu:0")
    assert device_for_call(config) == torch.device("cpu")
    with tf.device("/CPU:0"):
        assert device_for_call(tf.estimator.RunConfig()) == torch.device("cpu")
    varying = tf.estimator.RunConfig(device_fn=lambda op: "/job:ps/task:0" if "Var" in op.type else "/job:worker")
    assert device_for_call(varying) == META  # per-op placement: the default stays
    # end to end: a CPU placement trains where the environment would pick another device
    estimator = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x")], model_dir=str(tmp_path),
                                             config=tf.estimator.RunConfig(device_fn=lambda op: "/cpu:0"))
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": np.ones(8, np.float32)},
                                                                np.ones(8, np.float32))).batch(4), steps=2)
    assert estimator.get_variable_value(estimator.get_variable_names()[0]) is not None


def test_tf_device_around_fit_chooses_the_keras_device(monkeypatch):
    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "meta")  # the environment's pick: no real compute
    with tf.device("/CPU:0"):
        model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
        model.compile("sgd", "mse")
        history = model.fit(np.ones((8, 3), np.float32), np.zeros((8, 2), np.float32), verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert all(w.device.type == "cpu" for w in model.parameters())


def test_the_default_cuda_device_has_this_process_s_index(monkeypatch):
    """`cuda` names the current GPU; the default device carries its index, so that it compares
    equal to the devices of tensors made on it (a process of a distributed run has its own)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "cuda")
    assert loop.default_device() == torch.device("cuda", 1)
    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "cuda:0")
    assert loop.default_device() == torch.device("cuda", 0)
    monkeypatch.delenv("TORCHESTIMATOR_DEVICE")
    assert loop.default_device() == torch.device("cuda", 1)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)  # not asked: it would initialise
    assert loop.default_device() == torch.device("cuda", 0)
