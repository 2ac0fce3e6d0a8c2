"""InMemoryEvaluatorHook leaves the model in training mode: after each in-memory evaluation
(which runs the layers in inference mode) training goes on with dropout and batch statistics."""

from __future__ import annotations

from _estimator_testlib import config, input_fn

import torchestimator as tf


def dropout_model_fn(features, labels, mode):
    """A Dense layer after a Dropout layer."""
    hidden = tf.keras.layers.Dropout(0.5, name="dropout")(features["x"])
    logits = tf.keras.layers.Dense(1, name="logits")(hidden)
    loss = tf.reduce_mean(tf.square(logits - labels))
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    optimizer = tf.keras.optimizers.SGD(0.01)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss))


def test_training_steps_after_an_in_memory_evaluation_run_in_training_mode(tmp_path):
    est = tf.estimator.Estimator(dropout_model_fn, model_dir=str(tmp_path), config=config())
    modes: list[bool] = []

    class RecordMode(tf.estimator.SessionRunHook):
        def before_run(self, run_context):
            modes.append(all(layer.training for layer in est._state.layers()))

    evaluator = tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn(2), every_n_iter=1)
    est.train(input_fn(4), hooks=[evaluator, RecordMode()])
    assert modes == [True] * 4
    assert int(evaluator.eval_result["global_step"]) == 4
