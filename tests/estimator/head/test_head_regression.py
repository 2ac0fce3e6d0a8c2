"""RegressionHead, PoissonRegressionHead and LogisticRegressionHead against hand-computed values."""

import math

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.estimator.export import RegressionOutput
from torchestimator.estimator.head import (
    LogisticRegressionHead,
    PoissonRegressionHead,
    RegressionHead,
)


def test_regression_head_multi_dimension_per_logit_weights():
    head = RegressionHead(label_dimension=2, weight_column="w")
    logits = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    labels = np.array([[1.5, 2.0], [2.0, 6.0]], dtype=np.float32)
    w = np.array([[1.0, 2.0], [0.5, 1.0]], dtype=np.float32)
    sq = (logits.numpy() - labels) ** 2
    assert float(head.loss(labels, logits, {"w": w})) == pytest.approx((sq * w).sum() / 4)
    metrics = head.update_metrics(head.metrics(), {"w": w}, logits, labels)
    got = {k: float(v.result()) for k, v in metrics.items()}
    assert got == pytest.approx({
        "average_loss": (sq * w).sum() / w.sum(),
        "label/mean": (labels * w).sum() / w.sum(),
        "prediction/mean": (logits.numpy() * w).sum() / w.sum(),
    })
    preds = head.predictions(logits)
    assert list(preds) == ["predictions"]
    spec = head.create_estimator_spec({"w": w}, tf.estimator.ModeKeys.PREDICT, logits)
    assert sorted(spec.export_outputs) == ["predict", "regression", "serving_default"]
    assert isinstance(spec.export_outputs["regression"], RegressionOutput)


def test_regression_head_example_weights_and_errors():
    head = RegressionHead(weight_column="w")
    logits = torch.tensor([[1.0], [2.0], [3.0]])
    labels = np.array([0.0, 2.0, 5.0], dtype=np.float32)
    w = np.array([2.0, 1.0, 1.0], dtype=np.float32)
    assert float(head.loss(labels, logits, {"w": w})) == pytest.approx((2 * 1 + 0 + 4) / 3)
    with pytest.raises(ValueError, match="Invalid label_dimension"):
        RegressionHead(label_dimension=0)
    with pytest.raises(ValueError, match="Mismatched label shape"):
        RegressionHead().loss(np.zeros((3, 2)), logits)
    with pytest.raises(ValueError, match="Labels are strings"):
        RegressionHead().loss(np.array(["a", "b", "c"]), logits)
    with pytest.raises(ValueError, match="loss_fn must contain argument: logits"):
        RegressionHead(loss_fn=lambda labels, preds: labels)


def test_custom_loss_fn_and_inverse_link():
    head = RegressionHead(loss_fn=lambda labels, logits: torch.abs(labels - logits),
                          inverse_link_fn=lambda x: 2 * x)
    logits = torch.tensor([[1.0], [-2.0]])
    assert float(head.loss(np.array([0.0, 0.0]), logits)) == pytest.approx(1.5)
    preds = head.predictions(logits)
    assert sorted(preds) == ["logits", "predictions"]
    np.testing.assert_allclose(preds["predictions"].numpy(), [[2.0], [-4.0]])


def test_poisson_head_full_loss():
    head = PoissonRegressionHead()
    logits = np.array([[0.0], [-1.0], [math.log(3.0)]], dtype=np.float32)
    labels = np.array([[1.0], [0.0], [4.0]], dtype=np.float32)
    base = np.exp(logits) - logits * labels
    stirling = np.where(labels > 1, labels * np.log(np.maximum(labels, 1)) - labels
                        + 0.5 * np.log(2 * math.pi * np.maximum(labels, 1)), 0.0)
    assert float(head.loss(labels, torch.from_numpy(logits))) == pytest.approx((base + stirling).mean(), rel=1e-5)
    partial = PoissonRegressionHead(compute_full_loss=False)
    assert float(partial.loss(labels, torch.from_numpy(logits))) == pytest.approx(base.mean(), rel=1e-5)
    preds = head.predictions(torch.from_numpy(logits))
    np.testing.assert_allclose(preds["predictions"].numpy(), np.exp(logits), rtol=1e-6)
    with pytest.raises(ValueError, match="must be >= 0"):
        head.loss(np.array([[-1.0], [0.0], [1.0]]), torch.from_numpy(logits))


def test_logistic_regression_head():
    head = LogisticRegressionHead()
    logits = np.array([[0.0], [2.0]], dtype=np.float32)
    labels = np.array([[0.5], [1.0]], dtype=np.float32)
    per = np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))
    assert float(head.loss(labels, torch.from_numpy(logits))) == pytest.approx(per.mean(), rel=1e-6)
    np.testing.assert_allclose(head.predictions(torch.from_numpy(logits))["predictions"].numpy(),
                               1 / (1 + np.exp(-logits)), rtol=1e-6)
    with pytest.raises(ValueError, match=r"Labels must be in range \[0, 1\]"):
        head.loss(np.array([[2.0], [0.0]]), torch.from_numpy(logits))
    metrics = head.update_metrics(head.metrics(), {}, torch.from_numpy(logits), labels)
    assert sorted(metrics) == ["average_loss", "label/mean", "prediction/mean"]
