"""Crossentropy losses as functions: binary, binary focal, categorical, categorical focal, sparse.

Numbers follow Keras 2.15: probabilities are clipped to `[epsilon, 1 - epsilon]`
(epsilon = 1e-7) when `from_logits=False`; logits go through torch's fused
kernels (`binary_cross_entropy_with_logits`, `cross_entropy`). A prediction
tensor that carries `_keras_logits` (set by a softmax or sigmoid activation,
as Keras does) is treated as those logits, which is also what Keras does.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._engine import loop
from torchestimator.keras.backend._state import epsilon
from torchestimator.keras.engine import one_hot_labels
from torchestimator.keras.losses._utils import (
    check_broadcastable,
    check_same_shape,
    convert_pair,
    shape_of,
    to_float_tensor,
    to_tensor,
)

_SPARSE_HINT = (
    "The labels look like integer class ids: use sparse_categorical_crossentropy, or one-hot "
    "encode them with tf.keras.utils.to_categorical."
)


def _get_logits(output: torch.Tensor, from_logits: bool, op_type: str, fn_name: str):
    """Returns `(output, from_logits)`, swapping in `output._keras_logits` when it exists."""
    logits = getattr(output, "_keras_logits", None)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(
            f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced by '
            f'a {op_type} activation and thus does not represent logits. Was this intended?',
            stacklevel=3,
        )
    return logits, True


def _backend_binary_crossentropy(
    target: torch.Tensor, output: torch.Tensor, from_logits: bool = False
) -> torch.Tensor:
    """Element-wise binary crossentropy, Keras backend style (no reduction)."""
    output, from_logits = _get_logits(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        if output.shape != target.shape:
            output, target = torch.broadcast_tensors(output, target)
        return F.binary_cross_entropy_with_logits(output, target, reduction="none")
    eps = epsilon()
    output = torch.clamp(output, eps, 1.0 - eps)
    bce = target * torch.log(output + eps)
    bce = bce + (1.0 - target) * torch.log(1.0 - output + eps)
    return -bce


def _smooth_binary(y_true: torch.Tensor, label_smoothing: Any) -> torch.Tensor:
    if isinstance(label_smoothing, torch.Tensor) or label_smoothing:
        return y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return y_true


def binary_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> torch.Tensor:
    """Computes the binary crossentropy loss, averaged over `axis`.

    `label_smoothing` > 0 squeezes the labels towards 0.5 (`1 - 0.5 * ls` for
    the target class, `0.5 * ls` for the other). Returns values of shape
    `[batch_size, d0, .. dN-1]`.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "binary_crossentropy")
    y_true = _smooth_binary(y_true, label_smoothing)
    return torch.mean(_backend_binary_crossentropy(y_true, y_pred, from_logits), dim=axis)


def binary_crossentropy_batch_mean(
    y_true: torch.Tensor, y_pred: torch.Tensor, from_logits: bool = False, label_smoothing: float = 0.0,
    axis: int = -1,
) -> torch.Tensor | None:
    """The mean over the batch of `binary_crossentropy(y_true, y_pred, ...)` in one torch kernel
    (the mean of every element: each sample's mean over the last axis, averaged), for 2-D
    same-shaped float tensors of one dtype whose logits are known, without label smoothing;
    None when the general function must run."""
    logits = _batch_mean_logits(y_true, y_pred, from_logits, label_smoothing, axis)
    if logits is None or logits.shape != y_pred.shape:
        return None
    return F.binary_cross_entropy_with_logits(logits, y_true, reduction="mean")


def _batch_mean_logits(y_true: torch.Tensor, y_pred: torch.Tensor, from_logits: bool, label_smoothing: float,
                       axis: int) -> torch.Tensor | None:
    """The logits a one-kernel batch mean of a crossentropy computes from: for 2-D same-shaped
    tensors, no label smoothing, the class axis last, and logits known (`from_logits`, or carried
    by a softmax/sigmoid output) in the labels' floating dtype; None otherwise."""
    if (label_smoothing or axis not in (-1, 1) or y_pred.ndim != 2 or y_true.shape != y_pred.shape
            or not y_pred.numel()):
        return None
    logits = getattr(y_pred, "_keras_logits", None)
    if logits is None:
        if not from_logits:
            return None  # probabilities: the clipped log of the general path
        logits = y_pred
    elif from_logits:
        return None  # the general path warns about this
    if y_true.dtype != logits.dtype or not logits.is_floating_point():
        return None
    return logits


def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> torch.Tensor:
    """Computes the binary focal crossentropy loss (Lin et al., 2018), averaged over `axis`.

    The binary crossentropy is scaled by `(1 - p_t) ** gamma`, and by `alpha`
    (class 1) / `1 - alpha` (class 0) when `apply_class_balancing`. Returns
    values of shape `[batch_size, d0, .. dN-1]`.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "binary_focal_crossentropy")
    y_true = _smooth_binary(y_true, label_smoothing)
    sigmoidal = torch.sigmoid(y_pred) if from_logits else y_pred
    p_t = y_true * sigmoidal + (1.0 - y_true) * (1.0 - sigmoidal)
    focal_factor = torch.pow(1.0 - p_t, gamma)
    focal_bce = focal_factor * _backend_binary_crossentropy(y_true, y_pred, from_logits)
    if apply_class_balancing:
        weight = y_true * alpha + (1.0 - y_true) * (1.0 - alpha)
        focal_bce = weight * focal_bce
    return torch.mean(focal_bce, dim=axis)


def _check_axis(axis: Any) -> None:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis!r} of type {type(axis)}")


def _categorical_inputs(y_true: Any, y_pred: Any, fn_name: str, axis: int):
    _check_axis(axis)
    y_true, y_pred = convert_pair(y_true, y_pred)
    if y_pred.dim() > 0 and y_pred.shape[-1] == 1:
        warnings.warn(
            f"In loss {fn_name}, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={shape_of(y_pred)}. Consider using "
            "'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning,
            stacklevel=3,
        )
    hint = _SPARSE_HINT if (
        y_true.dim() == y_pred.dim() - 1 or (y_true.dim() > 0 and y_true.shape[-1] == 1)
    ) else ""
    check_same_shape(y_true, y_pred, fn_name, hint)
    return y_true, y_pred


def _softmax_cross_entropy_with_logits(labels: torch.Tensor, logits: torch.Tensor, axis: int):
    """`-sum(labels * log_softmax(logits), axis)` through torch's fused `cross_entropy`."""
    if logits.dim() >= 2:
        ax = axis % logits.dim()
        if ax != 1:
            logits = logits.movedim(ax, 1)
            labels = labels.movedim(ax, 1)
    return F.cross_entropy(logits, labels, reduction="none")


def categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> torch.Tensor:
    """Computes the categorical crossentropy loss between one-hot labels and predictions.

    With `from_logits=False` the predictions are rescaled to sum to 1 and
    clipped to `[epsilon, 1 - epsilon]`. `label_smoothing` > 0 uses
    `ls / num_classes` for non-target and `1 - ls + ls / num_classes` for target
    labels. Returns one value per sample (the class axis reduced).
    """
    y_true, y_pred = _categorical_inputs(y_true, y_pred, "categorical_crossentropy", axis)
    if isinstance(label_smoothing, torch.Tensor) or label_smoothing:
        num_classes = y_true.shape[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return _softmax_cross_entropy_with_logits(y_true, output, axis)
    eps = epsilon()
    output = output / torch.sum(output, dim=axis, keepdim=True)
    output = torch.clamp(output, eps, 1.0 - eps)
    return -torch.sum(y_true * torch.log(output), dim=axis)


def categorical_crossentropy_batch_mean(
    y_true: torch.Tensor, y_pred: torch.Tensor, from_logits: bool = False, label_smoothing: float = 0.0,
    axis: int = -1,
) -> torch.Tensor | None:
    """The mean over the batch of `categorical_crossentropy(y_true, y_pred, ...)` in one torch
    kernel, for the case `fit` meets most (2-D same-shaped float tensors of one dtype, the
    logits known, no label smoothing); None when the general function must run (it then also
    gives the warnings and errors)."""
    if y_pred.ndim == 2 and y_pred.shape[1] == 1:
        return None  # the general path warns about one class
    logits = _batch_mean_logits(y_true, y_pred, from_logits, label_smoothing, axis)
    if logits is None:
        return None
    ids = one_hot_labels.class_ids(y_true)
    if ids is not None and ids.shape[0] == logits.shape[0]:  # exactly one-hot: the class-id kernel
        return F.cross_entropy(logits, ids, reduction="mean")
    return F.cross_entropy(logits, y_true, reduction="mean")


def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: Any = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> torch.Tensor:
    """Computes the categorical focal crossentropy: `alpha * (1 - p) ** gamma * crossentropy`.

    `alpha` is a float or one weight per class. Returns one value per sample.
    """
    y_true, y_pred = _categorical_inputs(y_true, y_pred, "categorical_focal_crossentropy", axis)
    if isinstance(label_smoothing, torch.Tensor) or label_smoothing:
        num_classes = y_true.shape[-1]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    output = torch.softmax(y_pred, dim=axis) if from_logits else y_pred
    output = output / torch.sum(output, dim=axis, keepdim=True)
    eps = epsilon()
    output = torch.clamp(output, eps, 1.0 - eps)
    cce = -y_true * torch.log(output)
    if not isinstance(alpha, (int, float)):
        alpha = to_tensor(alpha, dtype=output.dtype, device=output.device)
    focal = torch.pow(1.0 - output, gamma) * alpha * cce
    return torch.sum(focal, dim=axis)


def _label_range_error(bad: float, num_classes: int) -> ValueError:
    return ValueError(
        f"sparse_categorical_crossentropy: received a label value of {bad}, outside the valid "
        f"range [0, {num_classes}) for predictions with {num_classes} classes."
    )


def _labels_checked_on_accelerator(given: torch.Tensor, target: torch.Tensor, num_classes: int,
                                   ignore_class: int | None) -> torch.Tensor:
    """The labels' range check where an out-of-range label would be a device-side assert (CUDA)
    instead of the CPU's error: deferred in the training loop, the labels clamped meanwhile (an
    `ignore_class` label kept), read back at once outside it (`loop.check_value_range`).
    Returns the class ids to give the kernel."""
    checked = given if ignore_class is None else torch.where(given == ignore_class, 0, given)

    def verdict(low: torch.Tensor, high: torch.Tensor) -> ValueError | None:
        low, high = low.item(), high.item()
        if math.isnan(low) or low < 0:
            return _label_range_error(low, num_classes)
        if math.isnan(high) or high >= num_classes:
            return _label_range_error(high, num_classes)
        return None

    key = ("sparse_categorical_crossentropy", num_classes, ignore_class, checked.dtype)
    if not loop.check_value_range(checked, key, verdict):
        return target
    clamped = target.clamp(0, num_classes - 1)
    return clamped if ignore_class is None else torch.where(target == ignore_class, target, clamped)


def sparse_categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    axis: int = -1,
    ignore_class: int | None = None,
) -> torch.Tensor:
    """Computes the crossentropy between integer labels and class predictions.

    `y_true` holds class ids of shape `y_pred.shape[:-1]` (or with a trailing
    1); `ignore_class` ids contribute 0 and are masked out of the mean. Returns
    one value per label.
    """
    flat, target, lead_shape = _sparse_logits_and_ids(y_true, y_pred, from_logits, axis, ignore_class)
    ignore_index = -100 if ignore_class is None else int(ignore_class)
    res = F.cross_entropy(flat, target, reduction="none", ignore_index=ignore_index)
    res = res.reshape(lead_shape)
    if ignore_class is not None:
        res._keras_mask = (target != ignore_class).reshape(lead_shape)
    return res


def sparse_categorical_crossentropy_batch_mean(
    y_true: torch.Tensor, y_pred: torch.Tensor, from_logits: bool = False, axis: int = -1,
    ignore_class: int | None = None,
) -> torch.Tensor | None:
    """The mean over the batch of `sparse_categorical_crossentropy(y_true, y_pred, ...)` with
    the mean taken inside torch's kernel (no separate mean forward and backward), for fit's
    most common loss; None with an `ignore_class` (its mask weighs the mean), where the general
    function must run."""
    if ignore_class is not None or not y_pred.numel():
        return None
    flat, target, _ = _sparse_logits_and_ids(y_true, y_pred, from_logits, axis, None)
    return F.cross_entropy(flat, target, reduction="mean")


def _sparse_logits_and_ids(y_true: Any, y_pred: Any, from_logits: bool, axis: int,
                           ignore_class: int | None) -> tuple[torch.Tensor, torch.Tensor, torch.Size]:
    """`sparse_categorical_crossentropy`'s inputs checked and flattened: (log-probabilities or
    logits as (rows, classes), the class ids as int64 (rows,), the predictions' shape without
    the class axis). Labels out of range raise (deferred in the loop on an accelerator)."""
    _check_axis(axis)
    y_pred = to_float_tensor(y_pred)
    target = to_tensor(y_true, device=y_pred.device)
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax",
                                      "sparse_categorical_crossentropy")
    if not from_logits:
        eps = epsilon()
        output = torch.log(torch.clamp(output, eps, 1.0 - eps))
    rank = output.dim()
    if rank == 0:
        raise ValueError("sparse_categorical_crossentropy: y_pred must have a class axis; "
                         "received a scalar.")
    ax = axis % rank
    if ax != rank - 1:
        output = output.movedim(ax, -1)
    lead_shape = output.shape[:-1]
    num_classes = output.shape[-1]
    if target.dim() == rank - 1 and target.shape != lead_shape or (
        target.dim() != rank - 1 and target.numel() != math.prod(lead_shape)
    ):
        raise ValueError(
            f"sparse_categorical_crossentropy: labels (y_true) of shape {shape_of(target)} do not "
            f"fit predictions (y_pred) of shape {shape_of(y_pred)}: expected one integer class id "
            f"per prediction row, i.e. shape {tuple(lead_shape)} or {tuple(lead_shape) + (1,)}. "
            "For one-hot labels use categorical_crossentropy."
        )
    given = target.reshape(-1) if target.dim() != 1 else target
    target = given.long() if given.dtype != torch.int64 else given
    flat = output.reshape(-1, num_classes) if rank != 2 else output  # a view costs, with autograd
    if target.numel() and not loop.defers_checks(target.device):
        ids = target.detach().numpy()  # on the host: numpy's min and max cost less than torch's ops
        if 0 <= ids.min() and ids.max() < num_classes:
            return flat, target, lead_shape
        invalid = (target < 0) | (target >= num_classes)
        if ignore_class is not None:
            invalid &= target != ignore_class
        if bool(invalid.any()):
            # the label as given (a NaN is `nan`, not int64 min)
            raise _label_range_error(given[invalid][0].item(), num_classes)
    elif target.numel():
        target = _labels_checked_on_accelerator(given, target, num_classes, ignore_class)
    return flat, target, lead_shape
