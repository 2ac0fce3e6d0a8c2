"""The operand helpers TF's shape and indexing ops share: tensors, index tensors, integer lists,
string element positions, index bounds."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import convert_to_tensor, dtype_name, placed
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor
_pyslice = builtins.slice
_INDEX_DTYPES = (torch.int32, torch.int64, torch.int16, torch.int8, torch.uint8)

_REVERSED = [tuple(range(r - 1, -1, -1)) for r in range(8)]


# ----------------------------------------------------------------------------- helpers


def _numeric(value: Any, op: str, arg: str = "input") -> Tensor:
    t = value if isinstance(value, Tensor) else placed(convert_to_tensor(value))  # as TF places the op
    if isinstance(t, np.ndarray):
        raise TypeError(f"{op}: `{arg}` holds strings; this op takes numeric or bool tensors.")
    return t


def _like(value: Any, dtype: torch.dtype, op: str, arg: str) -> Tensor:
    """`value` as a tensor of `dtype`: Python numbers and lists take it (TF's preferred dtype);
    tensors and numpy arrays of another dtype are an error (TF does not promote)."""
    if isinstance(value, Tensor):
        t = value
    elif isinstance(value, (np.ndarray, np.generic)):
        t = convert_to_tensor(value)
    else:
        t = convert_to_tensor(value, dtype=dtype)
    if isinstance(t, np.ndarray):
        raise TypeError(f"{op}: `{arg}` holds strings; expected {dtype_name(dtype)} values.")
    if t.dtype is not dtype:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` has dtype {dtype_name(t.dtype)} but {dtype_name(dtype)} was expected "
            "(TensorFlow does not promote dtypes; use tf.cast).",
        )
    return t


def _index_tensor(value: Any, op: str, arg: str = "indices") -> Tensor:
    t = value if isinstance(value, Tensor) else placed(convert_to_tensor(value))  # as TF places the op
    if isinstance(t, np.ndarray) or t.dtype not in _INDEX_DTYPES:
        kind = "strings" if isinstance(t, np.ndarray) else dtype_name(t.dtype)
        raise TypeError(f"{op}: `{arg}` must be an integer tensor (int32 or int64), got {kind}.")
    return t


def _int_list(value: Any, op: str, arg: str) -> list[int]:
    """A shape-like argument (list, tuple, Size, tensor, numpy array, int) as a list of ints."""
    if type(value) is list or type(value) is tuple or type(value) is torch.Size:
        if all(type(v) is int for v in value):
            return list(value)
    if isinstance(value, (Tensor, np.ndarray)):
        if value.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64) or (
            isinstance(value, np.ndarray) and value.dtype.kind not in "iu"
        ):
            raise TypeError(f"{op}: `{arg}` must hold integers, got {value!r}.")
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    try:
        out = []
        for v in value:
            if isinstance(v, (Tensor, np.ndarray)):
                v = v.item()
            if not isinstance(v, (int, np.integer)) or isinstance(v, builtins.bool):
                raise TypeError
            out.append(int(v))
        return out
    except TypeError:
        raise TypeError(f"{op}: `{arg}` must be a list of integers, got {value!r}.") from None


def _int(value: Any, op: str, arg: str) -> int:
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        if value.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64) or (
            not isinstance(value, Tensor) and np.asarray(value).dtype.kind not in "iu"
        ):
            raise TypeError(f"{op}: `{arg}` must be an integer, got {value!r}.")
        value = value.item()
    if not isinstance(value, int) or isinstance(value, builtins.bool):
        raise TypeError(f"{op}: `{arg}` must be an integer, got {value!r}.")
    return value


def _positions(array: np.ndarray, offset: int = 0) -> Tensor:
    return torch.arange(offset, offset + array.size).reshape(array.shape)


def _strings(fn: Callable[..., Any], array: np.ndarray, *args: Any, **kwargs: Any) -> Any:
    """Runs the indexing op `fn` on element positions of a string array and picks the strings."""
    flat = array.reshape(-1)
    out = fn(_positions(array), *args, **kwargs)
    if isinstance(out, Tensor):
        return flat[out.numpy()]
    return [flat[o.numpy()] for o in out]


def _strings_many(fn: Callable[..., Any], arrays: Sequence[np.ndarray], *args: Any) -> Any:
    flat = np.concatenate([a.reshape(-1) for a in arrays]) if arrays else np.empty(0, object)
    positions, offset = [], 0
    for a in arrays:
        positions.append(_positions(a, offset))
        offset += a.size
    return flat[fn(positions, *args).numpy()]


def _shape(x: Any) -> list[int]:
    return list(x.shape)


def _check_indices(flat: Tensor, bound: int, op: str) -> None:
    """TF's CPU check: every index in [0, bound) (TF does not wrap negative indices)."""
    if flat.numel() == 0:
        return
    low, high = torch.aminmax(flat)
    if low < 0 or high >= bound:
        bad = ((flat < 0) | (flat >= bound)).nonzero()[0]
        where_ = ",".join(str(int(i)) for i in bad.tolist())
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: indices[{where_}] = {int(flat[tuple(bad.tolist())])} is not in [0, {bound}).",
        )
