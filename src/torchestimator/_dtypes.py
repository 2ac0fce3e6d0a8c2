"""TensorFlow dtype names mapped to torch dtypes, and `TensorSpec`.

TensorFlow had a string tensor; torch has none. `string` is a marker dtype:
values of a string column stay numpy arrays of `str` (object dtype) until a
feature column or a lookup layer turns them into ids.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch


class _StringDType:
    """The marker for string data (TF's `tf.string`); values are numpy arrays of str."""

    name = "string"
    is_floating = False
    is_integer = False

    def __repr__(self) -> str:
        return "tf.string"

    def __reduce__(self):
        return "string"


string = _StringDType()
float16 = half = torch.float16
bfloat16 = torch.bfloat16
float32 = torch.float32
float64 = double = torch.float64
int8 = torch.int8
int16 = torch.int16
int32 = torch.int32
int64 = torch.int64
uint8 = torch.uint8
bool = torch.bool  # noqa: A001 - TF's name
complex64 = torch.complex64
complex128 = torch.complex128
uint16 = torch.uint16
uint32 = torch.uint32
uint64 = torch.uint64

_BY_NAME = {
    "float16": float16, "half": float16, "bfloat16": bfloat16, "float32": float32,
    "float": float32, "float64": float64, "double": float64, "int8": int8, "int16": int16,
    "int32": int32, "int64": int64, "uint8": uint8, "bool": bool, "complex64": complex64,
    "complex128": complex128, "uint16": uint16, "uint32": uint32, "uint64": uint64,
    "string": string, "str": string, "object": string,
}


def as_dtype(value: Any) -> torch.dtype | _StringDType:
    """Returns the torch dtype (or the `string` marker) named by `value`.

    Accepts TF/Keras names ('float32', 'int64', 'string'), torch dtypes, numpy
    dtypes and Python types (float, int, str, bool).
    """
    if value is None:
        raise ValueError("dtype must not be None")
    if isinstance(value, torch.dtype) or value is string:
        return value
    if isinstance(value, str):
        try:
            return _BY_NAME[value]
        except KeyError:
            raise ValueError(
                f"Unknown dtype {value!r}; expected one of {sorted(_BY_NAME)}"
            ) from None
    if value is float:
        return float32
    if value is int:
        return int64
    if value is str or value is bytes:
        return string
    if value is _pybool:
        return bool
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        raise ValueError(f"Cannot interpret {value!r} as a dtype") from None
    if np_dtype.kind in "OUS":
        return string
    return torch.from_numpy(np.zeros((), dtype=np_dtype)).dtype


_pybool = builtins.bool


def dtype_name(dtype: Any) -> str:
    """Returns the Keras/TF name of a dtype ('float32', 'int64', 'string')."""
    d = as_dtype(dtype)
    if d is string:
        return "string"
    return str(d).replace("torch.", "")


class TensorSpec:
    """Describes a tensor: `TensorSpec(shape, dtype=float32, name=None)`, as TF's.

    Used to declare serving inputs and `from_generator` output signatures.
    `shape` may contain None for unknown dimensions.
    """

    def __init__(self, shape: Any, dtype: Any = float32, name: str | None = None):
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.dtype = as_dtype(dtype)
        self.name = name

    def is_compatible_with(self, value: Any) -> bool:
        """True when `value` (a tensor, array or spec) fits this spec's shape and dtype."""
        shape = tuple(getattr(value, "shape", ()))
        if self.shape is not None:
            if len(shape) != len(self.shape):
                return False
            if any(a is not None and b is not None and a != b for a, b in zip(self.shape, shape)):
                return False
        return True

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorSpec)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.name == other.name
        )

    def __hash__(self) -> int:
        return hash((self.shape, str(self.dtype), self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={dtype_name(self.dtype)}, name={self.name!r})"
