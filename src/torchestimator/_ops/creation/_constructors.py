"""TF's creation ops: tf.zeros, ones, fill, eye, zeros_like, ones_like, range, linspace (TF 2.15's
dtype defaults). What they make from shapes and Python values is placed as TF places ops: on the
GPU when there is one (`loop.op_device`); an op given a tensor runs where the tensor is."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    _INT32_MAX,
    _INT32_MIN,
    as_tensor,
    convert_to_tensor,
    dtype_name,
    op_device,
    placed,
    shapes_error,
)
from torchestimator._ops.creation._common import _STRING, Tensor
from torchestimator._ops.creation._tensor_shape import _shape_arg
from torchestimator.errors import InvalidArgumentError


# --------------------------------------------------------------------------------------------
# creation
# --------------------------------------------------------------------------------------------
def zeros(shape: Any, dtype: Any = torch.float32, name: str | None = None,
          layout: Any = None) -> Any:
    """Creates a tensor with all elements set to zero (TF's `tf.zeros`); float32 by default.

    Returns:
        A tensor of `shape` and `dtype` (a numpy array of '' for `tf.string`).
    """
    dims = _shape_arg(shape, "zeros")
    dtype = _dtypes.as_dtype(dtype)
    if dtype is _STRING:
        return np.full(dims, "", dtype=object)
    return torch.zeros(dims, dtype=dtype, device=op_device())


def ones(shape: Any, dtype: Any = torch.float32, name: str | None = None,
         layout: Any = None) -> Tensor:
    """Creates a tensor with all elements set to one (TF's `tf.ones`); float32 by default.

    Returns:
        A tensor of `shape` and `dtype`.
    """
    dims = _shape_arg(shape, "ones")
    dtype = _dtypes.as_dtype(dtype)
    if dtype is _STRING:
        raise TypeError("ones: Cannot convert 1 to a tensor of dtype string.")
    return torch.ones(dims, dtype=dtype, device=op_device())


def fill(dims: Any, value: Any, name: str | None = None, layout: Any = None) -> Any:
    """Creates a tensor of shape `dims` filled with the scalar `value` (TF's `tf.fill`).

    Returns:
        A tensor with `value`'s dtype (int32 for a Python int, float32 for a float).
    """
    shape = _shape_arg(dims, "fill")
    given_tensor = isinstance(value, Tensor)
    value = as_tensor(value)
    if value.ndim != 0:
        raise InvalidArgumentError(
            None, None, f"fill: value must represent a scalar, got shape {list(value.shape)}"
        )
    if isinstance(value, np.ndarray):
        return np.full(shape, value.item(), dtype=object)
    filled = value.expand(shape).clone()
    return filled if given_tensor else placed(filled)


def eye(num_rows: int, num_columns: int | None = None, batch_shape: Any = None,
        dtype: Any = torch.float32, name: str | None = None) -> Tensor:
    """Constructs an identity matrix, or a batch of them (TF's `tf.eye`).

    Returns:
        A tensor of shape `batch_shape + [num_rows, num_columns]`.
    """
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    if rows < 0 or cols < 0:
        raise InvalidArgumentError(
            None, None, f"eye: num_rows and num_columns must be >= 0, got {rows} and {cols}."
        )
    matrix = torch.eye(rows, cols, dtype=_dtypes.as_dtype(dtype), device=op_device())
    if batch_shape is None:
        return matrix
    batch = _shape_arg(batch_shape, "eye")
    return matrix.repeat(*batch, 1, 1)  # a tensor of its own (`expand().contiguous()` is a view on some backends)


def zeros_like(input: Any, dtype: Any = None, name: str | None = None, layout: Any = None) -> Any:
    """Creates a tensor of zeros with the shape of `input` (TF's `tf.zeros_like`).

    Returns:
        A tensor with `input`'s shape and `dtype` (default: `input`'s dtype).
    """
    x = as_tensor(input)
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(x, np.ndarray) or want is _STRING:
        if want is not None and want is not _STRING:
            return torch.zeros(x.shape, dtype=want, device=op_device())
        return np.full(x.shape, "", dtype=object)
    zeros = torch.zeros_like(x, dtype=want)
    return zeros if isinstance(input, Tensor) else placed(zeros)


def ones_like(input: Any, dtype: Any = None, name: str | None = None, layout: Any = None) -> Tensor:
    """Creates a tensor of ones with the shape of `input` (TF's `tf.ones_like`).

    Returns:
        A tensor with `input`'s shape and `dtype` (default: `input`'s dtype).
    """
    x = as_tensor(input)
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if want is _STRING or (isinstance(x, np.ndarray) and want is None):
        raise TypeError("ones_like: Cannot convert 1 to a tensor of dtype string.")
    if isinstance(x, np.ndarray):
        return torch.ones(x.shape, dtype=want, device=op_device())
    ones = torch.ones_like(x, dtype=want)
    return ones if isinstance(input, Tensor) else placed(ones)


_RANGE_ORDER = {torch.int32: 0, torch.int64: 1, torch.float32: 2, torch.float64: 3}
_NP_OF = {torch.int32: np.int32, torch.int64: np.int64, torch.float32: np.float32,
          torch.float64: np.float64, torch.int16: np.int16, torch.int8: np.int8,
          torch.uint8: np.uint8, torch.float16: np.float16}


def _range_arg(value: Any, dtype: Any, arg: str) -> Any:
    """(python number, inferred dtype) of one `tf.range` argument."""
    if isinstance(value, Tensor):
        if value.numel() != 1 or value.dim() != 0:
            raise InvalidArgumentError(
                None, None, f"range: {arg} must be a scalar, got shape {list(value.shape)}"
            )
        return value.item(), value.dtype
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.ndim != 0:
            raise InvalidArgumentError(
                None, None, f"range: {arg} must be a scalar, got shape {list(array.shape)}"
            )
        return array.item(), torch.from_numpy(array.reshape(1)).dtype
    if isinstance(value, builtins.bool) or not isinstance(value, (int, float)):
        raise TypeError(f"range: {arg} must be a number, got {value!r}.")
    if dtype is not None and not (dtype.is_floating_point or isinstance(value, int) or
                                  float(value).is_integer()):
        raise TypeError(f"range: Cannot convert {arg}={value!r} to a tensor of dtype "
                        f"{dtype_name(dtype)}.")
    if isinstance(value, float):
        return value, torch.float32
    return value, torch.int32 if _INT32_MIN <= value <= _INT32_MAX else torch.int64


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> Tensor:
    """Creates a sequence of numbers from `start` up to (not including) `limit` by `delta`,
    as TF's `tf.range` (`tf.range(n)` counts from 0).

    The dtype is `dtype`, or else the widest of the arguments' dtypes in TF's
    order int32 < int64 < float32 < float64 (int32 for Python ints, float32
    for Python floats).

    Returns:
        A 1-D tensor.
    """
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if limit is None:
        start, limit = 0, start
    values, dtypes = [], []
    for value, arg in ((start, "start"), (limit, "limit"), (delta, "delta")):
        number, inferred = _range_arg(value, want, arg)
        values.append(number)
        dtypes.append(inferred)
    if want is None:
        want = max(dtypes, key=lambda d: _RANGE_ORDER.get(d, -1))
    first, last, step = values
    if step == 0:
        raise InvalidArgumentError(None, None, f"range: Requires delta != 0: {step}")
    if step > 0 and first > last:
        raise InvalidArgumentError(
            None, None, f"range: Requires start <= limit when delta > 0: {first}/{last}"
        )
    if step < 0 and first < last:
        raise InvalidArgumentError(
            None, None, f"range: Requires start >= limit when delta < 0: {first}/{last}"
        )
    device = op_device()
    if not want.is_floating_point:
        return torch.arange(int(first), int(last), int(step), dtype=want, device=device)
    # Floating sequences are computed in the dtype itself (start + i * delta), as TF does.
    np_type = _NP_OF.get(want, np.float64)
    a, b, d = np_type(first), np_type(last), np_type(step)
    with np.errstate(all="ignore"):
        count = int(np.ceil(np.abs((b - a) / d)))
    index = torch.arange(count, dtype=want, device=device)
    return index * torch.tensor(d.item(), dtype=want) + torch.tensor(a.item(), dtype=want)


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """Generates `num` evenly spaced values from `start` to `stop` inclusive (TF's `tf.linspace`).

    `start` and `stop` may be tensors of one shape (batched sequences); `axis`
    is where the new dimension goes. Integer inputs give float64, as TF.

    Returns:
        A tensor of `start`'s (floating) dtype with the sequences along `axis`.
    """
    lo = as_tensor(start)
    hi = as_tensor(stop) if isinstance(stop, Tensor) else convert_to_tensor(
        stop, dtype_hint=lo.dtype)
    if not lo.is_floating_point():
        lo = lo.to(torch.float64)
    if hi.dtype is not lo.dtype:
        if not hi.is_floating_point() or isinstance(stop, (int, float)):
            hi = hi.to(lo.dtype)
        else:
            raise InvalidArgumentError(
                None, None, f"linspace: start and stop have different dtypes, "
                f"{dtype_name(lo.dtype)} and {dtype_name(hi.dtype)}."
            )
    count = int(num)
    if count < 0:
        raise InvalidArgumentError(None, None, f"linspace: Requires num >= 0, got {count}")
    try:
        batch = torch.broadcast_shapes(lo.shape, hi.shape)
    except RuntimeError:
        raise shapes_error("linspace", lo.shape, hi.shape) from None
    lo, hi = lo.expand(batch).unsqueeze(-1), hi.expand(batch).unsqueeze(-1)
    delta = (hi - lo) / max(count - 1, 1)
    values = lo + torch.arange(count, dtype=lo.dtype, device=lo.device) * delta
    if count > 1:
        values = torch.cat([values[..., :-1], hi], dim=-1)
    rank = len(batch) + 1
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            None, None, f"linspace: axis {axis} is out of range for a result of rank {rank}."
        )
    values = values.movedim(-1, axis % rank)
    return values if isinstance(start, Tensor) or isinstance(stop, Tensor) else placed(values)
