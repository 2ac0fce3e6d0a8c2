"""`tf.compat.v1.losses`: TF1 loss functions with `weights` and `reduction`
(default `Reduction.SUM_BY_NONZERO_WEIGHTS`: the weighted sum over the number of non-zero weights)."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._engine import loop
from torchestimator._engine.model_fn_context import current_context
from torchestimator.errors import InvalidArgumentError as _InvalidArgumentError
from torchestimator.keras.losses._utils import to_float_tensor as _to_float_tensor


class Reduction:
    """TF1 loss reductions."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple:
        """The known reductions (TF's tuple, which names SUM_BY_NONZERO_WEIGHTS twice, under
        both of its names)."""
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: Any) -> None:
        """Raises ValueError unless `key` is one of `all()`."""
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


_ALL = frozenset(Reduction.all())
#: `ignore_index` for torch's cross entropy that no class id equals (torch ignores -100 by default)
_NO_IGNORED_LABEL = -(2**63)


def _scalar_weighted(losses: torch.Tensor, w: float, reduction: str) -> torch.Tensor:
    """compute_weighted_loss for a Python number `w` (the common case): one reduction kernel."""
    if reduction == Reduction.NONE:
        return losses if w == 1.0 else losses * w
    n = losses.numel()
    if reduction == Reduction.SUM:
        total = losses.sum()
        return total if w == 1.0 else total * w
    if w == 0.0 or n == 0:  # TF divides with div_no_nan: no weight, no loss
        return losses.sum() * 0.0
    mean = losses.mean()
    if reduction == Reduction.MEAN:  # sum(w * l) / sum(w)
        return mean
    return mean if w == 1.0 else mean * w  # SUM_OVER_BATCH_SIZE, SUM_BY_NONZERO_WEIGHTS


def compute_weighted_loss(losses: torch.Tensor, weights: Any = 1.0, scope: Any = None,
                          loss_collection: Any = "losses",
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Weights per-example `losses` and reduces them as `reduction` says. Inside a `model_fn`
    the result joins TF1's LOSSES collection (`get_losses`, `get_total_loss`) unless
    `loss_collection` is None."""
    loss = _weighted(losses, weights, reduction)
    if loss_collection is not None:
        context = current_context()
        if context is not None and context.in_model_fn:
            context.losses.append(loss)
    return loss


def _weighted(losses: torch.Tensor, weights: Any, reduction: str) -> torch.Tensor:
    if reduction not in _ALL:
        raise ValueError(f"Invalid reduction {reduction!r}; expected one of {Reduction.all()}")
    if losses.dtype != torch.float32:
        losses = losses.float()
    if type(weights) in (float, int):
        return _scalar_weighted(losses, float(weights), reduction)
    w = torch.as_tensor(weights, dtype=losses.dtype, device=losses.device)
    while w.ndim < losses.ndim:
        w = w.unsqueeze(-1)
    weighted = losses * w
    if reduction == Reduction.NONE:
        return weighted
    total = weighted.sum()
    if reduction == Reduction.SUM:
        return total
    if reduction == Reduction.MEAN:
        return total / torch.broadcast_to(w, losses.shape).sum().clamp_min(1e-12)
    if reduction == Reduction.SUM_OVER_BATCH_SIZE:
        return total / max(losses.numel(), 1)
    nonzero = (torch.broadcast_to(w, losses.shape) != 0).sum()
    return torch.where(nonzero > 0, total / nonzero.clamp_min(1), torch.zeros_like(total))


def _check_no_nan_labels(labels: torch.Tensor, where: str) -> None:
    """Raises ValueError naming the first NaN of float `labels` (casting one to int64 would
    report it as the label -9223372036854775808)."""
    nan = torch.isnan(labels.reshape(-1))
    if bool(nan.any()):
        position = int(nan.nonzero()[0, 0])
        raise ValueError(
            f"{where}: labels contain NaN ({int(nan.sum())} of {nan.numel()}, the first at "
            f"position {position}). Labels must be class ids in [0, num_classes); fix or drop "
            "the rows with missing labels."
        )


def sparse_softmax_cross_entropy(labels: Any, logits: torch.Tensor, weights: Any = 1.0, scope: Any = None,
                                 loss_collection: Any = "losses",
                                 reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Cross-entropy between integer `labels` (batch,) and `logits` (batch, classes)."""
    logits = _to_float_tensor(logits)
    if not isinstance(labels, torch.Tensor) or labels.device != logits.device:
        labels = torch.as_tensor(labels, device=logits.device)
    if labels.is_floating_point():
        _check_no_nan_labels(labels, "sparse_softmax_cross_entropy")
    labels = labels.long().reshape(-1)
    if labels.shape[0] != logits.shape[0]:
        raise ValueError(
            f"labels of shape {tuple(labels.shape)} do not match logits of shape {tuple(logits.shape)} "
            "in sparse_softmax_cross_entropy"
        )
    classes = logits.shape[-1]
    if labels.numel() and loop.defers_checks(labels.device):  # a bad label would assert on the device
        key = ("sparse_softmax_cross_entropy", classes)
        if loop.check_value_range(labels, key, lambda low, high: _label_error(low, high, classes)):
            labels = labels.clamp(0, classes - 1)
    try:
        if type(weights) in (float, int) and weights == 1 and reduction in (
                Reduction.SUM_BY_NONZERO_WEIGHTS, Reduction.SUM_OVER_BATCH_SIZE, Reduction.MEAN) \
                and labels.shape[0] > 0 and logits.dtype == torch.float32:
            # the mean over the batch, in one kernel; no label value is ignored (torch's -100 is)
            return F.cross_entropy(logits, labels, ignore_index=_NO_IGNORED_LABEL)
        losses = F.cross_entropy(logits, labels, reduction="none", ignore_index=_NO_IGNORED_LABEL)
    except IndexError:  # the CPU's kernel on a label out of range: TF's error, naming it
        error = _label_error(*torch.aminmax(labels), classes)
        if error is None:
            raise
        raise error from None
    return compute_weighted_loss(losses, weights, loss_collection=loss_collection, reduction=reduction)


def _label_error(low: torch.Tensor, high: torch.Tensor, classes: int) -> _InvalidArgumentError | None:
    """TF's error for a class id outside [0, classes), or None when both ends are inside."""
    bad = int(low) if int(low) < 0 else int(high) if int(high) >= classes else None
    if bad is None:
        return None
    return _InvalidArgumentError(
        None, None, f"sparse_softmax_cross_entropy: received a label value of {bad} which is outside "
        f"the valid range of [0, {classes}). Labels are class ids; check the labels or the number "
        "of logits.")


def softmax_cross_entropy(onehot_labels: Any, logits: torch.Tensor, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: Any = None, loss_collection: Any = "losses",
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Cross-entropy between one-hot `onehot_labels` and `logits`."""
    logits = _to_float_tensor(logits)
    target = torch.as_tensor(onehot_labels, dtype=logits.dtype, device=logits.device)
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / target.shape[-1]
    losses = -(target * F.log_softmax(logits, dim=-1)).sum(-1)
    return compute_weighted_loss(losses, weights, loss_collection=loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels: Any, logits: torch.Tensor, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: Any = None, loss_collection: Any = "losses",
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Sigmoid cross-entropy between 0/1 `multi_class_labels` and `logits`."""
    logits = _to_float_tensor(logits)
    target = torch.as_tensor(multi_class_labels, dtype=logits.dtype, device=logits.device).reshape(logits.shape)
    if label_smoothing:
        target = target * (1 - label_smoothing) + 0.5 * label_smoothing
    losses = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
    return compute_weighted_loss(losses, weights, loss_collection=loss_collection, reduction=reduction)


def mean_squared_error(labels: Any, predictions: torch.Tensor, weights: Any = 1.0, scope: Any = None,
                       loss_collection: Any = "losses",
                       reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Squared error between `labels` and `predictions` (same shape)."""
    predictions = _to_float_tensor(predictions)
    labels = torch.as_tensor(labels, dtype=predictions.dtype, device=predictions.device)
    if labels.numel() == predictions.numel():
        labels = labels.reshape(predictions.shape)
    return compute_weighted_loss((predictions - labels) ** 2, weights, loss_collection=loss_collection, reduction=reduction)


def absolute_difference(labels: Any, predictions: torch.Tensor, weights: Any = 1.0, scope: Any = None,
                        loss_collection: Any = "losses",
                        reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Absolute error between `labels` and `predictions`."""
    predictions = _to_float_tensor(predictions)
    labels = torch.as_tensor(labels, dtype=predictions.dtype, device=predictions.device).reshape(predictions.shape)
    return compute_weighted_loss((predictions - labels).abs(), weights, loss_collection=loss_collection, reduction=reduction)


def get_regularization_losses(scope: str | None = None) -> list[torch.Tensor]:
    """The regularization losses of the variables `get_variable` and `tf.compat.v1.layers` made
    with a regularizer (TF1's `REGULARIZATION_LOSSES` collection), optionally filtered by `scope`
    (a regular expression matched against the variable name)."""
    from torchestimator.compat.v1._variable_scope import (  # lazy: heavy (torchestimator.compat.v1._variable_scope, 356 ms)
        regularization_losses,
    )

    return regularization_losses(scope)


def get_regularization_loss(scope: str | None = None, name: str = "total_regularization_loss") -> torch.Tensor:
    """The sum of `get_regularization_losses(scope)` (0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if not losses:
        return torch.tensor(0.0)
    return torch.stack([loss.reshape(()) for loss in losses]).sum()


def get_losses(scope: str | None = None, loss_collection: str = "losses") -> list[torch.Tensor]:
    """The losses `tf.compat.v1.losses.*` made in this `model_fn` call (TF1's LOSSES collection);
    empty outside a model_fn, where nothing is collected. `scope` is accepted for TF1's
    signature (losses carry no name scope here)."""
    context = current_context()
    return list(context.losses) if context is not None and context.in_model_fn else []


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: str | None = None) -> torch.Tensor:
    """The sum of `get_losses()` plus, by default, the regularization losses (TF1's
    `get_total_loss`). Raises ValueError when there is nothing to sum, as TF1 does."""
    parts = [loss.reshape(()) for loss in get_losses(scope)]
    if add_regularization_losses:
        parts.extend(loss.reshape(()) for loss in get_regularization_losses(scope))
    if not parts:
        raise ValueError("No losses were created in this model_fn call and there are no "
                         "regularization losses: nothing for get_total_loss to sum.")
    return torch.stack(parts).sum()



def _pair(labels: Any, predictions: Any, where: str, first: str = "labels",
          second: str = "predictions") -> tuple[torch.Tensor, torch.Tensor]:
    """`labels` and `predictions` as float tensors of one shape; ValueError naming both when
    their shapes are not compatible (TF1's `assert_is_compatible_with`)."""
    if not isinstance(predictions, torch.Tensor):
        predictions = torch.as_tensor(predictions)
    if not predictions.is_floating_point():
        predictions = predictions.float()
    labels = torch.as_tensor(labels, device=predictions.device).to(predictions.dtype)
    if tuple(labels.shape) != tuple(predictions.shape):
        raise ValueError(
            f"{where}: {first} of shape {tuple(labels.shape)} is not compatible with {second} of shape "
            f"{tuple(predictions.shape)}; give them the same shape."
        )
    return labels, predictions


def add_loss(loss: Any, loss_collection: Any = "losses") -> None:
    """Adds an externally defined loss to the collection of losses (inside a `model_fn`,
    TF1's LOSSES collection that `get_losses` and `get_total_loss` read). Returns None."""
    if loss_collection is None:
        return
    context = current_context()
    if context is not None and context.in_model_fn:
        context.losses.append(torch.as_tensor(loss))


def cosine_distance(labels: Any, predictions: Any, axis: int | None = None, weights: Any = 1.0,
                    scope: Any = None, loss_collection: Any = "losses",
                    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS, dim: int | None = None) -> torch.Tensor:
    """Adds a cosine-distance loss to the training procedure: `1 - sum(labels * predictions,
    axis)` per example (both assumed unit-normalized), weighted and reduced. `dim` is the
    deprecated name of `axis`."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    labels, predictions = _pair(labels, predictions, "cosine_distance")
    losses = 1 - (labels * predictions).sum(dim=axis, keepdim=True)
    return compute_weighted_loss(losses, weights, loss_collection=loss_collection, reduction=reduction)


def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: Any = None,
               loss_collection: Any = "losses",
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Adds a hinge loss: `max(0, 1 - (2 * labels - 1) * logits)` per element, for 0/1
    `labels` and unscaled `logits` of the same shape."""
    labels, logits = _pair(labels, logits, "hinge_loss", second="logits")
    losses = torch.relu(1 - (2 * labels - 1) * logits)
    return compute_weighted_loss(losses, weights, loss_collection=loss_collection, reduction=reduction)


def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: float = 1.0, scope: Any = None,
               loss_collection: Any = "losses",
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Adds a Huber loss: `0.5 * x**2` where `|x| <= delta`, else `0.5 * delta**2 + delta *
    (|x| - delta)`, for the error `x = predictions - labels`."""
    labels, predictions = _pair(labels, predictions, "huber_loss")
    error = (predictions - labels).abs()
    quadratic = torch.clamp(error, max=delta)
    losses = 0.5 * quadratic ** 2 + delta * (error - quadratic)
    return compute_weighted_loss(losses, weights, loss_collection=loss_collection, reduction=reduction)


def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: float = 1e-7, scope: Any = None,
             loss_collection: Any = "losses",
             reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> torch.Tensor:
    """Adds a log loss: `-labels * log(predictions + epsilon) - (1 - labels) *
    log(1 - predictions + epsilon)` per element."""
    labels, predictions = _pair(labels, predictions, "log_loss")
    losses = -labels * torch.log(predictions + epsilon) - (1 - labels) * torch.log(1 - predictions + epsilon)
    return compute_weighted_loss(losses, weights, loss_collection=loss_collection, reduction=reduction)


def mean_pairwise_squared_error(labels: Any, predictions: Any, weights: Any = 1.0, scope: Any = None,
                                loss_collection: Any = "losses") -> torch.Tensor:
    """Adds a pairwise-errors-squared loss: for each example, the mean over all pairs of its
    elements `(i, j)` of `((predictions[i] - predictions[j]) - (labels[i] - labels[j]))**2`,
    times the example's weight, summed over the batch (TF1's formula; `weights` is a scalar
    or broadcasts against the per-example loss of shape `[batch, 1, ...]`)."""
    labels, predictions = _pair(labels, predictions, "mean_pairwise_squared_error")
    diffs = predictions - labels
    axes = tuple(range(1, diffs.ndim))
    w = torch.as_tensor(weights, dtype=diffs.dtype, device=diffs.device)
    present = torch.broadcast_to((w != 0).to(diffs.dtype), diffs.shape) if w.ndim <= diffs.ndim else None
    if present is None:
        raise ValueError(f"mean_pairwise_squared_error: weights of shape {tuple(w.shape)} do not "
                         f"broadcast to predictions of shape {tuple(diffs.shape)}.")
    if axes:
        num_present = present.sum(dim=axes, keepdim=True)
        sum_squares = diffs.square().sum(dim=axes, keepdim=True)
        sum_diff = diffs.sum(dim=axes, keepdim=True)
    else:
        num_present, sum_squares, sum_diff = present, diffs.square(), diffs

    def div_no_nan(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.where(b != 0, a / torch.where(b != 0, b, torch.ones_like(b)), torch.zeros_like(a))

    term1 = 2.0 * div_no_nan(sum_squares, torch.clamp(num_present - 1, min=0))
    term2 = 2.0 * div_no_nan(sum_diff.square(), torch.clamp(num_present * (num_present - 1), min=0))
    loss = ((term1 - term2) * w).sum()
    loss = torch.where(num_present.sum() > 0, loss, torch.zeros_like(loss))
    add_loss(loss, loss_collection)
    return loss
