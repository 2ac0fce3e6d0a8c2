"""Issue 28: a label or id range check of a batch the loop just copied to the device reads the
host tensor it came from (`_engine/host_twins.py`): no kernel and no read-back on the device,
and a bad value raises in its own step, as on the CPU.

The copies go to the `meta` device, whose tensors own a storage as CUDA's do. The end-to-end
runs make the CPU stand in for the copies (`loop.TWIN_HOST_TENSORS_ON_CPU`, with
`loop.DEFER_CHECKS_ON_CPU`) and count the ops dispatched, as `bench/bench_gpu.py
--count-kernels` does. `lazy` tensors get no twin (asking their storage can crash the process).
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import torchestimator as tf
from _harness.device_leaks import available, leak_device
from torchestimator._engine import host_twins, loop

lazy_only = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")
META = torch.device("meta")


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops: collections.Counter = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops[func.name()] += 1
        return func(*args, **(kwargs or {}))


@pytest.fixture
def in_loop():
    loop._deferred.loops = getattr(loop._deferred, "loops", 0) + 1
    yield
    loop._deferred.loops -= 1
    loop.discard_deferred_checks()


def _verdict(low, high):
    return ValueError(f"bad {low} {high}") if int(low) < 0 or int(high) > 2 else None


# ------------------------------------------------------------------ the twin itself
def test_a_copy_and_whole_views_of_it_find_the_host_values():
    host = torch.tensor([[0], [2], [1]])
    copy = loop.to_device(host, META)
    assert copy.device.type == "meta"
    for view in (copy, copy.detach(), copy.reshape(-1), copy.detach().view(1, 3)):
        assert host_twins.host_values(view).tolist() == host.tolist()


def test_part_of_a_copy_another_dtype_or_a_changed_copy_finds_nothing():
    copy = loop.to_device(torch.tensor([0, 2, 1, 1]), META)
    assert host_twins.host_values(copy[1:]) is None  # an offset
    assert host_twins.host_values(copy[:2]) is None  # fewer values
    assert host_twins.host_values(copy[::2]) is None  # not contiguous
    assert host_twins.host_values(copy.view(torch.int32)) is None  # read as another dtype
    assert host_twins.host_values(copy + 0) is None  # a new tensor
    copy.add_(5)
    assert host_twins.host_values(copy) is None  # changed in place since the copy
    assert host_twins.host_values(torch.tensor([1, 2])) is None  # never copied


def test_large_tensors_and_tensors_with_autograd_get_no_twin():
    big = loop.to_device(torch.zeros(host_twins.TWIN_MAX_ELEMENTS + 1, dtype=torch.int64), META)
    assert host_twins.host_values(big) is None
    grad = loop.to_device(torch.zeros(3, requires_grad=True), META)
    assert host_twins.host_values(grad) is None
    bf16 = loop.to_device(torch.zeros(3, dtype=torch.bfloat16), META)  # numpy has no bfloat16
    assert host_twins.host_values(bf16) is None


@lazy_only
def test_lazy_tensors_get_no_twin():
    """torch 2.13 ends the process asking the storage of a lazy tensor made under a Python
    dispatch mode (even after the mode ended): lazy copies are never asked."""
    with OpCounter():
        made_under_a_mode = loop.to_device(torch.tensor([0, 1]), leak_device())
    assert host_twins.host_values(made_under_a_mode) is None
    assert host_twins.host_values(loop.to_device(torch.tensor([0, 1]), leak_device())) is None


# ------------------------------------------------------------------ check_value_range
def test_a_check_of_a_copy_reads_the_host_in_the_loop(in_loop):
    good = loop.to_device(torch.tensor([0, 2, 1]), META)
    assert loop.check_value_range(good, "k", _verdict) is False  # checked: nothing to clamp
    assert not getattr(loop._deferred, "checks", None)
    bad = loop.to_device(torch.tensor([0, 3, 1]), META)
    with pytest.raises(ValueError, match="bad 0 3"):
        loop.check_value_range(bad.reshape(3, 1), "k", _verdict)  # at once, not at the flush
    nan = loop.to_device(torch.tensor([0.0, float("nan")]), META)
    with pytest.raises(ValueError, match="nan"):
        loop.check_value_range(nan, "k", lambda low, high: ValueError(f"{high}") if np.isnan(high) else None)


def test_a_check_of_values_made_on_the_device_is_still_deferred(in_loop):
    copy = loop.to_device(torch.tensor([0, 2, 1]), META)
    assert loop.check_value_range(copy + 1, "k", _verdict) is True  # deferred: the caller clamps
    assert "k" in loop._deferred.checks  # read back at the loop's next flush


# ------------------------------------------------------------------ end to end, counted
@pytest.fixture
def copies_stand_in(monkeypatch):
    if loop.default_device().type != "cpu":  # a suite run on another device copies for real
        pytest.skip("the CPU stands in for the copies to a device")
    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    monkeypatch.setattr(loop, "TWIN_HOST_TENSORS_ON_CPU", True)
    yield
    loop.discard_deferred_checks()


def _keras_classifier():
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def test_fit_checks_the_labels_on_the_host_without_kernels(copies_stand_in):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(64, 4)).astype(np.float32), rng.integers(0, 3, size=64)
    model = _keras_classifier()
    with OpCounter() as counter:
        history = model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert counter.ops["aten::aminmax"] == 0 and counter.ops["aten::clamp"] == 0


def test_fit_raises_in_the_step_with_the_bad_label(copies_stand_in):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(64, 4)).astype(np.float32), rng.integers(0, 3, size=64)
    y[40] = 7  # the third batch of 16
    seen = []
    on_batch = tf.keras.callbacks.LambdaCallback(on_train_batch_begin=lambda batch, logs: seen.append(batch))
    with pytest.raises(ValueError, match=r"label value of 7.*\[0, 3\)"):
        _keras_classifier().fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False,
                                callbacks=[on_batch])
    assert seen == [0, 1, 2]  # not read back later: the step that had it raised


@pytest.mark.parametrize("label_dtype", [np.int64, np.float32])
def test_the_binary_head_checks_its_labels_on_the_host(copies_stand_in, tmp_path, label_dtype):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(label_dtype)
    columns = [tf.feature_column.numeric_column("x", shape=(3,))]
    config = tf.estimator.RunConfig(log_step_count_steps=None, save_summary_steps=0)
    est = tf.estimator.DNNClassifier([4], columns, model_dir=str(tmp_path), config=config)

    def input_fn(labels=y):
        return lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, labels)).batch(8)

    with OpCounter() as counter:
        est.train(input_fn(), steps=4)
    assert counter.ops["aten::aminmax"] == 0
    bad = y.copy()
    bad[20] = 2
    with pytest.raises(ValueError, match=r"[Ll]abels? .*2"):
        est.train(input_fn(bad), steps=4)


class _StepCounter(tf.estimator.SessionRunHook):
    def __init__(self):
        self.steps = 0

    def after_run(self, run_context, run_values):
        self.steps += 1


@pytest.mark.parametrize("bad, error", [(1.5, "non-integer"), (-1.0, r"[Ll]abels? .*-1")])
def test_the_multi_class_head_stops_at_the_step_with_a_bad_float_label(copies_stand_in, tmp_path,
                                                                         monkeypatch, bad, error):
    monkeypatch.setattr(loop, "CHECK_EVERY_N_STEPS", 10_000)  # a deferred check: read at the end
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = rng.integers(0, 3, size=32).astype(np.float32)
    y[12] = bad  # the second batch of 8
    columns = [tf.feature_column.numeric_column("x", shape=(3,))]
    config = tf.estimator.RunConfig(log_step_count_steps=None, save_summary_steps=0)
    est = tf.estimator.DNNClassifier([4], columns, n_classes=3, model_dir=str(tmp_path), config=config)
    counter = _StepCounter()
    with pytest.raises(ValueError, match=error):
        est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(8), steps=4,
                  hooks=[counter])
    assert counter.steps == 1  # the bad batch's step raised; no later step ran
