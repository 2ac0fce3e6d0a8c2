"""Regression and distribution losses as functions: one value per sample (the last axis reduced).

Each takes `(y_true, y_pred)` (tensors, arrays or lists) and returns a torch
tensor of shape `y_pred.shape[:-1]`, computed as Keras 2.15 computes it
(including where Keras clips with epsilon = 1e-7).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._ops import linalg_ops as _linalg_ops
from torchestimator.keras.backend._state import epsilon
from torchestimator.keras.losses._utils import check_broadcastable, convert_pair


def mean_squared_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the mean squared error between labels and predictions.

    `loss = mean(square(y_true - y_pred), axis=-1)`. Returns the error values,
    of shape `[batch_size, d0, .. dN-1]`.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "mean_squared_error")
    return torch.mean(torch.square(y_pred - y_true), dim=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the mean absolute error between labels and predictions.

    `loss = mean(abs(y_true - y_pred), axis=-1)`. Returns the error values,
    of shape `[batch_size, d0, .. dN-1]`.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "mean_absolute_error")
    return torch.mean(torch.abs(y_pred - y_true), dim=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the mean absolute percentage error between `y_true` and `y_pred`.

    `loss = 100 * mean(abs((y_true - y_pred) / y_true), axis=-1)`, the
    denominator floored at epsilon. Returns values of shape `[batch_size, d0, .. dN-1]`.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "mean_absolute_percentage_error")
    diff = torch.abs((y_true - y_pred) / torch.clamp_min(torch.abs(y_true), epsilon()))
    return 100.0 * torch.mean(diff, dim=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the mean squared logarithmic error between `y_true` and `y_pred`.

    `loss = mean(square(log(y_true + 1) - log(y_pred + 1)), axis=-1)`, both
    floored at epsilon first. Returns values of shape `[batch_size, d0, .. dN-1]`.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "mean_squared_logarithmic_error")
    first_log = torch.log(torch.clamp_min(y_pred, epsilon()) + 1.0)
    second_log = torch.log(torch.clamp_min(y_true, epsilon()) + 1.0)
    return torch.mean(torch.square(first_log - second_log), dim=-1)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> torch.Tensor:
    """Computes the Huber loss: quadratic for errors up to `delta`, linear beyond.

    For each `x = y_pred - y_true`: `0.5 * x^2` if `|x| <= delta`, else
    `delta * |x| - 0.5 * delta^2`; averaged over the last axis. Returns one
    value per sample.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "huber")
    error = y_pred - y_true
    abs_error = torch.abs(error)
    quadratic = 0.5 * torch.square(error)
    linear = delta * abs_error - 0.5 * delta * delta
    return torch.mean(torch.where(abs_error <= delta, quadratic, linear), dim=-1)


def log_cosh(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Logarithm of the hyperbolic cosine of the prediction error, averaged over the last axis.

    `log(cosh(x))` is about `x ** 2 / 2` for small `x` and `abs(x) - log(2)` for
    large `x`. Returns values of shape `[batch_size, d0, .. dN-1]`.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "log_cosh")
    x = y_pred - y_true
    return torch.mean(x + F.softplus(-2.0 * x) - math.log(2.0), dim=-1)


def kl_divergence(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the Kullback-Leibler divergence between `y_true` and `y_pred`.

    `loss = sum(y_true * log(y_true / y_pred), axis=-1)`, both clipped to
    `[epsilon, 1]`. Returns one value per sample.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "kl_divergence")
    y_true = torch.clamp(y_true, epsilon(), 1.0)
    y_pred = torch.clamp(y_pred, epsilon(), 1.0)
    return torch.sum(y_true * torch.log(y_true / y_pred), dim=-1)


def poisson(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the Poisson loss: `mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)`.

    Returns one value per sample.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "poisson")
    return torch.mean(y_pred - y_true * torch.log(y_pred + epsilon()), dim=-1)


def l2_normalize(x: torch.Tensor, axis: int = -1) -> torch.Tensor:
    """Returns `x / sqrt(max(sum(x ** 2, axis), 1e-12))`, TF's `tf.math.l2_normalize`."""
    return _linalg_ops.l2_normalize(x, axis)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> torch.Tensor:
    """Computes the cosine similarity loss: `-sum(l2_norm(y_true) * l2_norm(y_pred), axis)`.

    A number between -1 and 1; values closer to -1 mean greater similarity, 0
    means orthogonal (or a zero vector). Returns one value per sample.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "cosine_similarity")
    return -torch.sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), dim=axis)


def hinge(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the hinge loss: `mean(maximum(1 - y_true * y_pred, 0), axis=-1)`.

    Labels are expected to be -1 or 1; binary 0/1 labels are converted to -1/1.
    Returns one value per sample.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "hinge")
    y_true = _maybe_convert_labels(y_true)
    return torch.mean(torch.clamp_min(1.0 - y_true * y_pred, 0.0), dim=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the squared hinge loss: `mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)`.

    Labels are expected to be -1 or 1; binary 0/1 labels are converted to -1/1.
    Returns one value per sample.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "squared_hinge")
    y_true = _maybe_convert_labels(y_true)
    return torch.mean(torch.square(torch.clamp_min(1.0 - y_true * y_pred, 0.0)), dim=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> torch.Tensor:
    """Computes the categorical hinge loss: `maximum(neg - pos + 1, 0)`.

    `pos = sum(y_true * y_pred, axis=-1)`, `neg = max((1 - y_true) * y_pred, axis=-1)`;
    labels are one-hot (0/1 or -1/+1). Returns one value per sample.
    """
    y_true, y_pred = convert_pair(y_true, y_pred)
    check_broadcastable(y_true, y_pred, "categorical_hinge")
    pos = torch.sum(y_true * y_pred, dim=-1)
    neg = torch.amax((1.0 - y_true) * y_pred, dim=-1)
    return torch.clamp_min(neg - pos + 1.0, 0.0)


def _maybe_convert_labels(y_true: torch.Tensor) -> torch.Tensor:
    """Converts 0/1 labels to -1/1 when every label is 0 or 1 (decided on the device, no sync)."""
    is_binary = torch.all((y_true == 0) | (y_true == 1))
    return torch.where(is_binary, 2.0 * y_true - 1.0, y_true)

