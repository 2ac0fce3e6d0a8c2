"""`tf.estimator.Head.metrics` / `predictions` (tests/test_class_methods_parity.py): abstract in
TF 2.15's base class (NotImplementedError 'Calling an abstract method.'), defined by each head;
the heads' metric objects and prediction dicts as TF's (keys, metric classes and names, values
printed with the TF venv). One difference on purpose: a named head's metrics are named as their
keys (TF: `average_loss`, keyed `average_loss/<name>`), since objects made in a model_fn are
reused by name and two heads of a MultiHead must not share one."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf


class _UserHead(tf.estimator.Head):
    """A user's head calling the base methods, as TF's `super().predictions(...)` would."""

    def predictions(self, logits, keys=None):
        return super().predictions(logits, keys)

    def metrics(self, regularization_losses=None):
        return super().metrics(regularization_losses)


@pytest.mark.parametrize("head_class", [tf.estimator.Head, tf.compat.v1.estimator.Head])
def test_base_head_methods_are_abstract_as_tf(head_class) -> None:
    assert hasattr(head_class, "metrics") and hasattr(head_class, "predictions")
    head = _UserHead()
    with pytest.raises(NotImplementedError, match="Calling an abstract method."):
        head.predictions(tf.constant([[1.0]]))
    with pytest.raises(NotImplementedError, match="Calling an abstract method."):
        head.metrics()


def _described(metrics: dict) -> dict:
    return {key: (type(metric).__name__, metric.name) for key, metric in metrics.items()}


def _values(predictions: dict) -> dict:
    out = {}
    for key, value in predictions.items():
        array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        if array.dtype.kind in "OUS":
            array = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(array)
        out[key] = array.tolist()
    return out


LOGITS = [[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]]


def test_multi_class_head_metrics_and_predictions_as_tf() -> None:
    head = tf.estimator.MultiClassHead(3, name="mc")
    metrics = head.metrics(regularization_losses=[tf.constant(1.0)])
    # TF's keys and classes (TF names the objects without the head's name: see the docstring)
    assert _described(metrics) == {"average_loss/mc": ("Mean", "average_loss/mc"),
                                   "regularization_loss/mc": ("Mean", "regularization_loss/mc"),
                                   "accuracy/mc": ("Accuracy", "accuracy/mc")}
    assert list(metrics) == ["average_loss/mc", "regularization_loss/mc", "accuracy/mc"]
    predictions = _values(head.predictions(tf.constant(LOGITS)))
    probabilities = predictions.pop("probabilities")
    np.testing.assert_allclose(probabilities, [[0.17529039084911346, 0.039112575352191925, 0.7855970859527588],
                                               [0.6285316944122314, 0.2312239110469818, 0.14024437963962555]],
                               rtol=1e-6)
    assert predictions == {"logits": LOGITS, "class_ids": [[2], [0]], "classes": [[b"2"], [b"0"]],
                           "all_class_ids": [[0, 1, 2], [0, 1, 2]],
                           "all_classes": [[b"0", b"1", b"2"], [b"0", b"1", b"2"]]}
    assert sorted(head.predictions(tf.constant(LOGITS), keys=["probabilities", "class_ids"])) == \
        ["class_ids", "probabilities"]
    with pytest.raises(ValueError, match="Prediction key must be in PredictionKeys"):
        head.predictions(tf.constant(LOGITS), keys=["logistic"])


def test_binary_class_head_metrics_and_predictions_as_tf() -> None:
    head = tf.estimator.BinaryClassHead(thresholds=[0.3])
    described = _described(head.metrics())
    assert described.pop("accuracy_baseline")[1] == "accuracy_baseline"  # TF: a Mean named so
    assert described == {
        "average_loss": ("Mean", "average_loss"), "accuracy": ("Accuracy", "accuracy"),
        "precision": ("Precision", "precision"), "recall": ("Recall", "recall"),
        "prediction/mean": ("Mean", "prediction/mean"), "label/mean": ("Mean", "label/mean"),
        "auc": ("AUC", "auc"), "auc_precision_recall": ("AUC", "auc_precision_recall"),
        "accuracy/positive_threshold_0.3": ("BinaryAccuracy", "accuracy/positive_threshold_0.3"),
        "precision/positive_threshold_0.3": ("Precision", "precision/positive_threshold_0.3"),
        "recall/positive_threshold_0.3": ("Recall", "recall/positive_threshold_0.3")}
    named = _described(tf.estimator.BinaryClassHead(thresholds=[0.3], name="b").metrics())
    assert named["auc/b"] == ("AUC", "auc/b")  # TF: named 'auc'
    assert named["accuracy/positive_threshold_0.3/b"] == ("BinaryAccuracy", "accuracy/positive_threshold_0.3/b")
    predictions = _values(head.predictions(tf.constant([[0.5], [-1.0]])))
    np.testing.assert_allclose(predictions.pop("logistic"), [[0.622459352016449], [0.2689414322376251]], rtol=1e-6)
    np.testing.assert_allclose(predictions.pop("probabilities"),
                               [[0.377540647983551, 0.622459352016449], [0.7310585379600525, 0.2689414322376251]],
                               rtol=1e-6)
    assert predictions == {"logits": [[0.5], [-1.0]], "class_ids": [[1], [0]], "classes": [[b"1"], [b"0"]],
                           "all_class_ids": [[0, 1], [0, 1]], "all_classes": [[b"0", b"1"], [b"0", b"1"]]}


def test_regression_and_multi_label_heads_metrics_and_predictions_as_tf() -> None:
    regression = tf.estimator.RegressionHead(label_dimension=2, name="r")
    assert {key: kind for key, (kind, _) in _described(regression.metrics(regularization_losses=[1.0])).items()} \
        == {"average_loss/r": "Mean", "prediction/mean/r": "Mean", "label/mean/r": "Mean",
            "regularization_loss/r": "Mean"}
    assert _values(regression.predictions(tf.constant([[0.5, 1.0], [-1.0, 2.0]]))) == \
        {"predictions": [[0.5, 1.0], [-1.0, 2.0]]}
    multi_label = tf.estimator.MultiLabelHead(3, classes_for_class_based_metrics=[1])
    assert _described(multi_label.metrics()) == {
        "average_loss": ("Mean", "average_loss"), "auc": ("AUC", "auc"),
        "auc_precision_recall": ("AUC", "auc_precision_recall"),
        "probability_mean/class1": ("Mean", "probability_mean/class1"), "auc/class1": ("AUC", "auc/class1"),
        "auc_precision_recall/class1": ("AUC", "auc_precision_recall/class1")}
    predictions = _values(multi_label.predictions(tf.constant(LOGITS)))
    np.testing.assert_allclose(predictions.pop("probabilities"),
                               [[0.622459352016449, 0.2689414322376251, 0.8807970881462097],
                                [0.7310585975646973, 0.5, 0.3775406777858734]], rtol=1e-6)
    assert predictions == {"logits": LOGITS, "classes": [[b"0", b"1", b"2"], [b"0", b"1", b"2"]]}


def test_named_heads_of_a_multi_head_keep_their_own_metrics() -> None:
    """Why the named heads' metric objects carry the name: a model_fn reuses objects by name."""
    heads = [tf.estimator.MultiClassHead(3, name="cls"), tf.estimator.RegressionHead(name="reg")]
    metrics = {**heads[0].metrics(), **heads[1].metrics()}
    names = [metric.name for metric in metrics.values()]
    assert len(names) == len(set(names))
