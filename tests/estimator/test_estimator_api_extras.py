"""tf.estimator.add_metrics (and tf.compat.v1.estimator's), experimental.call_logit_fn,
experimental.build_raw_supervised_input_receiver_fn, and the refused compat.v1.estimator.tpu."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.compat.v1._refusals import GraphMachineryError


def _input_fn():
    x = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    return tf.data.Dataset.from_tensors(({"x": x}, 2.0 * x + 1.0))


def test_add_metrics_adds_eval_metrics_and_shares_the_model(tmp_path):
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x")], model_dir=str(tmp_path),
                                       optimizer="SGD")
    est.train(lambda: _input_fn().repeat(), steps=20)

    def metric_fn(labels, predictions, features):
        metric = tf.keras.metrics.MeanAbsoluteError()
        metric.update_state(labels, predictions["predictions"])
        count = tf.keras.metrics.Sum()
        count.update_state(tf.reduce_sum(tf.ones_like(features["x"])))
        return {"mae": metric, "rows": count}

    with_metrics = tf.estimator.add_metrics(est, metric_fn)
    assert tf.compat.v1.estimator.add_metrics is tf.estimator.add_metrics
    results = with_metrics.evaluate(_input_fn, steps=1)
    base = est.evaluate(_input_fn, steps=1)
    assert results["loss"] == pytest.approx(base["loss"]) and results["rows"] == 4.0
    predictions = np.array([p["predictions"][0] for p in est.predict(lambda: _input_fn().map(lambda f, y: f))])
    assert results["mae"] == pytest.approx(np.mean(np.abs(predictions - np.array([3, 5, 7, 9]))), rel=1e-5)
    assert with_metrics.model_dir == est.model_dir
    with pytest.raises(ValueError, match="has following not expected args"):
        tf.estimator.add_metrics(est, lambda logits: {})


def test_call_logit_fn_passes_what_the_function_takes():
    features = {"x": tf.constant([[1.0]])}

    def logit_fn(features, mode, params):
        return features["x"] * params["scale"] + (1.0 if mode == "train" else 0.0)

    out = tf.estimator.experimental.call_logit_fn(logit_fn, features, "train", {"scale": 3.0}, None)
    assert out.tolist() == [[4.0]]
    assert tf.estimator.experimental.call_logit_fn(lambda features: {"a": features["x"]}, features, "eval", None,
                                                   None)["a"].tolist() == [[1.0]]
    with pytest.raises(ValueError, match="logit_fn should return a Tensor or a dictionary"):
        tf.estimator.experimental.call_logit_fn(lambda features: [1.0], features, "eval", None, None)


def test_build_raw_supervised_input_receiver_fn():
    fn = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
        {"x": torch.zeros(2, 3), "ids": np.array([["a"], ["b"]])}, torch.zeros(2, 1, dtype=torch.int64),
        default_batch_size=5)
    receiver = fn()
    assert receiver.features["x"].shape == (5, 3) and receiver.features["x"].dtype == torch.float32
    assert receiver.features["ids"].dtype == tf.string
    assert receiver.labels.shape == (5, 1) and receiver.labels.dtype == torch.int64
    assert sorted(receiver.receiver_tensors) == ["ids", "label", "x"]
    with pytest.raises(ValueError, match="Features and labels must have distinct keys"):
        tf.estimator.experimental.build_raw_supervised_input_receiver_fn({"a": torch.zeros(1)}, {"a": torch.zeros(1)})


def test_tpu_estimator_is_refused():
    with pytest.raises(GraphMachineryError, match=r"tf\.compat\.v1\.estimator\.tpu\.TPUEstimator .*MirroredStrategy"):
        tf.compat.v1.estimator.tpu.TPUEstimator(model_fn=None)
