"""Accumulating confusion-matrix counts (TP, FP, TN, FN) over thresholds, vectorized in torch.

Follows Keras 2.15's `metrics_utils.update_confusion_matrix_variables`: a
prediction is positive at threshold `t` when `y_pred > t`. Evenly spaced
thresholds (AUC, the *AtRecall / *AtSensitivity metrics) use Keras' bucket
method: one scatter-add and a reversed cumulative sum, O(N + T) instead of
O(N * T).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.host_fallback import host_fallback
from torchestimator._torch_private import version
from torchestimator.keras.backend import epsilon
from torchestimator.keras.losses._utils import (
    broadcast_weights,
    shape_of,
    squeeze_or_expand_dimensions,
    to_tensor,
)

NEG_INF = -1e10

TRUE_POSITIVES = "tp"
FALSE_POSITIVES = "fp"
TRUE_NEGATIVES = "tn"
FALSE_NEGATIVES = "fn"
CONDITIONS = (TRUE_POSITIVES, FALSE_POSITIVES, TRUE_NEGATIVES, FALSE_NEGATIVES)


def to_list(value: Any) -> list:
    """Returns `value` as a list (a scalar becomes a one-element list)."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, np.ndarray):
        return value.tolist() if value.ndim else [value.item()]
    return [value]


def assert_thresholds_range(thresholds: list | None) -> None:
    """Raises ValueError when a threshold is None or outside [0, 1]."""
    if thresholds is not None:
        invalid = [t for t in thresholds if t is None or t < 0 or t > 1]
        if invalid:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")


def parse_init_thresholds(thresholds: Any, default_threshold: float = 0.5) -> list[float]:
    """Validates `thresholds` and returns them as a list (`[default_threshold]` for None)."""
    if thresholds is not None:
        assert_thresholds_range(to_list(thresholds))
    return [float(t) for t in to_list(default_threshold if thresholds is None else thresholds)]


def is_evenly_distributed_thresholds(thresholds: Any) -> bool:
    """True when the (3 or more) thresholds are `0, 1/(n-1), ..., 1` within epsilon."""
    thresholds = np.asarray(thresholds, dtype=np.float64)
    num_thresholds = len(thresholds)
    if num_thresholds < 3:
        return False
    even = np.arange(num_thresholds, dtype=np.float32) / (num_thresholds - 1)
    return bool(np.allclose(thresholds, even, atol=epsilon()))


def filter_top_k(x: torch.Tensor, k: int) -> torch.Tensor:
    """Keeps the `k` largest values of the last axis (lower index first on ties); the rest NEG_INF."""
    top = torch.sort(x, dim=-1, descending=True, stable=True).indices[..., :k]
    mask = torch.zeros_like(x).scatter_(-1, top, 1.0)
    return x * mask + NEG_INF * (1.0 - mask)


def _reverse_cumsum(x: torch.Tensor) -> torch.Tensor:
    return torch.flip(host_fallback(lambda t: torch.cumsum(t, dim=0), torch.flip(x, [0])), [0])


def _weights(
    sample_weight: torch.Tensor | None, label_weights: torch.Tensor | None, y_pred: torch.Tensor,
    name: str, given_shape: tuple | None,
) -> torch.Tensor | None:
    """Sample weights times label weights, broadcast to `y_pred` (None when both are None)."""
    weights = None
    try:
        if sample_weight is not None:
            weights = broadcast_weights(sample_weight, y_pred)
        if label_weights is not None:
            label = broadcast_weights(label_weights.unsqueeze(0), y_pred)
            weights = label if weights is None else weights * label
    except ValueError:
        raise ValueError(
            f"{name}: sample_weight of shape {given_shape} (or label_weights) cannot be broadcast "
            f"to the predictions of shape {shape_of(y_pred)}: pass a scalar, one weight per "
            "sample, or weights shaped like the predictions."
        ) from None
    return weights


#: The last counts of `_even_counts`, kept with what they were counted from: (the given label,
#: prediction and weight tensors, their versions, the settings, the counts). Metrics updated
#: with the very same tensors -- the binary head's ROC and PR AUCs -- count them once.
_last_even_counts: list = [None]


def _given_tensors(*values: Any) -> tuple | None:
    """`(values, their versions)` when every value is a torch tensor (or None) whose in-place
    changes a version counter records; None otherwise (arrays, inference tensors)."""
    for value in values:
        if value is not None and (type(value) is not torch.Tensor or value.is_inference()):
            return None
    return values, tuple(None if v is None else version(v) for v in values)


def _update_evenly(
    variables: dict[str, torch.Tensor],
    y_true: torch.Tensor,
    y_pred: torch.Tensor,
    num_thresholds: int,
    multi_label: bool,
    weights: torch.Tensor | None,
    thresholds_with_epsilon: bool,
    given: tuple | None = None,
) -> None:
    """Keras' bucket method for thresholds `0, 1/(T-1), ..., 1` (optionally with +-epsilon ends).
    `given`: the caller's inputs (`_given_tensors`), under which the counts are kept for the
    next metric given the same ones."""
    need_tp = TRUE_POSITIVES in variables or FALSE_NEGATIVES in variables
    need_fp = FALSE_POSITIVES in variables or TRUE_NEGATIVES in variables
    settings = (num_thresholds, multi_label, thresholds_with_epsilon, y_pred.dtype, y_pred.device)
    last = _last_even_counts[0]
    counts = None
    if (given is not None and last is not None and last[2] == settings
            and all(a is b for a, b in zip(last[0], given[0])) and last[1] == given[1]):
        counts = last[3]
        if (need_tp and counts[0] is None) or (need_fp and counts[1] is None):
            counts = None
    if counts is None:
        counts = _even_counts(y_true, y_pred, num_thresholds, multi_label, weights,
                              thresholds_with_epsilon, need_tp, need_fp)
        _last_even_counts[0] = None if given is None else (given[0], given[1], settings, counts)
    tp, fp, true_total, false_total = counts
    if TRUE_POSITIVES in variables:
        variables[TRUE_POSITIVES].assign_add(tp)
    if FALSE_POSITIVES in variables:
        variables[FALSE_POSITIVES].assign_add(fp)
    if TRUE_NEGATIVES in variables:
        variables[TRUE_NEGATIVES].assign_add(false_total - fp)
    if FALSE_NEGATIVES in variables:
        variables[FALSE_NEGATIVES].assign_add(true_total - tp)


def _even_counts(
    y_true: torch.Tensor,
    y_pred: torch.Tensor,
    num_thresholds: int,
    multi_label: bool,
    weights: torch.Tensor | None,
    thresholds_with_epsilon: bool,
    need_tp: bool,
    need_fp: bool,
) -> tuple:
    """The bucket method's counts: (weighted positives above each threshold or None, weighted
    negatives above each threshold or None, all weighted positives, all weighted negatives)."""
    y_pred = torch.clamp(y_pred, 0.0, 1.0)
    y_true = (y_true != 0).to(y_pred.dtype)
    if not multi_label:
        y_true, y_pred = y_true.reshape(-1), y_pred.reshape(-1)
        if weights is not None:
            weights = weights.reshape(-1)
    true_labels = y_true if weights is None else y_true * weights
    false_labels = (1.0 - y_true) if weights is None else (1.0 - y_true) * weights
    buckets = torch.ceil(y_pred * (num_thresholds - 1)) - 1
    if thresholds_with_epsilon:
        buckets = torch.relu(buckets)
    buckets = buckets.long()
    # Predictions at or below the first threshold (bucket -1) go to a discarded extra slot.
    slots = torch.where(buckets < 0, num_thresholds, buckets)
    if multi_label:
        num_labels = y_pred.shape[-1]
        slots = slots * num_labels + torch.arange(num_labels, device=slots.device)
        size, view = (num_thresholds + 1) * num_labels, (num_thresholds + 1, num_labels)
    else:
        size, view = num_thresholds + 1, (num_thresholds + 1,)
    slots = slots.reshape(-1)

    def bucket_counts(values: torch.Tensor, extra: tuple = ()) -> torch.Tensor:
        """Per-threshold counts of `values` (with `extra` trailing dims: (2,) for both kinds)."""
        counts = torch.zeros((size,) + extra, dtype=values.dtype, device=values.device)
        counts.index_add_(0, slots, values.reshape((-1,) + extra))
        return _reverse_cumsum(counts.view(view + extra)[:num_thresholds])

    if need_tp and need_fp:  # positives and negatives side by side: one count, one cumsum
        both = torch.stack((true_labels, false_labels), dim=-1)
        counts = bucket_counts(both, (2,))
        return counts[..., 0], counts[..., 1], true_labels.sum(dim=0), false_labels.sum(dim=0)
    tp = bucket_counts(true_labels) if need_tp else None
    fp = bucket_counts(false_labels) if need_fp else None
    true_total = true_labels.sum(dim=0) if need_tp else None
    false_total = false_labels.sum(dim=0) if need_fp else None
    return tp, fp, true_total, false_total


def _update_general(
    variables: dict[str, torch.Tensor],
    y_true: torch.Tensor,
    y_pred: torch.Tensor,
    thresholds: torch.Tensor,
    multi_label: bool,
    weights: torch.Tensor | None,
) -> None:
    """Compares every prediction with every threshold: `(T, N)` (or `(T, N, L)`) at once."""
    labels = y_true != 0
    if multi_label:
        pred_is_pos = y_pred.unsqueeze(0) > thresholds.view(-1, 1, 1)
        labels = labels.unsqueeze(0)
        if weights is not None:
            weights = weights.unsqueeze(0)
    else:
        pred_is_pos = y_pred.reshape(1, -1) > thresholds.view(-1, 1)
        labels = labels.reshape(1, -1)
        if weights is not None:
            weights = weights.reshape(1, -1)

    def count(label: torch.Tensor, pred: torch.Tensor, key: str) -> None:
        hits = label & pred  # summed as the predictions' dtype, or weighed (bool * float: float)
        variables[key].assign_add(hits.sum(dim=1, dtype=y_pred.dtype) if weights is None
                                  else (hits * weights).sum(dim=1))

    if TRUE_POSITIVES in variables:
        count(labels, pred_is_pos, TRUE_POSITIVES)
    if FALSE_POSITIVES in variables:
        count(~labels, pred_is_pos, FALSE_POSITIVES)
    if TRUE_NEGATIVES in variables:
        count(~labels, ~pred_is_pos, TRUE_NEGATIVES)
    if FALSE_NEGATIVES in variables:
        count(labels, ~pred_is_pos, FALSE_NEGATIVES)


def update_confusion_matrix_variables(
    variables: dict[str, torch.Tensor],
    y_true: Any,
    y_pred: Any,
    thresholds: torch.Tensor,
    top_k: int | None = None,
    class_id: int | None = None,
    sample_weight: Any = None,
    multi_label: bool = False,
    label_weights: torch.Tensor | None = None,
    thresholds_distributed_evenly: bool = False,
    thresholds_with_epsilon: bool = False,
    name: str = "metric",
) -> None:
    """Adds the weighted TP / FP / TN / FN counts of a batch, per threshold, to `variables`.

    `variables` maps 'tp', 'fp', 'tn', 'fn' to state variables of shape `(T,)`
    (or `(T, num_labels)` with `multi_label`). `y_true` is cast to bool;
    `y_pred` holds scores in [0, 1]; `thresholds` is a tensor of T floats.
    `top_k` keeps only the k highest predictions of each row positive;
    `class_id` restricts labels and predictions to one class.
    """
    first = next(iter(variables.values()))
    dtype, device = first.dtype, first.device
    given = (_given_tensors(y_true, y_pred, sample_weight)
             if thresholds_distributed_evenly and top_k is None and class_id is None
             and label_weights is None else None)
    y_true = to_tensor(y_true, dtype=dtype, device=device)
    y_pred = to_tensor(y_pred, dtype=dtype, device=device)
    given_shape = None
    if sample_weight is None:
        y_pred, y_true = squeeze_or_expand_dimensions(y_pred, y_true)
    else:
        sample_weight = to_tensor(sample_weight, dtype=dtype, device=device)
        given_shape = shape_of(sample_weight)
        y_pred, y_true, sample_weight = squeeze_or_expand_dimensions(y_pred, y_true, sample_weight)
    if y_pred.shape != y_true.shape:
        raise ValueError(
            f"{name}: labels (y_true) of shape {shape_of(y_true)} and predictions (y_pred) of "
            f"shape {shape_of(y_pred)} must have the same shape."
        )
    if top_k is not None:
        y_pred = filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.dim() == 0 or not 0 <= class_id < y_pred.shape[-1]:
            raise ValueError(
                f"{name}: class_id={class_id} is out of range for predictions of shape "
                f"{shape_of(y_pred)}; it must be in [0, num_classes)."
            )
        y_true = y_true[..., class_id, None]
        y_pred = y_pred[..., class_id, None]
    if label_weights is not None:
        label_weights = label_weights.to(device=device, dtype=dtype)
    weights = _weights(sample_weight, None if multi_label else label_weights, y_pred, name,
                       given_shape)
    thresholds = thresholds.to(device=device, dtype=dtype)
    if thresholds_distributed_evenly:
        _update_evenly(variables, y_true, y_pred, thresholds.shape[0], multi_label, weights,
                       thresholds_with_epsilon, given)
    else:
        _update_general(variables, y_true, y_pred, thresholds, multi_label, weights)
