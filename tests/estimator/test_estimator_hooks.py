"""SessionRunHook lifecycle and order, and the built-in hooks of train(): StopAtStepHook,
NanTensorHook, LoggingTensorHook, StepCounterHook, CheckpointSaverHook with listeners."""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest
import torch
from _estimator_testlib import X, checkpoint_steps, config, input_fn, linear_model_fn, weights

import torchestimator as tf
from torchestimator.estimator import NanLossDuringTrainingError


class Recorder(tf.estimator.SessionRunHook):
    """Records every call, with the global step it saw."""

    def __init__(self, log: list, fetch_step: bool = True):
        self.log = log
        self.fetch_step = fetch_step

    def begin(self):
        self.log.append(("begin",))

    def after_create_session(self, session, coord):
        self.log.append(("after_create_session", session.global_step))

    def before_run(self, run_context):
        self.log.append(("before_run",))
        return tf.estimator.SessionRunArgs("global_step") if self.fetch_step else None

    def after_run(self, run_context, run_values):
        self.log.append(("after_run", None if run_values.results is None else int(run_values.results)))

    def end(self, session):
        self.log.append(("end", session.global_step))


class Listener(tf.estimator.CheckpointSaverListener):
    def __init__(self, log: list, stop_at: int | None = None):
        self.log = log
        self.stop_at = stop_at

    def begin(self):
        self.log.append(("l.begin",))

    def before_save(self, session, global_step_value):
        self.log.append(("l.before_save", global_step_value))

    def after_save(self, session, global_step_value):
        self.log.append(("l.after_save", global_step_value))
        return self.stop_at is not None and global_step_value >= self.stop_at

    def end(self, session, global_step_value):
        self.log.append(("l.end", global_step_value))


def make(model_dir, model_fn=linear_model_fn, **kwargs):
    return tf.estimator.Estimator(model_fn, model_dir=str(model_dir), config=config(**kwargs))


def test_hook_and_listener_order_matches_tf(tmp_path):
    log: list = []
    est = make(tmp_path, save_checkpoints_steps=2)
    est.train(input_fn(), steps=3, hooks=[Recorder(log)], saving_listeners=[Listener(log)])
    assert log == [
        ("l.begin",), ("begin",),
        ("l.before_save", 0), ("l.after_save", 0),
        ("after_create_session", 0),
        ("before_run",), ("after_run", 0),
        ("before_run",), ("l.before_save", 2), ("l.after_save", 2), ("after_run", 1),
        ("before_run",), ("after_run", 2),
        ("l.before_save", 3), ("l.after_save", 3), ("l.end", 3),
        ("end", 3),
    ]


def test_error_in_a_step_skips_after_run_and_end(tmp_path):
    log: list = []
    calls = []

    def model_fn(features, labels, mode):
        calls.append(1)
        if len(calls) == 3:  # the build call, step 1, then step 2 fails
            raise RuntimeError("boom")
        return linear_model_fn(features, labels, mode)

    with pytest.raises(RuntimeError, match="boom"):
        make(tmp_path, model_fn).train(input_fn(), steps=5, hooks=[Recorder(log)])
    assert log[-2:] == [("after_run", 0), ("before_run",)]
    assert ("end", 1) not in log


def test_end_of_input_runs_end(tmp_path):
    log: list = []
    make(tmp_path).train(input_fn(2), hooks=[Recorder(log, fetch_step=False)])
    assert log[-3:] == [("before_run",), ("after_run", None), ("end", 2)]


def test_request_stop_ends_training_after_the_step(tmp_path):
    class StopAfter(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            if run_context.session.global_step >= 4:
                run_context.request_stop()

    est = make(tmp_path)
    est.train(input_fn(), hooks=[StopAfter()])
    assert int(est.get_variable_value("global_step")) == 4


def test_hooks_must_be_session_run_hooks(tmp_path):
    with pytest.raises(TypeError, match="SessionRunHook"):
        make(tmp_path).train(input_fn(), steps=1, hooks=[object()])
    with pytest.raises(TypeError, match="CheckpointSaverListener"):
        make(tmp_path).train(input_fn(), steps=1, saving_listeners=[object()])

    class BadArgs(tf.estimator.SessionRunHook):
        def before_run(self, run_context):
            return ["loss"]

    with pytest.raises(TypeError, match="BadArgs.before_run must return a SessionRunArgs"):
        make(tmp_path).train(input_fn(), steps=1, hooks=[BadArgs()])


# ---------------------------------------------------------------------------- StopAtStepHook


def test_stop_at_step_hook(tmp_path):
    est = make(tmp_path)
    est.train(input_fn(), hooks=[tf.estimator.StopAtStepHook(num_steps=3)])
    assert int(est.get_variable_value("global_step")) == 3
    est.train(input_fn(), hooks=[tf.estimator.StopAtStepHook(last_step=5)])
    assert int(est.get_variable_value("global_step")) == 5
    est.train(input_fn(), hooks=[tf.estimator.StopAtStepHook(num_steps=2)])
    assert int(est.get_variable_value("global_step")) == 7
    with pytest.raises(ValueError, match="One of num_steps or last_step must be specified"):
        tf.estimator.StopAtStepHook()
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        tf.estimator.StopAtStepHook(num_steps=1, last_step=2)
    with pytest.raises(ValueError, match="num_steps must be non-negative"):
        tf.estimator.StopAtStepHook(num_steps=-1)


# ---------------------------------------------------------------------------- NanTensorHook


def nan_at(step: int):
    """A model_fn whose loss is NaN at global step `step`."""

    def model_fn(features, labels, mode):
        spec = linear_model_fn(features, labels, mode)
        if mode != tf.estimator.ModeKeys.TRAIN:
            return spec
        if int(tf.compat.v1.train.get_global_step()) == step:
            loss = spec.loss * float("nan")
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
        return spec

    return model_fn


@pytest.mark.parametrize("save_steps, expected_latest", [(1, 4), (3, 3)])
def test_nan_loss_raises_and_keeps_the_last_good_checkpoint(tmp_path, caplog, save_steps,
                                                           expected_latest):
    est = make(tmp_path, nan_at(4), save_checkpoints_steps=save_steps, keep_checkpoint_max=None)
    with pytest.raises(NanLossDuringTrainingError, match="NaN loss during training."):
        est.train(input_fn(), steps=20)
    assert "Model diverged with loss = NaN." in caplog.text
    assert checkpoint_steps(str(tmp_path))[-1] == expected_latest
    assert est.latest_checkpoint().endswith(f"model.ckpt-{expected_latest}")
    for name, value in weights(str(tmp_path)).items():
        assert np.isfinite(value).all(), name


def test_nan_tensor_hook_without_failing_requests_stop(tmp_path):
    est = make(tmp_path)
    est.train(input_fn(), steps=2)
    x = X.copy()
    x[10] = np.nan  # in the second batch
    log: list = []
    hook = tf.estimator.NanTensorHook("loss", fail_on_nan_loss=False)
    hook._deferred = False  # checked after every step, as on the CPU (deferred: the test below)
    est.evaluate(input_fn(4, x=x), hooks=[hook, Recorder(log, fetch_step=False)])
    assert log.count(("before_run",)) == 2


def test_nan_tensor_hook_deferred_check_on_accelerators(tmp_path, monkeypatch):
    """A loss on an accelerator is folded into a device flag (the loop's deferred checks) and
    read at the loop's flush every N steps; forced here on the CPU."""
    from torchestimator._engine import loop

    est = make(tmp_path)
    est.train(input_fn(), steps=2)
    x = X.copy()
    x[10] = np.nan  # in the second batch (step 1)
    log: list = []
    hook = tf.estimator.NanTensorHook("loss", fail_on_nan_loss=False)
    hook._deferred = True
    monkeypatch.setattr(loop, "CHECK_EVERY_N_STEPS", 3)
    est.evaluate(input_fn(8, x=x), hooks=[hook, Recorder(log, fetch_step=False)])
    assert log.count(("before_run",)) == 4  # read at the flush of step 3, stopped at its end
    fail = tf.estimator.NanTensorHook("loss")
    fail._deferred = True
    monkeypatch.setattr(loop, "CHECK_EVERY_N_STEPS", 100)
    with pytest.raises(NanLossDuringTrainingError):  # read at the end at the latest
        est.evaluate(input_fn(8, x=x), hooks=[fail])


def test_nan_tensor_hook_with_a_tensor_from_model_fn(tmp_path):
    def model_fn(features, labels, mode):
        spec = linear_model_fn(features, labels, mode)
        watched = torch.log(features["x"][:, 0].abs().min() - 10.0)  # NaN on every batch
        hooks = [tf.estimator.NanTensorHook(watched)]
        return spec._replace(training_hooks=hooks) if mode == "train" else spec

    with pytest.raises(NanLossDuringTrainingError):
        make(tmp_path, model_fn).train(input_fn(), steps=3)


# ---------------------------------------------------------------------------- LoggingTensorHook


def logged(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "torchestimator"]


def test_logging_tensor_hook_every_n_iter(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="torchestimator")
    hook = tf.estimator.LoggingTensorHook({"step": "global_step", "loss": "loss"}, every_n_iter=2)
    make(tmp_path).train(input_fn(), steps=5, hooks=[hook])
    lines = [m for m in logged(caplog) if m.startswith("loss = ")]
    assert len(lines) == 3  # iterations 0, 2, 4
    assert lines[0].endswith("step = 0")
    assert lines[1].split(", ")[1].startswith("step = 2 (") and lines[1].endswith(" sec)")


def test_logging_tensor_hook_formatter_at_end_and_list(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="torchestimator")
    hooks = [
        tf.estimator.LoggingTensorHook(["loss"], at_end=True, formatter=lambda v: f"LAST {v['loss']:.3f}"),
        tf.estimator.LoggingTensorHook({"s": "global_step"}, every_n_secs=3600,
                                       formatter=lambda v: f"SECS {int(v['s'])}"),
    ]
    make(tmp_path).train(input_fn(), steps=4, hooks=hooks)
    messages = logged(caplog)
    assert [m for m in messages if m.startswith("SECS")] == ["SECS 0"]  # first call only
    last = [m for m in messages if m.startswith("LAST")]
    final = float(next(m for m in messages if m.startswith("Loss for final step:")).split(": ")[1].rstrip("."))
    assert last == [f"LAST {final:.3f}"]  # the last step's value
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.estimator.LoggingTensorHook(["loss"])
    with pytest.raises(ValueError, match="invalid every_n_iter=0"):
        tf.estimator.LoggingTensorHook(["loss"], every_n_iter=0)


def test_default_train_log_lines(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="torchestimator")
    make(tmp_path, log_step_count_steps=2).train(input_fn(), steps=5)
    messages = logged(caplog)
    loss_lines = [m for m in messages if m.startswith("loss = ")]
    assert [m.split("step = ")[1].split()[0].rstrip(",") for m in loss_lines] == ["0", "2", "4"]
    assert any(m.startswith("global_step/sec: ") for m in messages)
    assert messages[-1].startswith("Loss for final step: ")


# ---------------------------------------------------------------------------- CheckpointSaverHook


def test_listener_returning_true_stops_training(tmp_path):
    log: list = []
    est = make(tmp_path, save_checkpoints_steps=2)
    est.train(input_fn(), steps=100, saving_listeners=[Listener(log, stop_at=4)])
    assert int(est.get_variable_value("global_step")) == 4
    assert [e for e in log if e[0] == "l.after_save"] == [("l.after_save", 0), ("l.after_save", 2),
                                                          ("l.after_save", 4)]
    assert log[-1] == ("l.end", 4)


def test_user_checkpoint_saver_hook_replaces_the_default(tmp_path):
    log: list = []
    elsewhere = str(tmp_path / "elsewhere")
    saver = tf.estimator.CheckpointSaverHook(elsewhere, save_steps=2, listeners=[Listener(log)])
    est = make(tmp_path / "model", save_checkpoints_steps=1)
    est.train(input_fn(), steps=5, hooks=[saver], saving_listeners=[Listener(log)])
    assert checkpoint_steps(elsewhere) == [0, 2, 4, 5]
    assert checkpoint_steps(str(tmp_path / "model")) == []
    assert log.count(("l.begin",)) == 2  # both listeners attached to the user's hook
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.estimator.CheckpointSaverHook(elsewhere)
    with pytest.raises(ValueError, match="not both"):
        tf.estimator.CheckpointSaverHook(elsewhere, save_secs=1, save_steps=1)


def test_checkpoints_by_seconds(tmp_path):
    est = make(tmp_path, save_checkpoints_secs=3600)
    est.train(input_fn(), steps=4)
    assert checkpoint_steps(str(tmp_path)) == [0, 4]


def test_training_resumes_from_user_hook_checkpoints_in_model_dir(tmp_path):
    saver = tf.estimator.CheckpointSaverHook(str(tmp_path), save_steps=3)
    est = make(tmp_path, save_checkpoints_steps=None, save_checkpoints_secs=None)
    est.train(input_fn(), steps=4, hooks=[saver])
    assert checkpoint_steps(str(tmp_path)) == [0, 3, 4]
    assert os.path.exists(os.path.join(str(tmp_path), "checkpoint"))
    assert est.evaluate(input_fn(1))["global_step"] == 4
