"""`tf.compat.v1.metrics`: TF1 streaming metrics, `(value, update_op)` pairs.

Each call inside a `model_fn` finds the same Keras metric object as on the
previous call (by `name`, or by order) and updates it at once (execution is
eager). The pair returned is `(metric, updated_value)`: the Estimator reads
the metric's final result; `pair[1]` is the value after this batch (use it in
summaries, as TF1 code did).

The metrics without a Keras twin of the same formula (the confusion counts, the
thresholded rates, `mean_iou`, the `_at_k` metrics, ...) keep TF1's formulas in the
Keras metrics of `_streaming_metrics.py`.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.object_scope import current_scope
from torchestimator.compat.v1 import _streaming_metrics as _s
from torchestimator.keras import metrics as keras_metrics


def _metric(cls: type, name: str | None, **kwargs: Any) -> Any:
    scope = current_scope()
    if name is not None:
        kwargs["name"] = name
    if scope is None:
        return cls(**kwargs)
    return scope.construct(cls, (), kwargs)


def _update(metric: Any, *args: Any, weights: Any = None) -> tuple:
    metric.update_state(*args, sample_weight=weights)
    return metric, metric.result()


def accuracy(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
             updates_collections: Any = None, name: str | None = None) -> tuple:
    """How often `predictions` equals `labels`."""
    return _update(_metric(keras_metrics.Accuracy, name), labels, predictions, weights=weights)


def mean(values: Any, weights: Any = None, metrics_collections: Any = None,
         updates_collections: Any = None, name: str | None = None) -> tuple:
    """The (weighted) mean of `values`."""
    return _update(_metric(keras_metrics.Mean, name), values, weights=weights)


def auc(labels: Any, predictions: Any, weights: Any = None, num_thresholds: int = 200,
        metrics_collections: Any = None, updates_collections: Any = None, curve: str = "ROC",
        name: str | None = None, summation_method: str = "trapezoidal", thresholds: Any = None) -> tuple:
    """The area under the ROC or PR curve, by TF1's `summation_method` ('trapezoidal',
    'careful_interpolation', 'minoring', 'majoring') over `num_thresholds` thresholds (or the
    given `thresholds`)."""
    metric = _metric(_s.TF1AUC, name, num_thresholds=num_thresholds, curve=curve,
                     summation_method=summation_method, thresholds=thresholds)
    return _update(metric, labels, predictions, weights=weights)


def precision(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
              updates_collections: Any = None, name: str | None = None) -> tuple:
    """Precision of boolean `predictions` against `labels`."""
    return _update(_metric(keras_metrics.Precision, name), labels, predictions, weights=weights)


def recall(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
           updates_collections: Any = None, name: str | None = None) -> tuple:
    """Recall of boolean `predictions` against `labels`."""
    return _update(_metric(keras_metrics.Recall, name), labels, predictions, weights=weights)


def mean_squared_error(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                       updates_collections: Any = None, name: str | None = None) -> tuple:
    """The mean squared error: the (weighted) mean of `(predictions - labels) ** 2` over every
    element, as TF1's (`weights` broadcast to the elements, not one weight per row)."""
    errors = _errors(labels, predictions).square()
    return _update(_metric(_s.MeanSquaredError, name), errors, weights=weights)


def root_mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                            metrics_collections: Any = None, updates_collections: Any = None,
                            name: str | None = None) -> tuple:
    """The root of the mean squared error."""
    return _update(_metric(keras_metrics.RootMeanSquaredError, name), labels, predictions, weights=weights)


def mean_absolute_error(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                        updates_collections: Any = None, name: str | None = None) -> tuple:
    """The mean absolute error: the (weighted) mean of `|predictions - labels|` over every
    element, as TF1's (`weights` broadcast to the elements, not one weight per row)."""
    errors = _errors(labels, predictions).abs()
    return _update(_metric(_s.MeanAbsoluteError, name), errors, weights=weights)


def _errors(labels: Any, predictions: Any) -> torch.Tensor:
    """`predictions - labels` (labels in the predictions' dtype; a trailing dimension of 1 that
    only one of them has is squeezed, TF1's `_remove_squeezable_dimensions`)."""
    predictions = torch.as_tensor(predictions)
    if not (predictions.is_floating_point() or predictions.is_complex()):
        predictions = predictions.float()
    labels = torch.as_tensor(labels, device=predictions.device).to(predictions.dtype)
    if labels.dim() == predictions.dim() + 1 and labels.shape[-1] == 1:
        labels = labels.squeeze(-1)
    elif predictions.dim() == labels.dim() + 1 and predictions.shape[-1] == 1:
        predictions = predictions.squeeze(-1)
    return predictions - labels



def _bool_count(kind: str, labels: Any, predictions: Any, weights: Any, name: str | None) -> tuple:
    return _update(_metric(_s.Confusion, name, kind=kind), labels, predictions, weights=weights)


def true_positives(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                   updates_collections: Any = None, name: str | None = None) -> tuple:
    """Sum the weights of true_positives (`labels` and `predictions` both true, cast to bool)."""
    return _bool_count("tp", labels, predictions, weights, name)


def false_positives(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                    updates_collections: Any = None, name: str | None = None) -> tuple:
    """Sum the weights of false positives (`predictions` true where `labels` are false)."""
    return _bool_count("fp", labels, predictions, weights, name)


def true_negatives(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                   updates_collections: Any = None, name: str | None = None) -> tuple:
    """Sum the weights of true negatives (`labels` and `predictions` both false)."""
    return _bool_count("tn", labels, predictions, weights, name)


def false_negatives(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                    updates_collections: Any = None, name: str | None = None) -> tuple:
    """Computes the total number of false negatives (`predictions` false where `labels` are true)."""
    return _bool_count("fn", labels, predictions, weights, name)


def _thresholds(thresholds: Any) -> tuple:
    if isinstance(thresholds, (int, float)):
        thresholds = [thresholds]
    values = tuple(float(t) for t in thresholds)
    if not values:
        raise ValueError("thresholds must hold at least one value in [0, 1]; got an empty list.")
    return values


def _at_thresholds(kind: str, labels: Any, predictions: Any, thresholds: Any, weights: Any,
                   name: str | None) -> tuple:
    metric = _metric(_s.Confusion, name, kind=kind, thresholds=_thresholds(thresholds))
    return _update(metric, labels, predictions, weights=weights)


def true_positives_at_thresholds(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
                                 metrics_collections: Any = None, updates_collections: Any = None,
                                 name: str | None = None) -> tuple:
    """Computes true positives at provided threshold values (`predictions > threshold`), a
    float32 tensor of shape `[len(thresholds)]`."""
    return _at_thresholds("tp", labels, predictions, thresholds, weights, name)


def false_positives_at_thresholds(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
                                  metrics_collections: Any = None, updates_collections: Any = None,
                                  name: str | None = None) -> tuple:
    """Computes false positives at provided threshold values."""
    return _at_thresholds("fp", labels, predictions, thresholds, weights, name)


def true_negatives_at_thresholds(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
                                 metrics_collections: Any = None, updates_collections: Any = None,
                                 name: str | None = None) -> tuple:
    """Computes true negatives at provided threshold values."""
    return _at_thresholds("tn", labels, predictions, thresholds, weights, name)


def false_negatives_at_thresholds(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
                                  metrics_collections: Any = None, updates_collections: Any = None,
                                  name: str | None = None) -> tuple:
    """Computes false negatives at provided threshold values."""
    return _at_thresholds("fn", labels, predictions, thresholds, weights, name)


def precision_at_thresholds(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
                            metrics_collections: Any = None, updates_collections: Any = None,
                            name: str | None = None) -> tuple:
    """Computes precision values for different `thresholds` on `predictions`:
    `tp / (tp + fp + 1e-7)` per threshold."""
    return _at_thresholds("precision", labels, predictions, thresholds, weights, name)


def recall_at_thresholds(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
                         metrics_collections: Any = None, updates_collections: Any = None,
                         name: str | None = None) -> tuple:
    """Computes various recall values for different `thresholds` on `predictions`:
    `tp / (tp + fn + 1e-7)` per threshold."""
    return _at_thresholds("recall", labels, predictions, thresholds, weights, name)


def _rate_thresholds(num_thresholds: int) -> tuple:
    if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) or num_thresholds < 2:
        raise ValueError(f"num_thresholds must be an integer > 1; got {num_thresholds!r}")
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return tuple([0.0 - _s._KEPSILON] + inner + [1.0 + _s._KEPSILON])


def sensitivity_at_specificity(labels: Any, predictions: Any, specificity: float, weights: Any = None,
                               num_thresholds: int = 200, metrics_collections: Any = None,
                               updates_collections: Any = None, name: str | None = None) -> tuple:
    """Computes the sensitivity at a given specificity: the sensitivity at the threshold
    (of `num_thresholds` evenly spaced) whose specificity is closest to `specificity`."""
    if specificity < 0 or specificity > 1:
        raise ValueError("`specificity` must be in the range [0, 1]. Currently, `specificity` is "
                         f"{specificity}.")
    metric = _metric(_s.Confusion, name, kind="sensitivity_at_specificity",
                     thresholds=_rate_thresholds(num_thresholds), target=float(specificity))
    return _update(metric, labels, predictions, weights=weights)


def specificity_at_sensitivity(labels: Any, predictions: Any, sensitivity: float, weights: Any = None,
                               num_thresholds: int = 200, metrics_collections: Any = None,
                               updates_collections: Any = None, name: str | None = None) -> tuple:
    """Computes the specificity at a given sensitivity: the specificity at the threshold
    (of `num_thresholds` evenly spaced; the last one on a tie) whose sensitivity is closest
    to `sensitivity`."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError("`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is "
                         f"{sensitivity}.")
    metric = _metric(_s.Confusion, name, kind="specificity_at_sensitivity",
                     thresholds=_rate_thresholds(num_thresholds), target=float(sensitivity))
    return _update(metric, labels, predictions, weights=weights)


def _floats(value: Any) -> torch.Tensor:
    return _s.tensor(value, value.device if isinstance(value, torch.Tensor) else torch.device("cpu"),
                     torch.float32)


def _same_shape(labels: torch.Tensor, predictions: torch.Tensor, where: str) -> None:
    if labels.shape != predictions.shape:
        raise ValueError(f"{where}: labels of shape {tuple(labels.shape)} and predictions of shape "
                         f"{tuple(predictions.shape)} must have the same shape.")


def mean_cosine_distance(labels: Any, predictions: Any, dim: int, weights: Any = None,
                         metrics_collections: Any = None, updates_collections: Any = None,
                         name: str | None = None) -> tuple:
    """Computes the cosine distance between the labels and predictions: `1 - mean(sum(labels
    * predictions, dim))` (both assumed unit-normalized along `dim`)."""
    lab, pred = _floats(labels), _floats(predictions)
    _same_shape(lab, pred, "mean_cosine_distance")
    radial = (lab * pred.to(lab.device)).sum(dim=dim, keepdim=True)
    return _update(_metric(_s.WeightedMean, name, kind="one_minus"), radial, weights=weights)


def mean_relative_error(labels: Any, predictions: Any, normalizer: Any, weights: Any = None,
                        metrics_collections: Any = None, updates_collections: Any = None,
                        name: str | None = None) -> tuple:
    """Computes the mean relative error by normalizing with the given values:
    `mean(|labels - predictions| / normalizer)` (0 where `normalizer` is 0)."""
    lab, pred = _floats(labels), _floats(predictions)
    _same_shape(lab, pred, "mean_relative_error")
    norm = _floats(normalizer).to(lab.device)
    errors = torch.where(norm == 0, torch.zeros_like(lab),
                         (lab - pred.to(lab.device)).abs() / torch.where(norm == 0, 1.0, norm))
    return _update(_metric(_s.WeightedMean, name), errors, weights=weights)


def percentage_below(values: Any, threshold: float, weights: Any = None, metrics_collections: Any = None,
                     updates_collections: Any = None, name: str | None = None) -> tuple:
    """Computes the percentage of values less than the given threshold (a fraction in [0, 1])."""
    below = (_floats(values) < threshold).float()
    return _update(_metric(_s.WeightedMean, name), below, weights=weights)


def mean_tensor(values: Any, weights: Any = None, metrics_collections: Any = None,
                updates_collections: Any = None, name: str | None = None) -> tuple:
    """Computes the element-wise (weighted) mean of the given tensors: a tensor of the shape
    of `values`, the mean of the values given at each position over the updates."""
    v = _floats(values)
    return _update(_metric(_s.WeightedMean, name, shape=tuple(v.shape)), v, weights=weights)


def _num_classes(num_classes: Any) -> int:
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
        raise ValueError(f"num_classes must be a positive integer; got {num_classes!r}")
    return num_classes


def mean_iou(labels: Any, predictions: Any, num_classes: int, weights: Any = None,
             metrics_collections: Any = None, updates_collections: Any = None,
             name: str | None = None) -> tuple:
    """Calculate per-step mean Intersection-Over-Union (mIOU): the mean over the classes that
    occur (in labels or predictions) of `true_positive / (true_positive + false_positive +
    false_negative)`, from a weighted confusion matrix."""
    metric = _metric(_s.ClassConfusion, name, kind="mean_iou", num_classes=_num_classes(num_classes))
    return _update(metric, labels, predictions, weights=weights)


def mean_per_class_accuracy(labels: Any, predictions: Any, num_classes: int, weights: Any = None,
                            metrics_collections: Any = None, updates_collections: Any = None,
                            name: str | None = None) -> tuple:
    """Calculates the mean of the per-class accuracies (over all `num_classes` classes; a
    class never seen counts 0)."""
    metric = _metric(_s.ClassConfusion, name, kind="mean_per_class_accuracy",
                     num_classes=_num_classes(num_classes))
    return _update(metric, labels, predictions, weights=weights)


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"Invalid k={k}: k must be a positive integer.")
    return k


def _top_k(predictions: Any, k: int) -> torch.Tensor:
    scores = _floats(predictions)
    if k > scores.shape[-1]:
        raise ValueError(f"k={k} is larger than the number of classes ({scores.shape[-1]}, the last "
                         "dimension of predictions).")
    # TF's top_k: of equal scores the lower class id comes first (torch.topk leaves ties in any
    # order, and orders them differently on a GPU)
    return torch.sort(scores, dim=-1, descending=True, stable=True).indices[..., :k]


def _top_k_metric(kind: str, labels: Any, predictions_idx: Any, k: int, class_id: Any, weights: Any,
                  name: str | None) -> tuple:
    metric = _metric(_s.TopK, name, kind=kind, k=k, class_id=None if class_id is None else int(class_id))
    return _update(metric, labels, predictions_idx, weights=weights)


def precision_at_k(labels: Any, predictions: Any, k: int, class_id: int | None = None, weights: Any = None,
                   metrics_collections: Any = None, updates_collections: Any = None,
                   name: str | None = None) -> tuple:
    """Computes precision@k of the predictions with respect to sparse labels: of the top-`k`
    classes of `predictions` (logits, `[batch, num_classes]`), the fraction in the row's label
    set (`labels`: `[batch, num_labels]` or `[batch]` class ids), or for `class_id` only.
    A float64 value; NaN while nothing was predicted, as TF1."""
    k = _check_k(k)
    return _top_k_metric("precision", labels, _top_k(predictions, k), k, class_id, weights, name)


def sparse_precision_at_k(labels: Any, predictions: Any, k: int, class_id: int | None = None,
                          weights: Any = None, metrics_collections: Any = None,
                          updates_collections: Any = None, name: str | None = None) -> tuple:
    """Renamed to `precision_at_k`, please use that method."""
    return precision_at_k(labels, predictions, k, class_id=class_id, weights=weights, name=name)


def recall_at_k(labels: Any, predictions: Any, k: int, class_id: int | None = None, weights: Any = None,
                metrics_collections: Any = None, updates_collections: Any = None,
                name: str | None = None) -> tuple:
    """Computes recall@k of the predictions with respect to sparse labels: of the row's label
    ids, the fraction among the top-`k` classes of `predictions` (or for `class_id` only).
    A float64 value; NaN while there was no label, as TF1."""
    k = _check_k(k)
    return _top_k_metric("recall", labels, _top_k(predictions, k), k, class_id, weights, name)


def _given_top_k(predictions_idx: Any, k: Any) -> tuple:
    idx = _s.tensor(predictions_idx, predictions_idx.device if isinstance(predictions_idx, torch.Tensor)
                    else torch.device("cpu")).long()
    if k is None:
        return idx, int(idx.shape[-1])
    k = _check_k(k)
    return idx[..., :k], k


def precision_at_top_k(labels: Any, predictions_idx: Any, k: int | None = None, class_id: int | None = None,
                       weights: Any = None, metrics_collections: Any = None,
                       updates_collections: Any = None, name: str | None = None) -> tuple:
    """Computes precision@k of the predictions with respect to sparse labels, from the top-k
    class ids `predictions_idx` (`[batch, k]`) instead of scores."""
    idx, k = _given_top_k(predictions_idx, k)
    return _top_k_metric("precision", labels, idx, k, class_id, weights, name)


def recall_at_top_k(labels: Any, predictions_idx: Any, k: int | None = None, class_id: int | None = None,
                    weights: Any = None, metrics_collections: Any = None,
                    updates_collections: Any = None, name: str | None = None) -> tuple:
    """Computes recall@k of top-k predictions with respect to sparse labels, from the top-k
    class ids `predictions_idx`."""
    idx, k = _given_top_k(predictions_idx, k)
    return _top_k_metric("recall", labels, idx, k, class_id, weights, name)


def average_precision_at_k(labels: Any, predictions: Any, k: int, weights: Any = None,
                           metrics_collections: Any = None, updates_collections: Any = None,
                           name: str | None = None) -> tuple:
    """Computes average precision@k of predictions with respect to sparse labels: per row,
    the sum over the relevant top-`k` positions of the precision at that position, divided
    by `min(k, number of labels)`; averaged (weighted) over the rows. A float64 value."""
    k = _check_k(k)
    metric = _metric(_s.TopK, name, kind="average_precision", k=k)
    return _update(metric, labels, _top_k(predictions, k), weights=weights)


def sparse_average_precision_at_k(labels: Any, predictions: Any, k: int, weights: Any = None,
                                  metrics_collections: Any = None, updates_collections: Any = None,
                                  name: str | None = None) -> tuple:
    """Renamed to `average_precision_at_k`, please use that method."""
    return average_precision_at_k(labels, predictions, k, weights=weights, name=name)
