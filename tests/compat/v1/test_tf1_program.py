"""A TF 1.x-style Estimator program running unchanged: `numpy_input_fn`, a custom model_fn with
`exponential_decay` + `GradientDescentOptimizer(...).minimize(loss, global_step=...)`,
`tf.compat.v1.metrics.*` in `eval_metric_ops`, then train, evaluate and predict.

The evaluate numbers are TF 2.15's (tests/compat/v1/fixtures/tf1_api.json, key "program",
recorded by tools/make_tf1_api_fixtures.py from the same program run by tensorflow-estimator
2.15): the metrics are of predictions that do not depend on the trained weights, so they are
deterministic.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import torchestimator as tf

v1 = tf.compat.v1

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf1_api.json"), encoding="utf-8") as _f:
    TF = json.load(_f)["program"]


def _data():
    rng = np.random.RandomState(3)
    x = rng.rand(50, 3).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int64)
    return x, y


def model_fn(features, labels, mode, params):
    logits = v1.layers.dense(features["x"], 2)
    fixed = features["x"][:, 0] * 2.0 - 0.5  # a fixed score: the metrics are deterministic
    prob = tf.sigmoid(fixed)
    predicted = tf.cast(prob > 0.5, tf.int64)
    predictions = {"class": tf.argmax(logits, 1), "prob": prob}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    lr = v1.train.exponential_decay(0.1, v1.train.get_global_step(), 5, 0.5, staircase=True)
    train_op = v1.train.GradientDescentOptimizer(lr).minimize(loss, global_step=v1.train.get_global_step())
    ops = {
        "accuracy": v1.metrics.accuracy(labels, predicted),
        "tp": v1.metrics.true_positives(labels, predicted),
        "fn": v1.metrics.false_negatives(labels, predicted),
        "prec_thr": v1.metrics.precision_at_thresholds(labels, prob, [0.3, 0.6]),
        "mpca": v1.metrics.mean_per_class_accuracy(labels, predicted, 2),
        "below": v1.metrics.percentage_below(prob, 0.5),
        "sens": v1.metrics.sensitivity_at_specificity(labels, prob, 0.6),
    }
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=ops)


@pytest.fixture(autouse=True)
def _restore_verbosity():
    """The program turns TF's INFO lines on; later tests expect the logger as it was."""
    import logging

    logger = logging.getLogger("torchestimator")
    level = logger.level
    yield
    logger.setLevel(level)


def test_tf1_program_train_evaluate_predict_matches_tf(tmp_path):
    v1.logging.set_verbosity(v1.logging.INFO)
    x, y = _data()
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=2, shuffle=False))
    result = est.evaluate(v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=16, shuffle=False))
    assert int(result["global_step"]) == TF["global_step"] == 13  # ceil(2 * 50 / 8): epochs run on
    for key in ("accuracy", "tp", "fn", "prec_thr", "mpca", "below", "sens"):
        np.testing.assert_allclose(np.asarray(result[key], np.float64).reshape(-1),
                                   np.asarray(TF[key], np.float64).reshape(-1), rtol=1e-5, err_msg=key)
    predictions = list(est.predict(v1.estimator.inputs.numpy_input_fn({"x": x[:5]}, shuffle=False)))
    assert len(predictions) == 5
    np.testing.assert_allclose([p["prob"] for p in predictions], 1 / (1 + np.exp(-(x[:5, 0] * 2 - 0.5))),
                               rtol=1e-6)
    assert {int(p["class"]) for p in predictions} <= {0, 1}


def test_decayed_learning_rate_is_used_at_every_step(tmp_path):
    """loss = w (gradient 1): after n steps of gradient descent w = 1 - sum of the rates used,
    which must be TF's staircase exponential decay 0.1 * 0.5 ** floor(step / 3) of each step."""
    seen = []

    def fn(features, labels, mode):
        w = v1.get_variable("w", [], initializer=v1.constant_initializer(1.0))
        loss = w + 0.0 * tf.reduce_sum(features["x"])
        step = v1.train.get_global_step()
        lr = v1.train.exponential_decay(0.1, step, 3, 0.5, staircase=True)
        if mode == tf.estimator.ModeKeys.TRAIN:
            seen.append((int(step), float(lr)))
        opt = v1.train.GradientDescentOptimizer(learning_rate=lr)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=opt.minimize(loss, global_step=step))

    x = np.zeros((8, 1), np.float32)
    est = tf.estimator.Estimator(fn, model_dir=str(tmp_path))
    est.train(v1.estimator.inputs.numpy_input_fn({"x": x}, None, batch_size=1, num_epochs=None,
                                                 shuffle=False), max_steps=8)
    rates = [0.1 * 0.5 ** (s // 3) for s in range(8)]
    train_steps = [s for s, _ in seen]
    assert train_steps[-8:] == list(range(8))
    np.testing.assert_allclose([r for _, r in seen][-8:], rates, rtol=1e-6)
    assert est.get_variable_value("w") == pytest.approx(1.0 - sum(rates), rel=1e-5)


def test_decay_outside_model_fn_is_a_callable_as_tf2_eager():
    rate = v1.train.exponential_decay(0.1, 10, 10, 0.5)
    assert callable(rate)
    assert float(rate()) == pytest.approx(0.05)
