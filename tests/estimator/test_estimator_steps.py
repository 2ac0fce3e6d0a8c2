"""`steps` vs `max_steps`, when checkpoints are written and kept, resuming in a new Estimator,
and evaluate/predict without a checkpoint (TF 2.15's behaviour, reference sections 1.4-1.7)."""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest
import torch
from _estimator_testlib import X, Y, checkpoint_steps, config, input_fn, linear_model_fn, weights

import torchestimator as tf


def make(model_dir, **kwargs):
    return tf.estimator.Estimator(linear_model_fn, model_dir=str(model_dir), config=config(**kwargs))


def global_step(est):
    return int(est.get_variable_value("global_step"))


def test_steps_are_incremental(tmp_path):
    est = make(tmp_path)
    est.train(input_fn(), steps=10)
    assert global_step(est) == 10
    est.train(input_fn(), steps=10)
    assert global_step(est) == 20


def test_max_steps_is_absolute_and_skips_once_reached(tmp_path, caplog):
    est = make(tmp_path)
    est.train(input_fn(), steps=10)
    est.train(input_fn(), steps=10)
    caplog.set_level(logging.INFO, logger="torchestimator")
    calls = []

    def counting_input_fn():
        calls.append(1)
        return input_fn()()

    est.train(counting_input_fn, max_steps=15)
    assert "Skipping training since max_steps has already saved." in caplog.text
    assert calls == []  # nothing was built
    assert global_step(est) == 20
    est.train(input_fn(), max_steps=25)
    assert global_step(est) == 25
    est.train(input_fn(), max_steps=25)
    assert global_step(est) == 25


def test_input_ending_early_stops_without_error(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="torchestimator")
    est = make(tmp_path)
    est.train(input_fn(n_batches=3), steps=100)
    assert global_step(est) == 3
    est.train(input_fn(n_batches=2), max_steps=100)
    assert global_step(est) == 5
    est.train(input_fn(n_batches=4))  # neither: until the input ends
    assert global_step(est) == 9
    assert "Loss for final step: " in caplog.text


def test_empty_input_warns_made_no_steps(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="torchestimator")
    est = make(tmp_path)
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": np.zeros((0, 3), np.float32)},
                                                          np.zeros((0, 1), np.float32))).batch(4))
    assert "Training with estimator made no steps. Perhaps input is empty or misspecified." in caplog.text
    assert "Loss for final step: None." in caplog.text
    assert est.latest_checkpoint() is None


def test_steps_arguments_are_validated(tmp_path):
    est = make(tmp_path)
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        est.train(input_fn(), steps=1, max_steps=2)
    with pytest.raises(ValueError, match="Must specify steps > 0, given: 0"):
        est.train(input_fn(), steps=0)
    with pytest.raises(ValueError, match="Must specify max_steps > 0, given: -1"):
        est.train(input_fn(), max_steps=-1)
    with pytest.raises(ValueError, match="Must specify steps > 0"):
        est.evaluate(input_fn(2), steps=0)


def test_checkpoints_at_start_every_n_steps_and_end(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="torchestimator")
    est = make(tmp_path, save_checkpoints_steps=3, keep_checkpoint_max=None)
    est.train(input_fn(), steps=10)
    assert checkpoint_steps(tmp_path) == [0, 3, 6, 9, 10]
    saved = [int(line.split()[3]) for line in caplog.messages if line.startswith("Saving checkpoints for")]
    assert saved == [0, 3, 6, 9, 10]
    assert f"Saving checkpoints for 10 into {os.path.join(str(tmp_path), 'model.ckpt')}." in caplog.messages


def test_resume_saves_again_at_the_restored_step(tmp_path, caplog):
    est = make(tmp_path, save_checkpoints_steps=3, keep_checkpoint_max=None)
    est.train(input_fn(), steps=4)
    assert checkpoint_steps(tmp_path) == [0, 3, 4]
    caplog.set_level(logging.INFO, logger="torchestimator")
    caplog.clear()  # the second train's lines only (another test may have left INFO on)
    est.train(input_fn(), steps=4)
    saved = [int(line.split()[3]) for line in caplog.messages if line.startswith("Saving checkpoints for")]
    assert saved == [4, 7, 8]
    assert f"Restoring parameters from {os.path.join(str(tmp_path), 'model.ckpt-4')}" in caplog.messages


def test_keep_checkpoint_max(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=1, keep_checkpoint_max=2)
    est.train(input_fn(), steps=5)
    assert checkpoint_steps(tmp_path) == [4, 5]
    with open(os.path.join(str(tmp_path), "checkpoint")) as f:
        index = f.read()
    assert 'model_checkpoint_path: "model.ckpt-5"' in index
    assert index.count("all_model_checkpoint_paths") == 2


def test_default_checkpointing_saves_at_start_and_end(tmp_path):
    est = make(tmp_path)  # save_checkpoints_secs=600
    est.train(input_fn(), steps=7)
    assert checkpoint_steps(tmp_path) == [0, 7]


def test_checkpointing_disabled(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=None, save_checkpoints_secs=None)
    est.train(input_fn(), steps=3)
    assert checkpoint_steps(tmp_path) == []
    with pytest.raises(ValueError, match="There should be a CheckpointSaverHook to use saving_listeners"):
        est.train(input_fn(), steps=1, saving_listeners=[tf.estimator.CheckpointSaverListener()])


def test_resume_in_a_new_estimator_continues_exactly(tmp_path):
    """Two train(steps=5) calls in two Estimators equal one Estimator's two calls."""
    one = make(tmp_path / "one")
    one.train(input_fn(), steps=5)
    one.train(input_fn(), steps=5)
    make(tmp_path / "two").train(input_fn(), steps=5)
    resumed = make(tmp_path / "two")
    resumed.train(input_fn(), steps=5)
    assert global_step(resumed) == 10
    a, b = weights(str(tmp_path / "one")), weights(str(tmp_path / "two"))
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_seeded_runs_are_reproducible(tmp_path):
    for name in ("a", "b"):
        make(tmp_path / name).train(input_fn(), steps=6)
    a, b = weights(str(tmp_path / "a")), weights(str(tmp_path / "b"))
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])


def test_evaluate_without_checkpoint_warns_and_uses_global_step_0(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="torchestimator")
    est = make(tmp_path)
    result = est.evaluate(input_fn(2))
    assert result["global_step"] == 0
    assert set(result) == {"mse", "loss", "global_step"}
    assert (f"Could not find trained model in model_dir: {tmp_path}, running initialization to evaluate."
            in caplog.text)
    assert est.latest_checkpoint() is None  # evaluate does not write checkpoints


def test_evaluate_loss_is_the_mean_of_batch_losses(tmp_path):
    est = make(tmp_path)
    est.train(input_fn(), steps=3)
    per_batch = [est.evaluate(input_fn(1, batch_size=8, x=X[i * 8:(i + 1) * 8], y=Y[i * 8:(i + 1) * 8]))["loss"]
                 for i in range(8)]
    eight = est.evaluate(input_fn(8, batch_size=8))
    whole = est.evaluate(input_fn(1, batch_size=64))
    assert eight["loss"] == pytest.approx(np.mean(per_batch), rel=1e-5)
    assert whole["loss"] == pytest.approx(eight["loss"], rel=1e-4)  # equal-sized batches


def test_evaluate_specific_checkpoint_and_name(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=2, keep_checkpoint_max=None)
    est.train(input_fn(), steps=4)
    at2 = est.evaluate(input_fn(2), checkpoint_path=os.path.join(str(tmp_path), "model.ckpt-2"),
                       name="old")
    assert at2["global_step"] == 2
    assert os.path.isdir(os.path.join(str(tmp_path), "eval_old"))
    latest = est.evaluate(input_fn(2))
    assert latest["global_step"] == 4
    with pytest.raises(FileNotFoundError, match="model.ckpt-99"):
        est.evaluate(input_fn(2), checkpoint_path=os.path.join(str(tmp_path), "model.ckpt-99"))


def test_predict_without_checkpoint_and_with_checkpoint_path(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=1, keep_checkpoint_max=None)

    def features_fn():
        return tf.data.Dataset.from_tensor_slices({"x": np.ones((4, 3), np.float32)}).batch(2)

    fresh = [p["logits"] for p in est.predict(features_fn)]
    assert len(fresh) == 4
    est.train(input_fn(), steps=3)
    at1 = [p["logits"] for p in est.predict(features_fn, checkpoint_path=os.path.join(str(tmp_path),
                                                                                      "model.ckpt-1"))]
    at3 = [p["logits"] for p in est.predict(features_fn)]
    assert not np.allclose(at1, at3)
    w = weights(str(tmp_path))
    expected = np.ones((1, 3), np.float32) @ w["logits/kernel"] + w["logits/bias"]
    np.testing.assert_allclose(at3[0], expected[0], rtol=1e-5)


def test_get_global_step_and_train_returns_self(tmp_path):
    steps_seen = []

    def model_fn(features, labels, mode):
        steps_seen.append(int(tf.compat.v1.train.get_global_step()))
        return linear_model_fn(features, labels, mode)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config())
    assert est.train(input_fn(), steps=3) is est
    # the build call on the first batch, then steps 0, 1, 2
    assert steps_seen == [0, 0, 1, 2]


def test_evaluation_during_training_leaves_the_run_reproducible(tmp_path):
    """An evaluate() from a saving listener (as train_and_evaluate does) must not disturb the
    random state of training: the weights equal those of a run without it."""

    def dropout_model_fn(features, labels, mode):
        net = tf.keras.layers.Dense(8, activation="relu")(features["x"])
        net = tf.keras.layers.Dropout(0.5)(net, training=mode == tf.estimator.ModeKeys.TRAIN)
        logits = tf.keras.layers.Dense(1)(net)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    class EvaluateOnSave(tf.estimator.CheckpointSaverListener):
        def __init__(self, est):
            self.est, self.results = est, []

        def after_save(self, session, global_step_value):
            self.results.append(self.est.evaluate(input_fn(2), name="listener"))

    plain = tf.estimator.Estimator(dropout_model_fn, model_dir=str(tmp_path / "plain"),
                                   config=config(save_checkpoints_steps=3))
    plain.train(input_fn(), steps=10)
    evaluated = tf.estimator.Estimator(dropout_model_fn, model_dir=str(tmp_path / "evaluated"),
                                       config=config(save_checkpoints_steps=3))
    listener = EvaluateOnSave(evaluated)
    evaluated.train(input_fn(), steps=10, saving_listeners=[listener])
    assert [int(r["global_step"]) for r in listener.results] == [0, 3, 6, 9, 10]
    a, b = weights(str(tmp_path / "plain")), weights(str(tmp_path / "evaluated"))
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
