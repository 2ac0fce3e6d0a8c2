"""Issue 28: `Estimator.train` reads no value back from the device in a step that does not log.

On the CPU a stand-in counts the calls that would synchronise a CUDA stream (`Tensor.item`,
`tolist`, `__bool__`, `__float__`, `__int__`, `numpy`, `cpu`) through a `TorchFunctionMode`,
with the CPU made to defer its checks as an accelerator does (`loop.DEFER_CHECKS_ON_CPU`).
On a CUDA machine the same runs under `torch.cuda.set_sync_debug_mode`.
"""

from __future__ import annotations

import collections
import traceback

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode

import torchestimator as tf
from torchestimator._engine import loop
from torchestimator.estimator.hooks import basic_hooks

SYNCS = {torch.Tensor.item, torch.Tensor.tolist, torch.Tensor.__bool__, torch.Tensor.__float__,
         torch.Tensor.__int__, torch.Tensor.numpy, torch.Tensor.cpu}
STEPS, LOG_EVERY = 61, 20  # logging (and the deferred checks) every 20 steps keeps it fast


class SyncCounter(TorchFunctionMode):
    """Counts host read-backs per training step (`step` is set by `StepMark`)."""

    def __init__(self):
        super().__init__()
        self.step = -1
        self.by_step: collections.Counter = collections.Counter()
        self.where: dict = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in SYNCS:
            self.by_step[self.step] += 1
            self.where.setdefault(self.step, "".join(traceback.format_stack(limit=6)[:-1]))
        return func(*args, **(kwargs or {}))


class StepMark(tf.estimator.SessionRunHook):
    def __init__(self, counter: SyncCounter):
        self.counter, self.local = counter, -1

    def before_run(self, run_context):
        self.local += 1
        self.counter.step = self.local


@pytest.fixture
def accelerator_like(monkeypatch):
    """The CPU defers its checks as CUDA does (labels and the NaN loss check)."""
    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    monkeypatch.setattr(loop, "CHECK_EVERY_N_STEPS", LOG_EVERY)
    monkeypatch.setattr(basic_hooks.NanTensorHook, "_CHECK_EVERY_N_STEPS", LOG_EVERY)
    original = basic_hooks.NanTensorHook.__init__

    def deferred_init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._deferred = True

    monkeypatch.setattr(basic_hooks.NanTensorHook, "__init__", deferred_init)


def _input_fn(n_classes: int):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 4)).astype(np.float32)
    y = rng.integers(0, n_classes, size=(256, 1))

    def fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(32)

    return fn


def _config():
    return tf.estimator.RunConfig(log_step_count_steps=LOG_EVERY, save_summary_steps=LOG_EVERY,
                                  save_checkpoints_steps=None, save_checkpoints_secs=None,
                                  tf_random_seed=1)


def _train_counting(estimator, input_fn) -> SyncCounter:
    estimator.train(input_fn, steps=1)  # graph, variables and first checkpoint out of the way
    counter = SyncCounter()
    with counter:
        estimator.train(input_fn, steps=STEPS, hooks=[StepMark(counter)])
    return counter


def _allowed_steps() -> set:
    """The first and last step, the logging steps, and the NaN-loss hook's periodic check
    (its `LOG_EVERY`-th call, one step before a logging step)."""
    return {-1, STEPS - 1} | set(range(0, STEPS, LOG_EVERY)) | set(range(LOG_EVERY - 1, STEPS, LOG_EVERY))


def _assert_syncs_only_when_logging(counter: SyncCounter) -> None:
    allowed = _allowed_steps()
    quiet = {s: n for s, n in counter.by_step.items() if s not in allowed}
    assert not quiet, f"host read-backs in steps that do not log: {quiet}\n{counter.where[min(quiet)]}"


@pytest.mark.parametrize("n_classes", [2, 3])
def test_dnn_classifier_steps_do_not_read_back(tmp_path, accelerator_like, n_classes):
    columns = [tf.feature_column.numeric_column("x", shape=(4,))]
    estimator = tf.estimator.DNNClassifier([8], columns, n_classes=n_classes,
                                           model_dir=str(tmp_path), config=_config())
    counter = _train_counting(estimator, _input_fn(n_classes))
    _assert_syncs_only_when_logging(counter)
    assert sum(counter.by_step.values()) > 0  # the logging steps do read values: the counter works


def test_custom_model_fn_with_head_steps_do_not_read_back(tmp_path, accelerator_like):
    head = tf.estimator.MultiClassHead(3)

    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(3)(features["x"])
        optimizer = tf.keras.optimizers.SGD(0.1)
        return head.create_estimator_spec(features, mode, logits, labels=labels, optimizer=optimizer,
                                          trainable_variables=None)

    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=_config())
    _assert_syncs_only_when_logging(_train_counting(estimator, _input_fn(3)))


def test_deferred_label_check_raises_at_the_next_read(tmp_path, accelerator_like):
    """A label out of range is still an error naming it, read at the first step."""
    columns = [tf.feature_column.numeric_column("x", shape=(4,))]
    x = np.zeros((8, 4), np.float32)
    y = np.array([[0], [1], [7], [0], [1], [2], [0], [1]])

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)

    estimator = tf.estimator.DNNClassifier([4], columns, n_classes=3, model_dir=str(tmp_path),
                                           config=_config())
    with pytest.raises(ValueError, match=r"Labels must be <= 3 - 1; found label 7"):
        estimator.train(input_fn, steps=3)
    loop.flush_deferred_checks()  # nothing left pending after the failure


def test_cpu_label_check_is_immediate_and_names_the_label():
    from torchestimator.estimator.head import _labels

    assert not loop.defers_checks(torch.device("cpu"))
    with pytest.raises(ValueError, match=r"found label 5"):
        _labels.check_label_range(torch.tensor([0, 5]), 3)
    with pytest.raises(ValueError, match="received non-integer floats"):
        _labels.check_integer_labels(torch.tensor([0.5, 1.0]), 3, "MultiClassHead")
    with pytest.raises(ValueError, match="Labels contain NaN: 1 of 2"):
        _labels.check_integer_labels(torch.tensor([float("nan"), 1.0]), 3, "MultiClassHead")


def test_deferred_checks_accumulate_and_name_the_worst_label(monkeypatch):
    from torchestimator.estimator.head import _labels

    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    monkeypatch.setattr(loop._deferred, "loops", 1, raising=False)  # as in the training loop
    out = _labels.check_label_range(torch.tensor([0, 9]), 3)
    assert out.tolist() == [0, 2]  # clamped meanwhile: no kernel sees a bad class id
    _labels.check_label_range(torch.tensor([-1, 1]), 3)
    with pytest.raises(ValueError, match="found label 9"):
        loop.flush_deferred_checks()
    _labels.check_integer_labels(torch.tensor([float("nan"), 1.0]), 3, "MultiClassHead")
    with pytest.raises(ValueError, match=r"Labels contain NaN \(1 label value"):
        loop.flush_deferred_checks()
    _labels.check_non_negative(torch.tensor([-2.0, 1.0]), "counts must be >= 0; found {found:g}.")
    with pytest.raises(ValueError, match="found -2"):
        loop.flush_deferred_checks()
    loop.flush_deferred_checks()  # passes: nothing pending


def test_deferred_checks_fold_many_steps_into_one_state(monkeypatch):
    """Steps add their check's values without combining them (no kernel per step for that);
    past 64 kept states they fold into one, and the flush still finds the worst label."""
    from torchestimator.estimator.head import _labels

    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    monkeypatch.setattr(loop._deferred, "loops", 1, raising=False)
    for step in range(150):
        _labels.check_label_range(torch.tensor([0, 12 if step == 70 else 1]), 3)
        _labels.check_non_negative(torch.tensor([-4.0 if step == 3 else 1.0]), "found {found:g}")
        kept = [len(states) for states, _, _ in loop._deferred.checks.values()]
        assert max(kept) < 64
    with pytest.raises(ValueError, match="found label 12"):
        loop.flush_deferred_checks()
    loop.flush_deferred_checks()


def test_deferred_checks_outside_the_loop_read_back_at_once(monkeypatch):
    """A head used outside the training loop (e.g. in a plain torch loop) on an accelerator
    reads the range back at once: nothing would ever read a deferred check there."""
    from torchestimator.estimator.head import _labels

    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    assert not loop.in_loop()
    with pytest.raises(ValueError, match="found label 9"):
        _labels.check_label_range(torch.tensor([0, 9]), 3)
    with pytest.raises(ValueError, match="found -2"):
        _labels.check_non_negative(torch.tensor([-2.0, 1.0]), "found {found:g}")
    with pytest.raises(ValueError, match="non-integer"):
        _labels.check_integer_labels(torch.tensor([0.5, 1.0]), 3, "MultiClassHead")
    assert not getattr(loop._deferred, "checks", None)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_steps_do_not_synchronize(tmp_path, monkeypatch):
    """On CUDA: steps that do not log raise no synchronisation warning."""
    import warnings

    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "cuda")
    monkeypatch.setattr(loop, "CHECK_EVERY_N_STEPS", LOG_EVERY)
    monkeypatch.setattr(basic_hooks.NanTensorHook, "_CHECK_EVERY_N_STEPS", LOG_EVERY)
    columns = [tf.feature_column.numeric_column("x", shape=(4,))]
    estimator = tf.estimator.DNNClassifier([8], columns, n_classes=3, model_dir=str(tmp_path),
                                           config=_config())
    input_fn = _input_fn(3)
    estimator.train(input_fn, steps=1)
    counter = SyncCounter()  # only marks the step; CUDA's sync debug mode does the counting
    warned: collections.Counter = collections.Counter()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimator.train(input_fn, steps=STEPS, hooks=[StepMark(counter), _WarnMark(counter, caught, warned)])
    finally:
        torch.cuda.set_sync_debug_mode("default")
    allowed = _allowed_steps()
    assert not {s: n for s, n in warned.items() if s not in allowed}


class _WarnMark(tf.estimator.SessionRunHook):
    def __init__(self, counter, caught, warned):
        self.counter, self.caught, self.warned, self.seen = counter, caught, warned, 0

    def after_run(self, run_context, run_values):
        new = [w for w in self.caught[self.seen:] if "synchroniz" in str(w.message)]
        self.seen = len(self.caught)
        self.warned[self.counter.step] += len(new)
