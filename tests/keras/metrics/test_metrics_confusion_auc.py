"""Confusion metrics and AUC against a brute-force numpy version of Keras' formulas and sklearn."""

import numpy as np
import pytest
import torch
from sklearn.metrics import roc_auc_score

import torchestimator as tf
import torchestimator.keras.metrics as metrics

RNG = np.random.default_rng(1234)


def _counts(y_true, y_pred, thresholds, weights=None):
    """TP, FP, TN, FN per threshold (rows), per label (columns): `pred > threshold`."""
    y_true = (np.asarray(y_true) != 0)[None]
    pos = np.asarray(y_pred, dtype=np.float64)[None] > np.asarray(thresholds)[:, None, None]
    w = np.ones(y_true.shape[1:]) if weights is None else np.broadcast_to(weights, y_true.shape[1:])
    w = w[None]
    return tuple(((a & b) * w).sum(axis=1) for a, b in
                 [(y_true, pos), (~y_true, pos), (~y_true, ~pos), (y_true, ~pos)])


def _div(a, b):
    return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def _reference_auc(tp, fp, tn, fn, curve="ROC", summation="interpolation"):
    n = tp.shape[0]
    if curve == "PR" and summation == "interpolation":
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        slope = _div(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        ratio = np.where((p[: n - 1] > 0) & (p[1:] > 0), _div(p[: n - 1], np.maximum(p[1:], 0)),
                         1.0)
        return _div(slope * (dtp + intercept * np.log(ratio)), np.maximum(tp[1:] + fn[1:], 0)
                    ).sum(axis=0)
    recall = _div(tp, tp + fn)
    x, y = (_div(fp, fp + tn), recall) if curve == "ROC" else (recall, _div(tp, tp + fp))
    heights = {"interpolation": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
               "majoring": np.maximum(y[:-1], y[1:])}[summation]
    return ((x[:-1] - x[1:]) * heights).sum(axis=0)


def _auc_thresholds(num_thresholds):
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return np.array([-1e-7] + inner + [1 + 1e-7], dtype=np.float32)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("summation", ["interpolation", "minoring", "majoring"])
def test_auc_matches_the_reference_formulas(curve, summation):
    y_true = RNG.integers(0, 2, size=(300, 1))
    y_pred = RNG.random(size=(300, 1)).astype(np.float32)
    weights = RNG.random(size=(300,)).astype(np.float32)
    auc = metrics.AUC(num_thresholds=50, curve=curve, summation_method=summation)
    auc.update_state(y_true[:150], y_pred[:150], sample_weight=weights[:150])
    auc.update_state(y_true[150:], y_pred[150:], sample_weight=weights[150:])
    counts = _counts(y_true, y_pred, _auc_thresholds(50), weights[:, None])
    np.testing.assert_allclose(auc.true_positives.numpy(), counts[0][:, 0], rtol=1e-4)
    expected = _reference_auc(*counts, curve=curve, summation=summation)[0]
    assert auc.result().item() == pytest.approx(expected, rel=1e-4)


def test_explicit_uneven_thresholds_use_the_general_path():
    y_true = RNG.integers(0, 2, size=200)
    y_pred = RNG.random(size=200).astype(np.float32)
    thresholds = [0.05, 0.2, 0.33, 0.5, 0.81, 0.9]
    auc = metrics.AUC(thresholds=thresholds)
    assert not auc._thresholds_distributed_evenly and auc.num_thresholds == 8
    auc.update_state(y_true, y_pred)
    full = np.array([-1e-7] + thresholds + [1 + 1e-7], dtype=np.float32)
    expected = _reference_auc(*_counts(y_true[:, None], y_pred[:, None], full))[0]
    assert auc.result().item() == pytest.approx(expected, rel=1e-5)
    assert auc.get_config()["thresholds"] == pytest.approx(thresholds)
    even = metrics.AUC(thresholds=[0.25, 0.5, 0.75])
    assert even._thresholds_distributed_evenly
    even.update_state(y_true, y_pred)
    five = metrics.AUC(num_thresholds=5)
    five.update_state(y_true, y_pred)
    assert even.result().item() == pytest.approx(five.result().item(), rel=1e-6)


def test_roc_auc_approximates_sklearn():
    y_true = RNG.integers(0, 2, size=4000)
    y_pred = np.clip(y_true * 0.3 + RNG.random(size=4000) * 0.7, 0, 1).astype(np.float32)
    auc = metrics.AUC(num_thresholds=1000)
    auc.update_state(y_true, y_pred)
    assert auc.result().item() == pytest.approx(roc_auc_score(y_true, y_pred), abs=2e-3)


def test_multi_label_auc_averages_label_aucs():
    y_true = RNG.integers(0, 2, size=(120, 3))
    y_pred = RNG.random(size=(120, 3)).astype(np.float32)
    label_weights = [0.2, 0.3, 0.5]
    auc = metrics.AUC(num_thresholds=20, multi_label=True, label_weights=label_weights)
    assert auc.variables == []
    auc.update_state(y_true, y_pred)
    assert tuple(auc.true_positives.shape) == (20, 3)
    per_label = _reference_auc(*_counts(y_true, y_pred, _auc_thresholds(20)))
    expected = (per_label * label_weights).sum() / sum(label_weights)
    assert auc.result().item() == pytest.approx(expected, rel=1e-5)
    unweighted = metrics.AUC(num_thresholds=20, multi_label=True, num_labels=3)
    unweighted.update_state(y_true, y_pred)
    assert unweighted.result().item() == pytest.approx(per_label.mean(), rel=1e-5)
    flat = metrics.AUC(num_thresholds=20)
    flat.update_state(y_true, y_pred)
    flat_expected = _reference_auc(*_counts(y_true.reshape(-1, 1), y_pred.reshape(-1, 1),
                                            _auc_thresholds(20)))[0]
    assert flat.result().item() == pytest.approx(flat_expected, rel=1e-5)
    pr = metrics.AUC(num_thresholds=20, curve="PR", multi_label=True)
    pr.update_state(y_true, y_pred)
    pr_expected = _reference_auc(*_counts(y_true, y_pred, _auc_thresholds(20)), curve="PR")
    assert pr.result().item() == pytest.approx(pr_expected.mean(), rel=1e-5)


def test_auc_from_logits_and_config():
    logits = torch.tensor([-2.0, 0.5, 3.0, -0.1])
    y_true = [0, 1, 1, 0]
    a = metrics.AUC(from_logits=True, num_thresholds=10)
    a.update_state(y_true, logits)
    b = metrics.AUC(num_thresholds=10)
    b.update_state(y_true, torch.sigmoid(logits))
    assert a.result().item() == b.result().item()
    config = metrics.AUC(name="auc_cfg").get_config()
    assert config == {"name": "auc_cfg", "dtype": "float32", "num_thresholds": 200,
                      "curve": "ROC", "summation_method": "interpolation", "multi_label": False,
                      "num_labels": None, "label_weights": None, "from_logits": False}


def test_auc_argument_errors():
    with pytest.raises(ValueError, match="num_thresholds"):
        metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="Invalid AUC curve value"):
        metrics.AUC(curve="DET")
    with pytest.raises(ValueError, match="Invalid AUC summation method"):
        metrics.AUC(summation_method="trapezoid")
    with pytest.raises(ValueError, match="only when `multi_label` is True"):
        metrics.AUC(num_labels=3)
    with pytest.raises(ValueError, match="non-negative"):
        metrics.AUC(label_weights=[1.0, -1.0])
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        metrics.AUC(thresholds=[0.5, 1.5])
    with pytest.raises(ValueError, match="must have rank 2"):
        metrics.AUC(multi_label=True).update_state(np.zeros((2, 2, 2)), np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="Number of labels is not consistent"):
        metrics.AUC(multi_label=True, num_labels=3).update_state(np.zeros((4, 2)),
                                                                   np.zeros((4, 2)))


def test_precision_recall_with_several_thresholds_class_id_and_top_k():
    y_true = np.array([[0, 1, 1], [1, 0, 1], [0, 0, 1], [1, 1, 0]])
    y_pred = np.array([[0.1, 0.7, 0.6], [0.9, 0.4, 0.2], [0.3, 0.5, 0.8], [0.6, 0.2, 0.1]],
                      dtype=np.float32)
    thresholds = [0.15, 0.5, 0.65]
    precision = metrics.Precision(thresholds=thresholds)
    recall = metrics.Recall(thresholds=thresholds)
    precision.update_state(y_true, y_pred)
    recall.update_state(y_true, y_pred)
    tp, fp, _, fn = _counts(y_true.reshape(-1, 1), y_pred.reshape(-1, 1), thresholds)
    np.testing.assert_allclose(precision.result().numpy(), (tp / (tp + fp))[:, 0], rtol=1e-6)
    np.testing.assert_allclose(recall.result().numpy(), (tp / (tp + fn))[:, 0], rtol=1e-6)
    by_class = metrics.Precision(class_id=2)
    by_class.update_state(y_true, y_pred)
    assert by_class.result().item() == pytest.approx(2 / 2)
    recall_c0 = metrics.Recall(class_id=0)
    recall_c0.update_state(y_true, y_pred)
    assert recall_c0.result().item() == pytest.approx(2 / 2)
    top1 = metrics.Precision(top_k=1)
    top1.update_state(y_true, y_pred)
    assert top1.result().item() == pytest.approx(1.0)
    top2 = metrics.Precision(top_k=2)
    top2.update_state(y_true, y_pred)
    assert top2.result().item() == pytest.approx(6 / 8)
    top2_recall = metrics.Recall(top_k=2)
    top2_recall.update_state(y_true, y_pred)
    assert top2_recall.result().item() == pytest.approx(6 / 7)
    counts = metrics.TruePositives(thresholds=[0.0, 0.5, 1.0])
    counts.update_state(y_true, y_pred)
    np.testing.assert_allclose(counts.result().numpy(), [7.0, 5.0, 0.0])  # evenly: bucket path
    ref = _counts(y_true.reshape(-1, 1), y_pred.reshape(-1, 1), [0.0, 0.5, 1.0])[0][:, 0]
    np.testing.assert_allclose(counts.result().numpy(), ref)


def test_sensitivity_metrics_match_reference():
    y_true = RNG.integers(0, 2, size=500)
    y_pred = RNG.random(size=500).astype(np.float32)
    inner = [(i + 1) / 199 for i in range(198)]
    thresholds = np.array([0.0] + inner + [1.0], dtype=np.float32)
    tp, fp, tn, fn = (c[:, 0] for c in _counts(y_true[:, None], y_pred[:, None], thresholds))
    sens, spec, prec = _div(tp, tp + fn), _div(tn, tn + fp), _div(tp, tp + fp)

    def best(constrained, dependent, value):
        feasible = constrained >= value
        return dependent[feasible].max() if feasible.any() else 0.0

    cases = [(metrics.SensitivityAtSpecificity(0.6), best(spec, sens, 0.6)),
             (metrics.SpecificityAtSensitivity(0.7), best(sens, spec, 0.7)),
             (metrics.PrecisionAtRecall(0.3), best(sens, prec, 0.3)),
             (metrics.RecallAtPrecision(0.99), best(prec, sens, 0.99))]
    for metric, expected in cases:
        metric.update_state(y_true, y_pred)
        assert metric.result().item() == pytest.approx(expected, rel=1e-5, abs=1e-7)


def test_confusion_metric_errors():
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        metrics.TruePositives(thresholds=[-0.1])
    with pytest.raises(ValueError, match=r"precision.*\(2, 3\).*\(2, 2\)"):
        metrics.Precision(name="precision").update_state(np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="class_id=5 is out of range"):
        metrics.Recall(class_id=5).update_state(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"sample_weight of shape \(3,\)"):
        metrics.Recall().update_state(np.zeros((2, 4)), np.zeros((2, 4)), sample_weight=[1, 2, 3])
    with pytest.raises(ValueError, match=r"Argument `specificity` must be in the range"):
        metrics.SensitivityAtSpecificity(1.5)
    with pytest.raises(ValueError, match="num_thresholds"):
        metrics.PrecisionAtRecall(0.5, num_thresholds=0)
    with pytest.raises(ValueError, match="out of range"):
        metrics.IoU(num_classes=2, target_class_ids=[2])
    # the range check reads the ids on the host, so it runs where the metric's state is on the
    # CPU; on an accelerator out-of-range ids are dropped without a host read per update
    with pytest.raises(ValueError, match=r"class ids in \[0, 2\)"), tf.device("/CPU:0"):
        metrics.MeanIoU(num_classes=2).update_state([0, 3], [0, 1])


def test_accuracy_errors_name_shapes():
    with pytest.raises(ValueError, match=r"categorical_accuracy.*\(2,\).*\(2, 3\).*sparse"):
        metrics.categorical_accuracy([0, 1], [[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])
    with pytest.raises(ValueError, match=r"sparse_categorical_accuracy.*\(2, 3\)"):
        metrics.SparseCategoricalAccuracy().update_state(np.eye(3)[:2], np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"accuracy.*\(3,\).*\(2,\)"):
        metrics.accuracy([1, 2, 3], [1, 2])


def test_top_k_ties_and_non_finite_rows_follow_tf_in_top_k():
    y_pred = torch.tensor([[0.5, 0.5, 0.5, 0.1], [float("nan"), 0.2, 0.3, 0.4]])
    matches = metrics.sparse_top_k_categorical_accuracy([2, 3], y_pred, k=1)
    assert matches.tolist() == [1.0, 0.0]
    assert metrics.sparse_top_k_categorical_accuracy([[3]], [[0.1, 0.2, 0.3, 0.4]], k=1
                                                     ).tolist() == [[1.0]]
