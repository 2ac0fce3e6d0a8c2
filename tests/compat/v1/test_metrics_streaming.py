"""`tf.compat.v1.metrics`: the streaming metrics beyond the first eight, against TF 2.15's
graph values (fixtures/tf1_api.json, key "metrics", recorded by
tools/make_tf1_api_fixtures.py: two `update_op` runs on two fixed batches, then the value).

Each metric is called once per batch inside a model_fn scope (as an Estimator's eval loop
does), so the second call finds the first call's metric and accumulates into it."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

M = tf.compat.v1.metrics

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf1_api.json"), encoding="utf-8") as _f:
    TF = json.load(_f)["metrics"]
_I = TF["_inputs"]


def _a(value, dtype, shape=None):
    array = np.asarray(value, dtype=dtype)
    return array if shape is None else array.reshape(shape)


BINARY = [(_a(a, np.int64), _a(b, np.float32), _a(c, np.float32)) for a, b, c in _I["binary"]]
BOOLEAN = [(_a(a, np.int64), _a(b, bool), _a(c, np.float32)) for a, b, c in _I["boolean"]]
THR = _I["thresholds"]
PAIR = [tuple(_a(v, np.float32, s) for v, s in zip(t, [(4, 3), (4, 3), (4, 1)])) for t in _I["pair"]]
CLS = [(_a(a, np.int64), _a(b, np.int64), _a(c, np.float32)) for a, b, c in _I["cls"]]
ATK = [(_a(a, np.int64, (5, 2)), _a(b, np.float32, (5, 6)), _a(c, np.float32)) for a, b, c in _I["atk"]]
ATK_1D = [(a[:, 0], b, c) for a, b, c in ATK]


def _cases():
    cases = {}
    for name in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
        cases[name] = (lambda lab, p, w, f=getattr(M, name): f(lab, p, weights=w), BOOLEAN)
        cases[name + "_at_thresholds"] = (
            lambda lab, p, w, f=getattr(M, name + "_at_thresholds"): f(lab, p, THR, weights=w), BINARY)
    cases["precision_at_thresholds"] = (lambda lab, p, w: M.precision_at_thresholds(lab, p, THR, weights=w), BINARY)
    cases["recall_at_thresholds"] = (lambda lab, p, w: M.recall_at_thresholds(lab, p, THR, weights=w), BINARY)
    for t in (0.3, 0.5, 0.8):
        cases[f"sensitivity_at_specificity/{t}"] = (
            lambda lab, p, w, t=t: M.sensitivity_at_specificity(lab, p, t, weights=w, num_thresholds=20), BINARY)
        cases[f"specificity_at_sensitivity/{t}"] = (
            lambda lab, p, w, t=t: M.specificity_at_sensitivity(lab, p, t, weights=w, num_thresholds=20), BINARY)
    cases["sensitivity_at_specificity/default"] = (lambda lab, p, w: M.sensitivity_at_specificity(lab, p, 0.5),
                                                   BINARY)
    cases["mean_cosine_distance"] = (lambda a, b, w: M.mean_cosine_distance(a, b, 1, weights=w), PAIR)
    cases["mean_relative_error"] = (lambda a, b, w: M.mean_relative_error(a, b, a + 3.0, weights=w), PAIR)
    cases["mean_relative_error_zero"] = (lambda a, b, w: M.mean_relative_error(a, b, a * 0.0, weights=w), PAIR)
    cases["percentage_below"] = (lambda a, b, w: M.percentage_below(a, 0.2, weights=w), PAIR)
    cases["mean_tensor"] = (lambda a, b, w: M.mean_tensor(a, weights=w), PAIR)
    cases["mean_tensor_unweighted"] = (lambda a, b, w: M.mean_tensor(a), PAIR)
    cases["mean_iou"] = (lambda lab, p, w: M.mean_iou(lab, p, 5, weights=w), CLS)
    cases["mean_per_class_accuracy"] = (lambda lab, p, w: M.mean_per_class_accuracy(lab, p, 5, weights=w), CLS)
    for k in (1, 3):
        for cid in (None, 2):
            for name in ("precision_at_k", "recall_at_k", "sparse_precision_at_k"):
                cases[f"{name}/k{k}/c{cid}"] = (
                    lambda lab, p, w, f=getattr(M, name), k=k, c=cid: f(lab, p, k, class_id=c, weights=w), ATK)
                cases[f"{name}/1d/k{k}/c{cid}"] = (
                    lambda lab, p, w, f=getattr(M, name), k=k, c=cid: f(lab, p, k, class_id=c), ATK_1D)
            for name in ("precision_at_top_k", "recall_at_top_k"):
                cases[f"{name}/k{k}/c{cid}"] = (
                    lambda lab, p, w, f=getattr(M, name), k=k, c=cid: f(
                        lab, torch.topk(p, k).indices, k=k, class_id=c, weights=w), ATK)
        for name in ("average_precision_at_k", "sparse_average_precision_at_k"):
            cases[f"{name}/k{k}"] = (lambda lab, p, w, f=getattr(M, name), k=k: f(lab, p, k, weights=w), ATK)
            cases[f"{name}/1d/k{k}"] = (lambda lab, p, w, f=getattr(M, name), k=k: f(lab, p, k), ATK_1D)
    return cases


CASES = _cases()


def _stream(make, batches):
    """Calls `make` once per batch in a model_fn scope; returns (metric, update values)."""
    scope = ObjectScope()
    updates = []
    for batch in batches:
        scope.context.begin_call("eval", 0)
        with scope:
            metric, update = make(*[torch.as_tensor(x) for x in batch])
        updates.append(update)
    return metric, updates


def _close(got, expected):
    got = np.asarray(got, np.float64).reshape(-1)
    expected = np.asarray(np.nan if expected is None else expected, np.float64).reshape(-1)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True)


TF_NAMES = [
    "accuracy", "auc", "average_precision_at_k", "false_negatives", "false_negatives_at_thresholds",
    "false_positives", "false_positives_at_thresholds", "mean", "mean_absolute_error",
    "mean_cosine_distance", "mean_iou", "mean_per_class_accuracy", "mean_relative_error",
    "mean_squared_error", "mean_tensor", "percentage_below", "precision", "precision_at_k",
    "precision_at_thresholds", "precision_at_top_k", "recall", "recall_at_k", "recall_at_thresholds",
    "recall_at_top_k", "root_mean_squared_error", "sensitivity_at_specificity",
    "sparse_average_precision_at_k", "sparse_precision_at_k", "specificity_at_sensitivity",
    "true_negatives", "true_negatives_at_thresholds", "true_positives", "true_positives_at_thresholds",
]  # TF 2.15's tf.compat.v1.metrics


def test_every_tf_name_exists():
    assert [n for n in TF_NAMES if not callable(getattr(M, n, None))] == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_metric_matches_tf(name):
    make, batches = CASES[name]
    metric, updates = _stream(make, batches)
    _close(metric.result(), TF[name]["value"])
    if name in ("mean_iou", "mean_per_class_accuracy"):
        return  # TF1's update_op is the confusion matrix / the per-class counts; here the value
    _close(updates[0], TF[name]["updates"][0])
    _close(updates[1], TF[name]["updates"][1])


def test_at_k_values_are_float64_as_tf():
    metric, _ = _stream(CASES["precision_at_k/k3/cNone"][0], ATK)
    assert metric.result().dtype == torch.float64


def test_reset_state_starts_over():
    metric, _ = _stream(CASES["mean_iou"][0], CLS)
    metric.reset_state()
    assert float(metric.result()) == 0.0


def test_in_eval_metric_ops_of_an_estimator(tmp_path):
    x = np.arange(12, dtype=np.float32).reshape(-1, 1) / 12
    y = (np.arange(12) % 3 == 0).astype(np.int64)

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        score = features["x"][:, 0] + 0 * w
        loss = tf.reduce_mean(score) + w
        ops = {
            "tp": M.true_positives(labels, score > 0.5),
            "fp_thr": M.false_positives_at_thresholds(labels, score, [0.25, 0.75]),
            "below": M.percentage_below(score, 0.5),
        }
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=ops)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(tf.compat.v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4, shuffle=False))
    result = est.evaluate(tf.compat.v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=5, shuffle=False))
    score = x[:, 0]
    assert result["tp"] == pytest.approx(float(((score > 0.5) & (y == 1)).sum()))
    np.testing.assert_allclose(result["fp_thr"], [((score > t) & (y == 0)).sum() for t in (0.25, 0.75)])
    assert result["below"] == pytest.approx(float((score < 0.5).mean()))


def test_argument_errors():
    with pytest.raises(ValueError, match="`specificity` must be in the range"):
        M.sensitivity_at_specificity([1], [0.5], 1.5)
    with pytest.raises(ValueError, match="`sensitivity` must be in the range"):
        M.specificity_at_sensitivity([1], [0.5], -0.1)
    with pytest.raises(ValueError, match="Invalid k=0"):
        M.precision_at_k([[1]], [[0.1, 0.9]], 0)
    with pytest.raises(ValueError, match="k=3 is larger than the number of classes"):
        M.recall_at_k([[1]], [[0.1, 0.9]], 3)
    with pytest.raises(ValueError, match="num_classes must be a positive integer"):
        M.mean_iou([0], [0], 0)
    with pytest.raises(ValueError, match=r"labels must be class ids in \[0, num_classes=2\)"):
        M.mean_per_class_accuracy([0, 2], [0, 1], 2)
    with pytest.raises(ValueError, match=r"predictions must be in \[0, 1\]"):
        M.precision_at_thresholds([1, 0], [0.5, 1.5], [0.5])
    with pytest.raises(ValueError, match="weights of shape"):
        M.percentage_below(torch.zeros(4, 3), 0.5, weights=torch.ones(2))
    with pytest.raises(ValueError, match="mean_cosine_distance: labels of shape"):
        M.mean_cosine_distance(torch.zeros(4, 3), torch.zeros(4, 2), 1)
    with pytest.raises(ValueError, match=r"labels of shape \(3,\) do not match predictions of shape \(2,\)"):
        M.true_positives([1, 0, 1], [True, False])


def test_configs_round_trip():
    for name in ("true_positives_at_thresholds", "mean_tensor", "mean_iou", "recall_at_k/k3/c2"):
        metric, _ = _stream(*CASES[name])
        config = metric.get_config()
        assert type(metric).from_config(config).get_config() == config


def test_at_k_ties_rank_the_lower_class_id_first_as_tf_top_k():
    """Of equal scores TF's top_k takes the lower class id: the top 2 of [.1, .5, .5, .5, .2] are
    classes 1 and 2 (torch.topk took 1 and 3, and orders ties differently on a GPU)."""
    labels = np.array([[2]], np.int64)
    scores = np.array([[0.1, 0.5, 0.5, 0.5, 0.2]], np.float32)
    precision, updates = _stream(lambda lab, p: M.precision_at_k(lab, p, 2), [(labels, scores)])
    assert float(updates[0]) == 0.5
    recall, updates = _stream(lambda lab, p: M.recall_at_k(lab, p, 2), [(labels, scores)])
    assert float(updates[0]) == 1.0
