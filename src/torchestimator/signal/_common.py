"""Shared argument handling of tf.signal's ops (conversion, dtypes, static integers)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor, dtype_name

Tensor = torch.Tensor
_COMPLEX_OF = {torch.float32: torch.complex64, torch.float64: torch.complex128}


def real_tensor(value: Any, op: str, name: str = "signal") -> Tensor:
    """`value` as a float tensor (lists and numpy arrays prefer float32, as TF's float32 hint)."""
    if isinstance(value, Tensor):
        tensor = value
    else:
        array = np.asarray(value)
        if array.dtype.kind in "biuf":
            array = array.astype(np.float32)
        tensor = convert_to_tensor(array)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: `{name}` must be a numeric tensor, got string values.")
    return tensor


def float_dtype(dtype: Any, op: str, found: str = "Found") -> torch.dtype:
    """`dtype` as a torch floating dtype; TF's ValueError for any other dtype."""
    torch_dtype = _dtypes.as_dtype(dtype)
    if not (isinstance(torch_dtype, torch.dtype) and torch_dtype.is_floating_point):
        raise ValueError(f"{op}: dtype must be a floating point type. {found} "
                         f"{dtype_name(torch_dtype)}")
    return torch_dtype


def check_float(tensor: Tensor, op: str) -> None:
    """TF's error for an integer signal where a window (float) must multiply it."""
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"{op}: dtype must be a floating point type. Found "
                         f"{dtype_name(tensor.dtype)}; cast the signal with tf.cast first.")


def static_int(value: Any, name: str, op: str) -> int:
    """A Python int from an int, numpy integer or scalar integer tensor."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        if np.ndim(value) != 0:
            raise ValueError(f"{op}: `{name}` must be a scalar integer, got shape "
                             f"{tuple(np.shape(value))}.")
        value = value.item()
    if isinstance(value, builtins.bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}: `{name}` must be an integer, got {value!r}.")
    return int(value)


def int_list(value: Any, name: str, op: str, length: int | None = None) -> list[int]:
    """A list of Python ints from a list, array or 1-D tensor (`length` checked when given)."""
    if isinstance(value, Tensor):
        value = value.tolist()
    values = np.asarray(value).reshape(-1).tolist() if not isinstance(value, int) else [value]
    out = [static_int(v, name, op) for v in values]
    if length is not None and len(out) != length:
        raise ValueError(f"{op}: `{name}` must have {length} element(s), got {out}.")
    return out
