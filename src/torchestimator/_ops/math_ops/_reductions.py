"""tf.math's reductions: reduce_sum / mean / max / min / prod / any / all / logsumexp / variance /
std / euclidean_norm and count_nonzero, with TF's axes and integer rules."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops._reduction import all_axes, reduced_count, reduced_shape, reduction_axes
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator._ops.math_ops._common import (
    _FLOAT_COMPLEX,
    _FLOATS,
    _INTS,
    _NUMERIC,
    _ONLY_BOOL,
    _REAL,
    Tensor,
    _tensor,
)


# --------------------------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------------------------
def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the sum of elements across dimensions of a tensor (TF's `tf.math.reduce_sum`).

    `axis=None` reduces every dimension; negative axes count from the end.
    Integer sums stay in the input dtype (overflow wraps, as TF).

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = input_tensor if isinstance(input_tensor, Tensor) and input_tensor.dtype in _NUMERIC \
        else _tensor(input_tensor, "reduce_sum", _NUMERIC)
    if axis is None:
        result = torch.sum(x, dtype=x.dtype)
        return result.reshape([1] * x.dim()) if keepdims else result
    dims = reduction_axes(axis, x.dim(), "reduce_sum")
    if not dims:
        return x
    return torch.sum(x, dim=dims, keepdim=builtins.bool(keepdims), dtype=x.dtype)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                name: str | None = None) -> Tensor:
    """Computes the mean of elements across dimensions of a tensor (TF's `tf.math.reduce_mean`).

    The mean of an integer tensor is an integer of the same dtype (the sum
    divided by the count, truncated toward zero), as in TF; the mean over no
    elements is NaN for floats and 0 for integers.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = input_tensor if isinstance(input_tensor, Tensor) and input_tensor.dtype in _NUMERIC \
        else _tensor(input_tensor, "reduce_mean", _NUMERIC)
    dims = reduction_axes(axis, x.dim(), "reduce_mean")
    keep = builtins.bool(keepdims)
    if dims is not None and not dims:
        return x
    if x.dtype in _INTS:
        count = reduced_count(x, dims)
        total = torch.sum(x, dim=all_axes(x, dims), keepdim=keep, dtype=torch.int64)
        if count == 0:
            return torch.zeros_like(total, dtype=x.dtype)
        return torch.div(total, count, rounding_mode="trunc").to(x.dtype)
    if dims is None:
        result = torch.mean(x)
        return result.reshape([1] * x.dim()) if keep else result
    return torch.mean(x, dim=dims, keepdim=keep)


def _extreme(x: Tensor, largest: builtins.bool) -> Any:
    if x.dtype in _FLOATS:
        return float("-inf") if largest else float("inf")
    info = torch.iinfo(x.dtype)
    return info.min if largest else info.max


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the maximum of elements across dimensions of a tensor (TF's
    `tf.math.reduce_max`); NaN propagates; the max over no elements is -inf (the dtype's lowest
    value for integers).

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_max", _REAL)
    dims = reduction_axes(axis, x.dim(), "reduce_max")
    if dims is not None and not dims:
        return x
    if x.numel() == 0:
        return torch.full(reduced_shape(x, dims, keepdims), _extreme(x, True), dtype=x.dtype,
                          device=x.device)
    return torch.amax(x, dim=all_axes(x, dims), keepdim=builtins.bool(keepdims))


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the minimum of elements across dimensions of a tensor (TF's
    `tf.math.reduce_min`); NaN propagates; the min over no elements is +inf (the dtype's highest
    value for integers).

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_min", _REAL)
    dims = reduction_axes(axis, x.dim(), "reduce_min")
    if dims is not None and not dims:
        return x
    if x.numel() == 0:
        return torch.full(reduced_shape(x, dims, keepdims), _extreme(x, False), dtype=x.dtype,
                          device=x.device)
    return torch.amin(x, dim=all_axes(x, dims), keepdim=builtins.bool(keepdims))


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                name: str | None = None) -> Tensor:
    """Computes the product of elements across dimensions of a tensor (TF's
    `tf.math.reduce_prod`); the product over no elements is 1.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_prod", _NUMERIC)
    dims = reduction_axes(axis, x.dim(), "reduce_prod")
    keep = builtins.bool(keepdims)
    if dims is not None and not dims:
        return x
    if dims is None or len(dims) == x.dim():
        result = torch.prod(x, dtype=x.dtype)
        return result.reshape([1] * x.dim()) if keep else result
    if len(dims) == 1:
        return torch.prod(x, dim=dims[0], keepdim=keep, dtype=x.dtype)
    # several (not all) axes: move them to the end, flatten them and take one product
    rest = [i for i in builtins.range(x.dim()) if i not in dims]
    moved = x.permute(*rest, *dims).reshape(*[x.shape[i] for i in rest], -1)
    result = torch.prod(moved, dim=-1, dtype=x.dtype)
    return result.reshape(reduced_shape(x, dims, True)) if keep else result


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the logical or of elements across dimensions of a bool tensor (TF's
    `tf.math.reduce_any`); False over no elements.

    Returns:
        A bool tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_any", _ONLY_BOOL)
    dims = reduction_axes(axis, x.dim(), "reduce_any")
    if dims is not None and not dims:
        return x
    return torch.any(x, dim=all_axes(x, dims), keepdim=builtins.bool(keepdims)) if x.dim() \
        else x.clone()


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the logical and of elements across dimensions of a bool tensor (TF's
    `tf.math.reduce_all`); True over no elements.

    Returns:
        A bool tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_all", _ONLY_BOOL)
    dims = reduction_axes(axis, x.dim(), "reduce_all")
    if dims is not None and not dims:
        return x
    return torch.all(x, dim=all_axes(x, dims), keepdim=builtins.bool(keepdims)) if x.dim() \
        else x.clone()


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                     name: str | None = None) -> Tensor:
    """Computes log(sum(exp(elements across dimensions of a tensor))), numerically stable (TF's
    `tf.math.reduce_logsumexp`); -inf over no elements.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_logsumexp", _FLOATS)
    dims = reduction_axes(axis, x.dim(), "reduce_logsumexp")
    if dims is not None and not dims:
        return x
    if x.dim() == 0:
        return x.clone()
    return torch.logsumexp(x, dim=all_axes(x, dims), keepdim=builtins.bool(keepdims))


def _float_or_complex(input_tensor: Any, op: str) -> Tensor:
    x = input_tensor if isinstance(input_tensor, Tensor) else convert_to_tensor(input_tensor)
    if isinstance(x, np.ndarray) or x.dtype not in _FLOAT_COMPLEX:
        kind = "integer" if not isinstance(x, np.ndarray) and x.dtype in _INTS else "non-numeric"
        shown = "string" if isinstance(x, np.ndarray) else dtype_name(x.dtype)
        raise TypeError(f"{op}: Input must be either real or complex. Received {kind} type "
                        f"{shown}.")
    return x


def _variance(input_tensor: Any, axis: Any, keepdims: Any, op: str) -> Tensor:
    x = _float_or_complex(input_tensor, op)
    dims = reduction_axes(axis, x.dim(), op)
    keep = builtins.bool(keepdims)
    all_dims = all_axes(x, dims)
    if dims is not None and not dims:
        return torch.zeros_like(x.real if x.is_complex() else x)
    if x.numel() == 0 or x.dim() == 0:  # TF's formula, without torch's warning: NaN when empty
        mean = torch.mean(x, dim=all_dims, keepdim=True) if x.dim() else x
        deviation = torch.abs(x - mean) ** 2
        return torch.mean(deviation, dim=all_dims, keepdim=keep) if x.dim() else deviation
    return torch.var(x, dim=all_dims, correction=0, keepdim=keep)


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                    name: str | None = None) -> Tensor:
    """Computes the (population) variance of elements across dimensions of a tensor (TF's
    `tf.math.reduce_variance`): mean(|x - mean(x)|**2); NaN over no elements.

    Returns:
        A real tensor (complex input gives its real dtype).
    """
    return _variance(input_tensor, axis, keepdims, "reduce_variance")


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the (population) standard deviation of elements across dimensions of a tensor
    (TF's `tf.math.reduce_std`).

    Returns:
        A real tensor (complex input gives its real dtype).
    """
    return torch.sqrt(_variance(input_tensor, axis, keepdims, "reduce_std"))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                          name: str | None = None) -> Tensor:
    """Computes the Euclidean norm, sqrt(sum(x**2)), of elements across dimensions of a tensor
    (TF's `tf.math.reduce_euclidean_norm`); integer input gives the truncated integer norm.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_euclidean_norm", _NUMERIC)
    dims = reduction_axes(axis, x.dim(), "reduce_euclidean_norm")
    keep = builtins.bool(keepdims)
    if dims is not None and not dims:
        return x
    if x.dtype in _INTS:
        norm = torch.linalg.vector_norm(x.to(torch.float64), 2, dim=all_axes(x, dims),
                                        keepdim=keep)
        return torch.trunc(norm).to(x.dtype)
    return torch.linalg.vector_norm(x, 2, dim=all_axes(x, dims), keepdim=keep)


def count_nonzero(input: Any, axis: Any = None, keepdims: Any = None, dtype: Any = torch.int64,
                  name: str | None = None) -> Tensor:
    """Computes the number of nonzero elements across dimensions of a tensor (TF's
    `tf.math.count_nonzero`); for strings, the non-empty ones.

    Returns:
        A tensor of `dtype` (int64 by default).
    """
    want = _dtypes.as_dtype(dtype)
    if isinstance(input, Tensor):
        nonzero = input != 0
    else:
        value = convert_to_tensor(input)
        if isinstance(value, np.ndarray):
            nonzero = torch.from_numpy(np.vectorize(builtins.len, otypes=[np.int64])(value) > 0
                                       if value.size else np.zeros(value.shape, dtype=bool))
        else:
            nonzero = value != 0
    dims = reduction_axes(axis, nonzero.dim(), "count_nonzero")
    if dims is None:
        result = torch.sum(nonzero, dtype=want)
        return result.reshape([1] * nonzero.dim()) if keepdims else result
    if not dims:
        return nonzero.to(want)
    return torch.sum(nonzero, dim=dims, keepdim=builtins.bool(keepdims), dtype=want)
