"""tf.estimator.train_and_evaluate (local mode), TrainSpec and EvalSpec: evaluation on new
checkpoints, throttling (counted with a fake clock), the final evaluation, exporters'
calling protocol, eval results in event files, and the specs' argument checks."""

from __future__ import annotations

import os

import numpy as np
import pytest
from _estimator_testlib import config, input_fn, linear_model_fn, single_thread

import torchestimator as tf
from torchestimator.estimator import _training
from torchestimator.estimator.hooks import read_eval_metrics


class FakeClock:
    """A clock that moves only when told (the throttle reads it; nothing sleeps)."""

    def __init__(self):
        self.now = 1000.0
        self.slept = []

    def time(self):
        return self.now

    def sleep(self, secs):
        self.slept.append(secs)
        self.now += secs


class AdvanceClockHook(tf.estimator.SessionRunHook):
    """Moves the fake clock `secs` seconds per training step."""

    def __init__(self, clock, secs=1.0):
        self.clock, self.secs = clock, secs

    def after_run(self, run_context, run_values):
        self.clock.now += self.secs


class RecordingExporter(tf.estimator.Exporter):
    """An Exporter that records how train_and_evaluate calls it (and exports nothing)."""

    def __init__(self, name="recording"):
        self._name = name
        self.calls = []

    @property
    def name(self):
        return self._name

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        self.calls.append((export_path, checkpoint_path, int(eval_result["global_step"]),
                           is_the_final_export))
        return f"{self._name}-{int(eval_result['global_step'])}"


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def eval_steps(model_dir, name=None):
    return list(read_eval_metrics(os.path.join(model_dir, "eval" if not name else f"eval_{name}")))


def estimator(tmp_path, **cfg):
    cfg.setdefault("save_checkpoints_steps", 10)
    return tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config(**cfg))


# ---------------------------------------------------------------------------------- local mode
def test_evaluates_every_new_checkpoint_and_returns_the_last_result(tmp_path):
    est = estimator(tmp_path)
    exporter = RecordingExporter()
    result, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=30),
        tf.estimator.EvalSpec(input_fn(2), steps=None, throttle_secs=0, exporters=exporter))
    # The checkpoint at step 0 (before training) is skipped; 10, 20, 30 are evaluated.
    assert eval_steps(str(tmp_path)) == [10, 20, 30]
    assert int(result["global_step"]) == 30 and {"loss", "mse", "global_step"} <= set(result)
    assert exports == ["recording-30"]
    export_base = os.path.join(str(tmp_path), "export", "recording")
    assert [(p, s, final) for p, _, s, final in exporter.calls] == [
        (export_base, 10, False), (export_base, 20, False), (export_base, 30, True)]
    assert [os.path.basename(c) for _, c, _, _ in exporter.calls] == [
        "model.ckpt-10", "model.ckpt-20", "model.ckpt-30"]
    # The returned metrics are those of the last evaluation, as in the event file.
    np.testing.assert_allclose(read_eval_metrics(os.path.join(str(tmp_path), "eval"))[30]["loss"],
                               result["loss"], rtol=1e-6)


def test_throttle_secs_skips_checkpoints_counted_with_a_fake_clock(tmp_path, monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(_training, "_CLOCK", clock)
    est = estimator(tmp_path, save_checkpoints_steps=5)
    train_spec = tf.estimator.TrainSpec(input_fn(), max_steps=40, hooks=[AdvanceClockHook(clock)])
    tf.estimator.train_and_evaluate(est, train_spec,
                                    tf.estimator.EvalSpec(input_fn(1), throttle_secs=15))
    # One second per step: evaluations at 5 (first), 20 and 35 (15 s later each); 10, 15, 25,
    # 30 skipped; then the final checkpoint (40) at the end of training.
    assert eval_steps(str(tmp_path)) == [5, 20, 35, 40]
    assert clock.slept == []


def test_large_throttle_still_evaluates_the_first_and_the_final_checkpoint(tmp_path):
    est = estimator(tmp_path)
    result, _ = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=30),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=10**6))
    assert eval_steps(str(tmp_path)) == [10, 30]
    assert int(result["global_step"]) == 30


def test_named_evaluation_and_eval_steps(tmp_path):
    est = estimator(tmp_path)
    seen = []

    class CountSteps(tf.estimator.SessionRunHook):
        def begin(self):
            seen.append(0)

        def after_run(self, run_context, run_values):
            seen[-1] += 1

    result, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=20),
        tf.estimator.EvalSpec(input_fn(), steps=3, name="holdout", hooks=[CountSteps()],
                              throttle_secs=0))
    assert eval_steps(str(tmp_path), "holdout") == [10, 20]
    assert not os.path.exists(os.path.join(str(tmp_path), "eval"))
    assert seen == [3, 3]
    assert exports == []


def test_train_already_at_max_steps_only_evaluates(tmp_path):
    est = estimator(tmp_path)
    tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn(), max_steps=20),
                                    tf.estimator.EvalSpec(input_fn(1), throttle_secs=0))
    before = est.latest_checkpoint()
    again = estimator(tmp_path)
    result, exports = tf.estimator.train_and_evaluate(
        again, tf.estimator.TrainSpec(input_fn(), max_steps=20),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=0, exporters=[RecordingExporter()]))
    assert again.latest_checkpoint() == before  # no training, no new checkpoint
    assert int(result["global_step"]) == 20
    assert exports == ["recording-20"]


def test_resumed_run_evaluates_only_the_new_checkpoints(tmp_path):
    est = estimator(tmp_path)
    tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn(), max_steps=20),
                                    tf.estimator.EvalSpec(input_fn(1), throttle_secs=0))
    result, _ = tf.estimator.train_and_evaluate(
        estimator(tmp_path), tf.estimator.TrainSpec(input_fn(), max_steps=40),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=0))
    assert eval_steps(str(tmp_path)) == [10, 20, 30, 40]
    assert int(result["global_step"]) == 40


def test_saving_listeners_of_the_train_spec_run_before_the_evaluation(tmp_path):
    order = []

    class Listener(tf.estimator.CheckpointSaverListener):
        def after_save(self, session, global_step_value):
            order.append(("listener", global_step_value))

    class EvalHook(tf.estimator.SessionRunHook):
        def end(self, session):
            order.append(("eval", session.global_step))

    tf.estimator.train_and_evaluate(
        estimator(tmp_path), tf.estimator.TrainSpec(input_fn(), max_steps=20, saving_listeners=[Listener()]),
        tf.estimator.EvalSpec(input_fn(1), throttle_secs=0, hooks=[EvalHook()]))
    assert order == [("listener", 0), ("listener", 10), ("eval", 10), ("listener", 20), ("eval", 20)]


def test_without_checkpoints_a_listener_cannot_be_installed(tmp_path):
    est = estimator(tmp_path, save_checkpoints_steps=None, save_checkpoints_secs=None)
    with pytest.raises(ValueError, match="CheckpointSaverHook to use saving_listeners"):
        tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn(), max_steps=5),
                                        tf.estimator.EvalSpec(input_fn(1)))


# ---------------------------------------------------------------------------------- spec checks
def test_train_spec_defaults_and_checks():
    fn = input_fn()
    spec = tf.estimator.TrainSpec(fn)
    assert spec == (fn, None, (), ())
    assert spec.max_steps is None and spec.hooks == () and spec.saving_listeners == ()
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        tf.estimator.TrainSpec(input_fn=1)
    with pytest.raises(ValueError, match=r"Must specify max_steps > 0, given: 0"):
        tf.estimator.TrainSpec(fn, max_steps=0)
    with pytest.raises(TypeError, match="All hooks must be `SessionRunHook` instances, given: x"):
        tf.estimator.TrainSpec(fn, hooks=["x"])
    with pytest.raises(TypeError, match="All saving_listeners must be `CheckpointSaverListener`"):
        tf.estimator.TrainSpec(fn, saving_listeners=[object()])


def test_eval_spec_defaults_and_checks():
    fn = input_fn()
    spec = tf.estimator.EvalSpec(fn)
    assert (spec.steps, spec.name, spec.hooks, spec.exporters, spec.start_delay_secs,
            spec.throttle_secs) == (100, None, (), (), 120, 600)
    one = RecordingExporter()
    assert tf.estimator.EvalSpec(fn, exporters=one).exporters == (one,)
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        tf.estimator.EvalSpec(None)
    with pytest.raises(ValueError, match=r"Must specify steps > 0, given: -1"):
        tf.estimator.EvalSpec(fn, steps=-1)
    with pytest.raises(TypeError, match="`name` must be string, given: 3"):
        tf.estimator.EvalSpec(fn, name=3)
    with pytest.raises(ValueError, match=r"start_delay_secs >= 0, given: -1"):
        tf.estimator.EvalSpec(fn, start_delay_secs=-1)
    with pytest.raises(ValueError, match=r"throttle_secs >= 0, given: -5"):
        tf.estimator.EvalSpec(fn, throttle_secs=-5)
    with pytest.raises(ValueError, match=r"unique names.*\['a', 'a'\]"):
        tf.estimator.EvalSpec(fn, exporters=[RecordingExporter("a"), RecordingExporter("a")])
    with pytest.raises(ValueError, match="cannot have a name that is `None` or empty"):
        tf.estimator.EvalSpec(fn, exporters=[RecordingExporter("")])
    with pytest.raises(TypeError, match="`exporters` must be an Exporter, an iterable of Exporter"):
        tf.estimator.EvalSpec(fn, exporters=[object()])
    with pytest.raises(TypeError, match="`exporters` must be an Exporter, an iterable of Exporter"):
        tf.estimator.EvalSpec(fn, exporters=5)


def test_train_and_evaluate_argument_types(tmp_path):
    est = estimator(tmp_path)
    train_spec = tf.estimator.TrainSpec(input_fn(), max_steps=1)
    eval_spec = tf.estimator.EvalSpec(input_fn(1))
    with pytest.raises(TypeError, match="`estimator` must have type `tf.estimator.Estimator`"):
        tf.estimator.train_and_evaluate(object(), train_spec, eval_spec)
    with pytest.raises(TypeError, match="`train_spec` must have type `tf.estimator.TrainSpec`"):
        tf.estimator.train_and_evaluate(est, (input_fn(), 1), eval_spec)
    with pytest.raises(TypeError, match="`eval_spec` must have type `tf.estimator.EvalSpec`"):
        tf.estimator.train_and_evaluate(est, train_spec, None)


def test_exporter_is_abstract():
    with pytest.raises(TypeError):
        tf.estimator.Exporter()
