"""Early stopping (tf.estimator.experimental) inside train_and_evaluate, across a restart, and
InMemoryEvaluatorHook: evaluations in the training process, read back from the event files."""

from __future__ import annotations

import os

import pytest
import torch
from _estimator_testlib import config, input_fn, linear_model_fn, single_thread

import torchestimator as tf
from torchestimator.estimator.hooks import read_eval_metrics


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def frozen_model_fn(features, labels, mode):
    """A model whose weights never change (learning rate 0): its eval loss never decreases."""
    logits = tf.keras.layers.Dense(1, name="logits", kernel_initializer="ones")(features["x"])
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.0).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def eval_steps(model_dir, name=None):
    return list(read_eval_metrics(os.path.join(model_dir, "eval" if not name else f"eval_{name}")))


def test_stop_if_no_decrease_stops_train_and_evaluate(tmp_path):
    est = tf.estimator.Estimator(frozen_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=5))
    hook = tf.estimator.experimental.stop_if_no_decrease_hook(
        est, "loss", max_steps_without_decrease=10, run_every_secs=None, run_every_steps=1)
    result, _ = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=1000, hooks=[hook]),
        tf.estimator.EvalSpec(input_fn(2), throttle_secs=0))
    # Evaluations at 5, 10, 15: the loss of 15 is no lower than that of 5 and 15 - 5 >= 10.
    # The checkpoint saver (a chief hook) runs before the user's hooks, so the hook sees the
    # evaluation of step 15 in that same step and stops there; 15 was evaluated already.
    assert eval_steps(str(tmp_path)) == [5, 10, 15]
    assert int(result["global_step"]) == 15


def test_threshold_hook_stops_and_a_restarted_run_stops_at_once(tmp_path):
    def run():
        est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                     config=config(save_checkpoints_steps=5))
        hook = tf.estimator.experimental.stop_if_lower_hook(
            est, "loss", threshold=100.0, run_every_secs=None, run_every_steps=1)
        return tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(input_fn(), max_steps=1000, hooks=[hook]),
            tf.estimator.EvalSpec(input_fn(2), throttle_secs=0))

    first, _ = run()
    assert int(first["global_step"]) == 5
    assert eval_steps(str(tmp_path)) == [5]
    # The eval results are read from the event files: after a restart the hook stops after
    # one step instead of training on, and that step's checkpoint is evaluated.
    second, _ = run()
    assert int(second["global_step"]) == 6
    assert eval_steps(str(tmp_path)) == [5, 6]


def test_stop_if_higher_hook_reads_a_named_eval_dir(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=4))
    hook = tf.estimator.experimental.stop_if_higher_hook(
        est, "mse", threshold=-1.0, eval_dir=est.eval_dir("val"), min_steps=8,
        run_every_secs=None, run_every_steps=1)
    tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn(), max_steps=100, hooks=[hook]),
        tf.estimator.EvalSpec(input_fn(1), name="val", throttle_secs=0))
    # The eval at step 4 is below min_steps; the one at 8 crosses the threshold.
    assert eval_steps(str(tmp_path), "val") == [4, 8]


def test_early_stopping_names_a_missing_metric(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=2))
    hook = tf.estimator.experimental.stop_if_lower_hook(
        est, "accuracy", threshold=1.0, run_every_secs=None, run_every_steps=1)
    with pytest.raises(ValueError, match="'accuracy' is not in the eval results of step 2"):
        tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(input_fn(), max_steps=10, hooks=[hook]),
            tf.estimator.EvalSpec(input_fn(1), throttle_secs=0))


# ---------------------------------------------------------------------------------- in memory
def test_in_memory_evaluator_evaluates_before_every_n_steps_and_at_the_end(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=None, save_checkpoints_secs=None))
    hook = tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn(2), every_n_iter=4,
                                                           name="mem")
    est.train(input_fn(), steps=10, hooks=[hook])
    assert eval_steps(str(tmp_path), "mem") == [0, 4, 8, 10]
    assert int(hook.eval_result["global_step"]) == 10
    # No checkpoint was written in model_dir, and the private ones are gone.
    assert est.latest_checkpoint() is None
    assert not any(name.startswith("model.ckpt") for name in os.listdir(str(tmp_path)))


def test_in_memory_evaluation_uses_the_weights_of_the_step(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=100))
    hook = tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn(2), every_n_iter=100)
    est.train(input_fn(), steps=6, hooks=[hook])
    # The final in-memory evaluation equals an evaluation of the final checkpoint.
    again = est.evaluate(input_fn(2), name="check")
    assert float(hook.eval_result["loss"]) == pytest.approx(float(again["loss"]), rel=1e-6)
    assert eval_steps(str(tmp_path)) == [0, 6]


def test_in_memory_evaluator_with_early_stopping(tmp_path):
    est = tf.estimator.Estimator(frozen_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=None, save_checkpoints_secs=None))
    evaluator = tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn(2), every_n_iter=3)
    stopper = tf.estimator.experimental.stop_if_no_decrease_hook(
        est, "loss", max_steps_without_decrease=6, run_every_secs=None, run_every_steps=1)
    est.train(input_fn(), steps=100, hooks=[evaluator, stopper])
    # The stopper runs after the evaluator in the same step: it sees the evaluation at 6.
    assert eval_steps(str(tmp_path)) == [0, 3, 6]
    assert int(evaluator.eval_result["global_step"]) == 6


def test_in_memory_evaluator_argument_checks(tmp_path):
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path), config=config())
    with pytest.raises(ValueError, match="every_n_iter=0"):
        tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn(), every_n_iter=0)
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        tf.estimator.experimental.InMemoryEvaluatorHook(est, "data")
    with pytest.raises(TypeError, match="must be a tf.estimator.Estimator"):
        tf.estimator.experimental.InMemoryEvaluatorHook(object(), input_fn())
    with pytest.raises(TypeError, match="All hooks must be `SessionRunHook`"):
        tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn(), hooks=[1])
