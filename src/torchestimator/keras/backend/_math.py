"""Keras 2.15's `tf.keras.backend` math: elementwise functions, comparisons, reductions,
`dot` and `batch_dot`, on the tf-level ops."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

import torchestimator as _tf
from torchestimator.keras.backend._core import _t, is_sparse
from torchestimator.keras.backend._state import floatx

_py_all = builtins.all
_py_any = builtins.any

# --------------------------------------------------------------------- math
def abs(x: Any) -> torch.Tensor:  # noqa: A001
    """Element-wise absolute value."""
    return _tf.abs(x)


def sqrt(x: Any) -> torch.Tensor:
    """Element-wise square root (negative values are clipped to 0 first)."""
    x = _t(x)
    return _tf.sqrt(_tf.maximum(x, torch.zeros((), dtype=x.dtype, device=x.device)))


def square(x: Any) -> torch.Tensor:
    """Element-wise square."""
    return _tf.square(x)


def exp(x: Any) -> torch.Tensor:
    """Element-wise exponential."""
    return _tf.exp(x)


def log(x: Any) -> torch.Tensor:
    """Element-wise natural logarithm."""
    return _tf.math.log(x)


def round(x: Any) -> torch.Tensor:  # noqa: A001
    """Element-wise rounding to the closest integer (ties to even)."""
    return _tf.round(x)


def sign(x: Any) -> torch.Tensor:
    """Element-wise sign."""
    return _tf.sign(x)


def pow(x: Any, a: Any) -> torch.Tensor:  # noqa: A001
    """Element-wise exponentiation: `x ** a`."""
    return _tf.pow(x, a)


def cos(x: Any) -> torch.Tensor:
    """Computes cos of x element-wise."""
    return _tf.cos(x)


def sin(x: Any) -> torch.Tensor:
    """Computes sin of x element-wise."""
    return _tf.sin(x)


def clip(x: Any, min_value: Any, max_value: Any) -> torch.Tensor:
    """Element-wise value clipping to [min_value, max_value] (None: unbounded); a max below the
    min is raised to the min."""
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)):
        if max_value < min_value:
            max_value = min_value
    if min_value is None:
        min_value = -np.inf
    if max_value is None:
        max_value = np.inf
    return _tf.clip_by_value(x, min_value, max_value)


def equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise equality between two tensors; returns a bool tensor."""
    return _tf.equal(x, y)


def not_equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise inequality between two tensors; returns a bool tensor."""
    return _tf.not_equal(x, y)


def greater(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x > y); returns a bool tensor."""
    return _tf.greater(x, y)


def greater_equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x >= y); returns a bool tensor."""
    return _tf.greater_equal(x, y)


def less(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x < y); returns a bool tensor."""
    return _tf.less(x, y)


def less_equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x <= y); returns a bool tensor."""
    return _tf.less_equal(x, y)


def maximum(x: Any, y: Any) -> torch.Tensor:
    """Element-wise maximum of two tensors."""
    return _tf.maximum(x, y)


def minimum(x: Any, y: Any) -> torch.Tensor:
    """Element-wise minimum of two tensors."""
    return _tf.minimum(x, y)


def _float_if_bool(x: Any) -> torch.Tensor:
    x = _t(x)
    return x.to(getattr(torch, floatx())) if x.dtype == torch.bool else x


def max(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Maximum value in a tensor (over `axis`, an int or list; all axes when None)."""
    return _tf.reduce_max(x, axis, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Minimum value in a tensor (over `axis`, an int or list; all axes when None)."""
    return _tf.reduce_min(x, axis, keepdims)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Sum of the values in a tensor, alongside the specified axis."""
    return _tf.reduce_sum(x, axis, keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Multiplies the values in a tensor, alongside the specified axis."""
    return _tf.reduce_prod(x, axis, keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Mean of a tensor, alongside the specified axis (bools count as floatx 0/1)."""
    return _tf.reduce_mean(_float_if_bool(x), axis, keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Variance (biased) of a tensor, alongside the specified axis."""
    return _tf.math.reduce_variance(_float_if_bool(x), axis=axis, keepdims=keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Standard deviation (biased) of a tensor, alongside the specified axis."""
    return _tf.math.reduce_std(_float_if_bool(x), axis=axis, keepdims=keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Bitwise reduction (logical AND) of the tensor cast to bool."""
    return _tf.reduce_all(_tf.cast(x, torch.bool), axis, keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Bitwise reduction (logical OR) of the tensor cast to bool."""
    return _tf.reduce_any(_tf.cast(x, torch.bool), axis, keepdims)


def argmax(x: Any, axis: int = -1) -> torch.Tensor:
    """Returns the index (int64) of the maximum value along an axis."""
    return _tf.argmax(x, axis)


def argmin(x: Any, axis: int = -1) -> torch.Tensor:
    """Returns the index (int64) of the minimum value along an axis."""
    return _tf.argmin(x, axis)


def cumsum(x: Any, axis: int = 0) -> torch.Tensor:
    """Cumulative sum of the values in a tensor, alongside the specified axis."""
    return _tf.cumsum(x, axis=axis)


def cumprod(x: Any, axis: int = 0) -> torch.Tensor:
    """Cumulative product of the values in a tensor, alongside the specified axis."""
    return _tf.math.cumprod(x, axis=axis)


def dot(x: Any, y: Any) -> torch.Tensor:
    """Multiplies 2 tensors (and/or variables) and returns a tensor.

    For nD tensors it behaves like Theano/numpy `dot`: `x`'s last axis is contracted with
    `y`'s second-to-last, e.g. (2, 3) . (4, 3, 5) -> (2, 4, 5).
    """
    if is_sparse(x):
        return _tf.sparse.sparse_dense_matmul(x, y)
    x, y = _t(x), _t(y)
    if x.dim() > 2 or y.dim() > 2:
        x_shape = tuple(x.shape)
        y_shape = tuple(y.shape)
        perm = list(range(y.dim()))
        perm = [perm.pop(-2)] + perm
        xt = _tf.reshape(x, [-1, x_shape[-1]])
        yt = _tf.reshape(_tf.transpose(y, perm=perm), [y_shape[-2], -1])
        return _tf.reshape(_tf.matmul(xt, yt), x_shape[:-1] + y_shape[:-2] + y_shape[-1:])
    return _tf.matmul(x, y)


def batch_dot(x: Any, y: Any, axes: Any = None) -> torch.Tensor:
    """Batchwise dot product: the dot product of `x[i]` and `y[i]` for every batch entry,
    over `axes` (an int, or (x_axis, y_axis); default: x's last and y's second-to-last (y's
    last when y is 2D))."""
    x, y = _t(x), _t(y)
    x_shape, y_shape = tuple(x.shape), tuple(y.shape)
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with rank < 2. Received inputs with shapes "
            f"{x_shape} and {y_shape}."
        )
    if x_shape[0] != y_shape[0]:
        raise ValueError(
            f"Cannot do batch_dot on inputs with different batch sizes. Received inputs with "
            f"shapes {x_shape} and {y_shape}."
        )
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 1] if y_ndim == 2 else [x_ndim - 1, y_ndim - 2]
    if _py_any(isinstance(a, (list, tuple)) for a in axes):
        raise ValueError(
            "Multiple target dimensions are not supported. Expected: None, int, (int, int), "
            f"Provided: {axes}"
        )
    axes = list(axes)
    if axes[0] < 0:
        axes[0] += x_ndim
    if axes[1] < 0:
        axes[1] += y_ndim
    if 0 in axes:
        raise ValueError(
            "Cannot perform batch_dot over axis 0. If your inputs are not batched, add a dummy "
            "batch dimension to your inputs using K.expand_dims(x, 0)"
        )
    a0, a1 = axes
    d1, d2 = x_shape[a0], y_shape[a1]
    if d1 != d2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with shapes {x_shape} and {y_shape} with "
            f"axes={axes}. x.shape[{axes[0]}] != y.shape[{axes[1]}] ({d1} != {d2})."
        )
    orig_x_ndim, orig_y_ndim = x_ndim, y_ndim
    if x_ndim == 2:
        x = x.unsqueeze(1)
        a0 += 1
        x_ndim += 1
    if y_ndim == 2:
        y = y.unsqueeze(2)
        y_ndim += 1
    if a0 != x_ndim - 1:
        x = x.movedim(a0, -1)
    if a1 != 1:
        y = y.movedim(a1, 1)
    x_mid = tuple(x.shape[1:-1])
    y_trail = tuple(y.shape[2:])
    x3 = x.reshape(x.shape[0], -1, x.shape[-1]) if x_ndim > 3 else x
    y3 = y.reshape(y.shape[0], y.shape[1], -1) if y_ndim > 3 else y
    result = _tf.matmul(x3, y3)
    out_shape = list(result.shape)
    if x_ndim > 3:
        out_shape = out_shape[:1] + list(x_mid) + out_shape[-1:]
    if y_ndim > 3:
        out_shape = out_shape[:-1] + list(y_trail)
    if x_ndim > 3 or y_ndim > 3:
        result = result.reshape(out_shape)
    if orig_x_ndim == 2:
        result = result.squeeze(1)
    elif orig_y_ndim == 2:
        result = result.squeeze(-1)
    return result


def transpose(x: Any) -> torch.Tensor:
    """Transposes a tensor (reverses all its axes) and returns it."""
    x = _t(x)
    return _tf.transpose(x, perm=list(reversed(range(x.dim()))))


def gather(reference: Any, indices: Any) -> torch.Tensor:
    """Retrieves the elements of indices `indices` in the tensor `reference` (axis 0)."""
    return _tf.gather(reference, indices)
