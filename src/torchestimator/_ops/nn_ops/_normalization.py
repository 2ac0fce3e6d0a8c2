"""tf.nn's moments and normalization: moments, sufficient statistics, batch and local response
normalization, zero_fraction."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._ops._reduction import moment_axes
from torchestimator._ops.nn_ops._common import Tensor, _floating, _like, _numeric, _tensor
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- normalization


def moments(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Calculates the mean and variance of `x` over `axes` (`shift` is unused, as in TF 2).

    float16/bfloat16 inputs are computed in float32; integer inputs give integer results
    (truncating division), as TF.

    Returns:
        Two tensors, `mean` and `variance`.
    """
    op = "moments"
    x = _numeric(x, op, "x")
    dims = moment_axes(axes, x.ndim, op)
    if not dims:
        return x, torch.zeros_like(x)
    if x.is_floating_point():
        work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        variance, mean = torch.var_mean(work, dim=dims, correction=0, keepdim=keepdims)
        if work is not x:
            mean, variance = mean.to(x.dtype), variance.to(x.dtype)
        return mean, variance
    count = math.prod(x.shape[d] for d in dims)
    mean = torch.div(x.sum(dim=dims, keepdim=True, dtype=x.dtype), count, rounding_mode="trunc")
    variance = torch.div(
        ((x - mean) ** 2).sum(dim=dims, keepdim=keepdims, dtype=x.dtype),
        count,
        rounding_mode="trunc",
    )
    return (mean if keepdims else mean.squeeze(dims)), variance


def sufficient_statistics(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor, Any]:
    """Calculates the sufficient statistics for the mean and variance of `x`: the count of
    elements reduced, the (shifted) sum and the (shifted) sum of squares, and the shift.

    Returns:
        `(count, mean_ss, variance_ss, shift)`; `shift` is None when not given.
    """
    op = "sufficient_statistics"
    x = _floating(x, op, "x")
    dims = moment_axes(axes, x.ndim, op)
    count = torch.tensor(float(math.prod(x.shape[d] for d in dims)), dtype=x.dtype, device=x.device)
    shifted = x if shift is None else x - _like(shift, x, "shift")
    mean_ss = shifted.sum(dim=dims, keepdim=keepdims) if dims else shifted
    variance_ss = shifted.square().sum(dim=dims, keepdim=keepdims) if dims else shifted.square()
    return count, mean_ss, variance_ss, shift


def normalize_moments(
    counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Calculates the mean and variance from the sufficient statistics.

    Returns:
        Two tensors, `mean` and `variance`.
    """
    mean_ss = _floating(mean_ss, "normalize_moments", "mean_ss")
    divisor = 1.0 / _like(counts, mean_ss, "counts")
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + _like(shift, mean_ss, "shift")
    variance = _like(variance_ss, mean_ss, "variance_ss") * divisor - shifted_mean.square()
    return mean, variance


def weighted_moments(
    x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Returns the frequency-weighted mean and variance of `x` over `axes`.

    Returns:
        Two tensors, `weighted_mean` and `weighted_variance`.
    """
    op = "weighted_moments"
    x = _floating(x, op, "x")
    weights = _like(frequency_weights, x, "frequency_weights")
    dims = moment_axes(axes, x.ndim, op)
    weights = torch.broadcast_to(torch.as_tensor(weights, dtype=x.dtype, device=x.device), x.shape)
    total = weights.sum(dim=dims, keepdim=True)
    safe = torch.where(total == 0, torch.ones_like(total), total)
    mean = torch.where(
        total == 0, torch.zeros_like(total), (x * weights).sum(dim=dims, keepdim=True) / safe
    )
    variance = (weights * (x - mean).square()).sum(dim=dims, keepdim=True)
    variance = torch.where(total == 0, torch.zeros_like(total), variance / safe)
    if not keepdims:
        mean, variance = mean.squeeze(dims), variance.squeeze(dims)
    return mean, variance


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: float,
    name: str | None = None,
) -> Tensor:
    """Batch normalization: `scale * (x - mean) / sqrt(variance + variance_epsilon) + offset`,
    computed as TF does, `x * inv + (offset - mean * inv)` with `inv = scale * rsqrt(...)`.

    Returns:
        The normalized, scaled, offset tensor, of `x`'s type.
    """
    op = "batch_normalization"
    x = _numeric(x, op, "x")
    work_ref = x if x.is_floating_point() else torch.empty((), dtype=torch.float32, device=x.device)
    mean = _stat(mean, work_ref, "mean")
    variance = _stat(variance, work_ref, "variance")
    inv = torch.rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * _stat(scale, work_ref, "scale")
    shift = -mean * inv if offset is None else _stat(offset, work_ref, "offset") - mean * inv
    if inv.dtype is not x.dtype:
        inv, shift = inv.to(x.dtype), shift.to(x.dtype)
    return x * inv + shift


def _stat(value: Any, ref: Tensor, name: str) -> Tensor:
    if isinstance(value, Tensor):
        return value if value.device == ref.device else value.to(ref.device)
    return torch.as_tensor(np.asarray(value), device=ref.device).to(ref.dtype)


def local_response_normalization(
    input: Any,
    depth_radius: int = 5,
    bias: float = 1,
    alpha: float = 1,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """Local Response Normalization over the last (depth) dimension of a 4-D input:
    `input / (bias + alpha * sqr_sum) ** beta`, `sqr_sum` the sum of squares over
    `[d - depth_radius, d + depth_radius]`.

    Returns:
        A tensor with the same type and shape as `input`.
    """
    op = "local_response_normalization"
    x = _floating(input, op, "input")
    if x.ndim != 4:
        raise InvalidArgumentError(
            None, None, f"{op}: input must be 4-dimensional, got shape {list(x.shape)}."
        )
    depth = x.shape[-1]
    radius = int(depth_radius)
    squares = x.square().reshape(-1, 1, depth)
    window = 2 * radius + 1
    sums = F.avg_pool1d(F.pad(squares, (radius, radius)), window, 1) * window
    return x / (bias + alpha * sums.reshape(x.shape)) ** beta


lrn = local_response_normalization


def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """Returns the fraction of zeros in `value`.

    Returns:
        A float32 scalar tensor.
    """
    value = _tensor(value, "zero_fraction", "value")
    if value.numel() == 0:
        return torch.tensor(math.nan, dtype=torch.float32, device=value.device)
    return (value == 0).sum(dtype=torch.float64).div(value.numel()).to(torch.float32)
