"""Issue 28: the training loop's deferred (non-synchronizing) checks are flushed before every
checkpoint save, at a log line and at the end of training, so a failed step never lands in
model_dir; `NanTensorHook` uses them instead of reading the loss back every step.

The CPU is made to defer its checks as an accelerator does (`loop.DEFER_CHECKS_ON_CPU`), with
the loop's own periodic flush pushed out of reach so that only the flush points act."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop
from torchestimator.estimator.hooks import basic_hooks

N = 8  # batch size


@pytest.fixture(autouse=True)
def accelerator_like(monkeypatch):
    monkeypatch.setattr(loop, "DEFER_CHECKS_ON_CPU", True)
    monkeypatch.setattr(loop, "CHECK_EVERY_N_STEPS", 10_000)  # step 0's flush only


def _data(bad_step=None, what="label", steps=8, n_classes=3):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(steps * N, 4)).astype(np.float32)
    y = rng.integers(0, n_classes, size=(steps * N, 1)).astype(np.int64)
    if bad_step is not None:
        if what == "label":
            y[bad_step * N + 2] = 7  # out of range
        else:
            x[bad_step * N + 2, 0] = np.nan  # a NaN loss in that step

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(N)

    return input_fn


def _classifier(tmp_path, save_steps=4, n_classes=3):
    columns = [tf.feature_column.numeric_column("x", shape=(4,))]
    config = tf.estimator.RunConfig(save_checkpoints_steps=save_steps, log_step_count_steps=None,
                                    save_summary_steps=None)
    return tf.estimator.DNNClassifier([8], columns, n_classes=n_classes, model_dir=str(tmp_path),
                                        config=config)


def _checkpoints(model_dir) -> set[int]:
    return {int(name.split("-")[1].split(".")[0]) for name in os.listdir(model_dir)
            if name.startswith("model.ckpt-")}


class StepCount(tf.estimator.SessionRunHook):
    def __init__(self):
        self.steps = 0

    def after_run(self, run_context, run_values):
        self.steps += 1


def test_a_label_out_of_range_in_the_step_before_a_save_raises_before_it_is_written(tmp_path):
    # a binary head: its deferred range check clamps the labels meanwhile (a multi-class loss
    # on the CPU raises at once: torch's cross entropy checks its targets itself)
    est = _classifier(tmp_path, n_classes=2)
    with pytest.raises(ValueError, match="found label 7"):
        est.train(_data(bad_step=3, n_classes=2), steps=8)  # step index 3 ends at global step 4: a save
    assert 4 not in _checkpoints(tmp_path) and 8 not in _checkpoints(tmp_path)
    assert _checkpoints(tmp_path) == {0}  # the checkpoint before the bad step is all there is


def test_good_steps_save_as_before(tmp_path):
    est = _classifier(tmp_path)
    est.train(_data(), steps=8)
    assert _checkpoints(tmp_path) == {0, 4, 8}


def test_a_nan_loss_in_the_step_before_a_save_raises_and_nothing_is_written(tmp_path):
    est = _classifier(tmp_path)
    with pytest.raises(basic_hooks.NanLossDuringTrainingError):
        est.train(_data(bad_step=1, what="nan"), steps=8)
    assert _checkpoints(tmp_path) == {0}


def _watching_model_fn(features, labels, mode):
    """A softmax regression whose loss stays finite; its hook watches a tensor that is NaN on a
    batch with a feature below -100 (fail_on_nan_loss=False: the hook stops training)."""
    logits = tf.keras.layers.Dense(3, name="logits")(features["x"])
    loss = torch.nn.functional.cross_entropy(logits, labels[:, 0])
    watched = torch.log(features["x"][:, 1].min() + 100.0)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    hooks = [basic_hooks.NanTensorHook(watched, fail_on_nan_loss=False), COUNTER]
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=hooks)


COUNTER = None


def test_fail_on_nan_loss_false_stops_at_the_save_and_keeps_the_last_good_checkpoint(tmp_path):
    global COUNTER
    COUNTER = StepCount()
    config = tf.estimator.RunConfig(save_checkpoints_steps=4, log_step_count_steps=None,
                                    save_summary_steps=None)
    est = tf.estimator.Estimator(_watching_model_fn, model_dir=str(tmp_path), config=config)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16 * N, 4)).astype(np.float32)
    x[5 * N + 1, 1] = -200.0  # the watched tensor is NaN in step index 5 (global step 6)
    y = rng.integers(0, 3, size=(16 * N, 1)).astype(np.int64)
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(N), steps=12)
    assert COUNTER.steps == 8  # found at the save of global step 8, training stopped there
    assert _checkpoints(tmp_path) == {0, 4}  # neither that save nor the final one was written


def test_nan_loss_raises_at_the_end_of_training_at_the_latest(tmp_path):
    est = _classifier(tmp_path, save_steps=1000)
    counter = StepCount()
    with pytest.raises(basic_hooks.NanLossDuringTrainingError):
        est.train(_data(bad_step=2, what="nan"), steps=6, hooks=[counter])
    assert counter.steps == 6  # no read-back in between: found when the loop ended
    assert _checkpoints(tmp_path) == {0}  # the final save of a diverged model is not written


def test_nan_loss_raises_at_the_next_log_line(tmp_path):
    est = _classifier(tmp_path, save_steps=1000)
    counter = StepCount()
    logging = tf.estimator.LoggingTensorHook(["loss"], every_n_iter=4)
    with pytest.raises(basic_hooks.NanLossDuringTrainingError):
        est.train(_data(bad_step=1, what="nan"), steps=8, hooks=[counter, logging])
    assert counter.steps == 5  # the log line of step index 4 read the checks


def test_nan_tensor_hook_reads_nothing_back_per_step_on_an_accelerator(tmp_path):
    """The hook records `isnan(loss)` on the device; the loop holds it until a flush."""
    est = _classifier(tmp_path, save_steps=1000)

    class Peek(tf.estimator.SessionRunHook):
        pending: list = []

        def after_run(self, run_context, run_values):
            keys = [k for k in getattr(loop._deferred, "checks", {}) if k[0] == "NanTensorHook"]
            self.pending.append(len(keys))

    peek = Peek()
    est.train(_data(), steps=3, hooks=[peek])
    # the Estimator's NanTensorHook runs after the user's hooks: its check of the step before
    # is pending in every step but the first
    assert peek.pending == [0, 1, 1]
