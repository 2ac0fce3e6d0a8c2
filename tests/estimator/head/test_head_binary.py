"""BinaryClassHead: loss, predictions, metrics and specs against hand-computed values."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.estimator.export import (
    ClassificationOutput,
    PredictOutput,
    RegressionOutput,
)
from torchestimator.estimator.head import BinaryClassHead

LOGITS = np.array([[-1.0], [1.0], [2.0], [-3.0]], dtype=np.float32)
LABELS = np.array([[0], [0], [1], [1]], dtype=np.int64)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _ce(labels, logits):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def test_tf_docstring_example():
    head = BinaryClassHead()
    logits = torch.tensor([[45.0], [-41.0]])
    labels = np.array([[1], [1]], dtype=np.int32)
    assert float(head.loss(labels, logits, features={"x": np.array([[42.0]])})) == pytest.approx(20.5)
    metrics = head.update_metrics(head.metrics(), {}, logits, labels)
    got = {k: float(v.result()) for k, v in metrics.items()}
    assert got == pytest.approx({
        "accuracy": 0.5, "accuracy_baseline": 1.0, "auc": 0.0, "auc_precision_recall": 1.0,
        "average_loss": 20.5, "label/mean": 1.0, "precision": 1.0, "prediction/mean": 0.5,
        "recall": 0.5,
    })


def test_predictions_keys_and_values():
    head = BinaryClassHead()
    preds = head.predictions(torch.from_numpy(LOGITS))
    assert sorted(preds) == sorted(["logits", "logistic", "probabilities", "class_ids", "classes",
                                    "all_class_ids", "all_classes"])
    logistic = _sigmoid(LOGITS)
    np.testing.assert_allclose(preds["logistic"].numpy(), logistic, rtol=1e-6)
    np.testing.assert_allclose(preds["probabilities"].numpy(), np.hstack([1 - logistic, logistic]), rtol=1e-6)
    assert preds["class_ids"].dtype == torch.int64
    np.testing.assert_array_equal(preds["class_ids"].numpy(), [[0], [1], [1], [0]])
    np.testing.assert_array_equal(preds["classes"], np.array([[b"0"], [b"1"], [b"1"], [b"0"]], dtype=object))
    assert preds["all_class_ids"].dtype == torch.int32
    np.testing.assert_array_equal(preds["all_class_ids"].numpy(), [[0, 1]] * 4)
    np.testing.assert_array_equal(preds["all_classes"], np.array([[b"0", b"1"]] * 4, dtype=object))
    only = head.predictions(torch.from_numpy(LOGITS), keys=["logistic"])
    assert list(only) == ["logistic"]
    with pytest.raises(ValueError, match="Prediction key must be in PredictionKeys"):
        head.predictions(torch.from_numpy(LOGITS), keys=["predictions"])


def test_weighted_loss_and_metrics_by_hand():
    weights = np.array([1.0, 2.0, 0.5, 3.0], dtype=np.float32)
    head = BinaryClassHead(weight_column="w", thresholds=[0.3])
    features = {"w": weights}
    logits = torch.from_numpy(LOGITS)
    unweighted = _ce(LABELS, LOGITS).reshape(-1)
    assert float(head.loss(LABELS, logits, features)) == pytest.approx((unweighted * weights).sum() / 4, rel=1e-6)
    metrics = head.update_metrics(head.metrics(), features, logits, LABELS)
    got = {k: float(v.result()) for k, v in metrics.items()}
    y = LABELS.reshape(-1).astype(np.float64)
    p = _sigmoid(LOGITS.reshape(-1))
    cls = (LOGITS.reshape(-1) > 0).astype(np.float64)
    wsum = weights.sum()
    label_mean = (y * weights).sum() / wsum
    tp = (weights * (cls == 1) * (y == 1)).sum()
    expected = {
        "average_loss": (unweighted * weights).sum() / wsum,
        "accuracy": (weights * (cls == y)).sum() / wsum,
        "precision": tp / (weights * (cls == 1)).sum(),
        "recall": tp / (weights * (y == 1)).sum(),
        "prediction/mean": (p * weights).sum() / wsum,
        "label/mean": label_mean,
        "accuracy_baseline": max(label_mean, 1 - label_mean),
        "accuracy/positive_threshold_0.3": (weights * ((p > 0.3) == y)).sum() / wsum,
        "precision/positive_threshold_0.3": (weights * (p > 0.3) * y).sum() / (weights * (p > 0.3)).sum(),
        "recall/positive_threshold_0.3": (weights * (p > 0.3) * y).sum() / (weights * y).sum(),
    }
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-5), key
    # weighted AUC: positives (2.0 w=0.5 logit 2, w=3 logit -3), negatives (logits -1, 1)
    assert 0.0 <= got["auc"] <= 1.0 and "auc_precision_recall" in got


def test_label_vocabulary_and_errors():
    head = BinaryClassHead(label_vocabulary=["no", "yes"])
    labels = np.array(["yes", "no", "yes", "no"])
    loss = head.loss(labels, torch.from_numpy(LOGITS))
    expected = _ce(np.array([[1], [0], [1], [0]]), LOGITS).mean()
    assert float(loss) == pytest.approx(expected, rel=1e-6)
    preds = head.predictions(torch.from_numpy(LOGITS))
    np.testing.assert_array_equal(preds["classes"].reshape(-1), [b"no", b"yes", b"yes", b"no"])
    np.testing.assert_array_equal(preds["all_classes"][0], [b"no", b"yes"])
    with pytest.raises(ValueError, match="'maybe' is not in label_vocabulary"):
        head.loss(np.array(["yes", "maybe", "no", "no"]), torch.from_numpy(LOGITS))
    with pytest.raises(ValueError, match="labels must be strings"):
        head.loss(LABELS, torch.from_numpy(LOGITS))
    with pytest.raises(ValueError, match="no label_vocabulary was given"):
        BinaryClassHead().loss(labels, torch.from_numpy(LOGITS))
    with pytest.raises(ValueError, match="Labels must be <= 2 - 1"):
        BinaryClassHead().loss(np.array([[0], [2], [1], [0]]), torch.from_numpy(LOGITS))
    with pytest.raises(ValueError, match="Labels must be >= 0"):
        BinaryClassHead().loss(np.array([[0], [-1], [1], [0]]), torch.from_numpy(LOGITS))
    with pytest.raises(ValueError, match="logits shape must be"):
        BinaryClassHead().loss(LABELS, torch.zeros(4, 2))
    with pytest.raises(ValueError, match="thresholds not in"):
        BinaryClassHead(thresholds=[1.5])
    with pytest.raises(ValueError, match="Invalid loss_reduction"):
        BinaryClassHead(loss_reduction="none")
    with pytest.raises(ValueError, match="label_vocabulary should be a list or a tuple"):
        BinaryClassHead(label_vocabulary="ab")


def test_loss_reductions_and_float_labels():
    logits = torch.from_numpy(LOGITS)
    labels = np.array([0.0, 0.25, 1.0, 0.5], dtype=np.float32)
    per = _ce(labels.reshape(-1, 1), LOGITS).reshape(-1)
    assert float(BinaryClassHead(loss_reduction="sum").loss(labels, logits)) == pytest.approx(per.sum(), rel=1e-6)
    v1_sum = tf.compat.v1.losses.Reduction.SUM
    assert float(BinaryClassHead(loss_reduction=v1_sum).loss(labels, logits)) == pytest.approx(per.sum(), rel=1e-6)
    assert float(BinaryClassHead().loss(labels, logits)) == pytest.approx(per.mean(), rel=1e-6)
    reg = [torch.tensor(0.5), torch.tensor(0.25)]
    assert float(BinaryClassHead().loss(labels, logits, regularization_losses=reg)) == \
        pytest.approx(per.mean() + 0.75, rel=1e-6)


def test_create_estimator_spec_modes():
    head = BinaryClassHead()
    logits = torch.from_numpy(LOGITS)
    spec = head.create_estimator_spec({}, tf.estimator.ModeKeys.PREDICT, logits)
    assert sorted(spec.export_outputs) == ["classification", "predict", "regression", "serving_default"]
    assert isinstance(spec.export_outputs["serving_default"], ClassificationOutput)
    assert isinstance(spec.export_outputs["regression"], RegressionOutput)
    assert isinstance(spec.export_outputs["predict"], PredictOutput)
    np.testing.assert_array_equal(spec.export_outputs["classification"].classes[0], [b"0", b"1"])
    spec = head.create_estimator_spec({}, tf.estimator.ModeKeys.EVAL, logits, LABELS,
                                      regularization_losses=[torch.tensor(1.0)])
    assert "regularization_loss" in spec.eval_metric_ops
    assert float(spec.eval_metric_ops["regularization_loss"].result()) == pytest.approx(1.0)
    assert float(spec.loss) == pytest.approx(_ce(LABELS, LOGITS).mean() + 1.0, rel=1e-6)
    with pytest.raises(ValueError, match="train_op_fn and optimizer cannot both be None"):
        head.create_estimator_spec({}, tf.estimator.ModeKeys.TRAIN, logits, LABELS)
    with pytest.raises(ValueError, match="not a tf.keras.optimizers.Optimizer"):
        head.create_estimator_spec({}, tf.estimator.ModeKeys.TRAIN, logits, LABELS, optimizer=object())
    spec = head.create_estimator_spec({}, tf.estimator.ModeKeys.TRAIN, logits, LABELS,
                                      train_op_fn=lambda loss: "op")
    assert spec.train_op == "op"
    assert "classes" not in spec.predictions and "logistic" in spec.predictions
    named = BinaryClassHead(name="h")
    assert sorted(named.metrics()) == sorted(k + "/h" for k in head.metrics())
