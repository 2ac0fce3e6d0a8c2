"""TF's `tf.convert_to_tensor` rules: Python values, numpy arrays and tensors into tensors.

TensorFlow infers `float32` from a Python float, `int32` from a Python int
(`int64` when it does not fit), `bool` from a bool; a numpy array keeps its
dtype. Strings stay numpy object arrays of `str` (the design's rule: torch has
no string tensor). `_CONVERSION_FUNCTIONS` is the registry of
`tf.register_tensor_conversion_function` (upper modules append to it when they load).

A low-level module (it imports only `_dtypes` and `errors`), so `_type_spec` and `_ragged`
can convert values; `_ops.convert` re-exports every name here. Everything here is on the
per-op path: the common case (tensors of one dtype) must stay a couple of type checks.
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._dtypes import dtype_name

Tensor = torch.Tensor
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_PY_SCALARS = (builtins.bool, int, float, complex)


def _python_dtype(value: Any) -> torch.dtype:
    """TF's dtype for a Python scalar: bool, int32 (int64 when out of range), float32, complex128."""
    if isinstance(value, builtins.bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int32 if _INT32_MIN <= value <= _INT32_MAX else torch.int64
    if isinstance(value, float):
        return torch.float32
    return torch.complex128


def _is_string_array(array: np.ndarray) -> builtins.bool:
    return array.dtype.kind in "OUS"


def text_or_bytes(value: Any) -> Any:
    """A string element: bytes that are UTF-8 text become `str` (the project's string
    elements), other bytes (a serialized `tf.train.Example`, binary data) stay bytes, as TF's
    string tensors hold any bytes."""
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            return value
    return value


def _string_array(value: Any) -> np.ndarray:
    array = np.asarray(value, dtype=object)
    return np.vectorize(text_or_bytes, otypes=[object])(array) if array.size else array


def _check_python_value(value: Any, dtype: torch.dtype) -> None:
    """TF refuses a non-integral Python float for an integer dtype (no silent truncation)."""
    if dtype.is_floating_point or dtype.is_complex:
        return
    array = np.asarray(value)
    if array.dtype.kind == "f" and not np.all(np.mod(array, 1) == 0):
        raise TypeError(
            f"Cannot convert {value!r} to a tensor of dtype {dtype_name(dtype)}: the value has a "
            "fractional part. Pass integers, or ask for a floating dtype and tf.cast it."
        )


def _from_list(value: list | tuple, dtype: Any) -> Any:
    if any(isinstance(v, Tensor) for v in value):  # a list of tensors packs them (tf.stack)
        parts = [convert_to_tensor(v, dtype) for v in value]
        first = next(p for p in parts if isinstance(p, Tensor))
        parts = [p if isinstance(p, Tensor) else torch.as_tensor(p, dtype=first.dtype) for p in parts]
        return torch.stack(parts)
    array = np.asarray(value)
    if _is_string_array(array):
        return _string_array(array)
    if dtype is None:
        if array.dtype.kind == "f":
            dtype = torch.float32 if array.dtype == np.float64 else None
        elif array.dtype.kind in "iu" and array.dtype.itemsize == 8:
            in_range = array.size == 0 or (array.min() >= _INT32_MIN and array.max() <= _INT32_MAX)
            dtype = torch.int32 if in_range else torch.int64
        elif array.dtype.kind == "c":
            dtype = torch.complex128
    else:
        _check_python_value(array, dtype)
    tensor = torch.from_numpy(np.require(array, requirements="C"))
    return tensor if dtype is None or tensor.dtype == dtype else tensor.to(dtype)


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None) -> Any:
    """Converts `value` to a tensor, as TF's `tf.convert_to_tensor`.

    Tensors (and `tf.Variable`s) pass through; a tensor of another dtype than
    `dtype` is an error (use `tf.cast`). numpy arrays keep their dtype; Python
    scalars and lists follow TF's inference (float32, int32, bool). `dtype_hint`
    is used when `dtype` is None and the value can take it. Strings come back
    as numpy object arrays of `str`.

    Returns:
        A `torch.Tensor`, or a numpy object array for string values.
    """
    if isinstance(value, Tensor):
        if dtype is not None:
            want = _dtypes.as_dtype(dtype)
            if want is not value.dtype:
                raise ValueError(
                    f"Tensor conversion requested dtype {dtype_name(want)} for a tensor with dtype "
                    f"{dtype_name(value.dtype)}{f' ({name})' if name else ''}; use tf.cast to change it."
                )
        return value
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if want is _dtypes.string:
        return _string_array(value)
    if isinstance(want, _dtypes.ExtraDType):
        raise want.no_tensors(f"a tensor{f' ({name})' if name else ''}")
    if value is None:
        raise ValueError(
            f"Attempt to convert a value (None){f' ({name})' if name else ''} with an unsupported "
            "type (<class 'NoneType'>) to a Tensor."
        )
    if want is None and dtype_hint is not None:
        hint = _dtypes.as_dtype(dtype_hint)
        if hint is not _dtypes.string and _hint_fits(value, hint):
            want = hint
    if isinstance(value, _PY_SCALARS) and not isinstance(value, np.generic):
        if want is None:
            want = _python_dtype(value)
        else:
            _check_python_value(value, want)
        return torch.tensor(value, dtype=want)
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        if _is_string_array(array):
            return _string_array(array)
        tensor = torch.from_numpy(np.require(array, requirements="C"))
        return tensor if want is None or tensor.dtype == want else tensor.to(want)
    if isinstance(value, (list, tuple)):
        return _from_list(value, want)
    if isinstance(value, (str, bytes)):
        return _string_array(value)
    if _CONVERSION_FUNCTIONS:  # tf.register_tensor_conversion_function's (IndexedSlices, users')
        converted = _registered_conversion(value, want, name)
        if converted is not NotImplemented:
            return converted
    if hasattr(value, "__array__"):  # pandas objects, arrow arrays, ...
        return convert_to_tensor(np.asarray(value), dtype, dtype_hint, name)
    if isinstance(value, numbers.Number):
        return convert_to_tensor(complex(value) if isinstance(value, numbers.Complex) else float(value), dtype)
    raise TypeError(
        f"Cannot convert {value!r:.100} of type {type(value).__name__}{f' ({name})' if name else ''} "
        "to a tensor; pass a tensor, a numpy array, a Python number or a (nested) list of numbers."
    )


#: (priority, base_type, conversion_func), kept sorted by priority
_CONVERSION_FUNCTIONS: list[tuple[int, Any, Any]] = []


def _registered_conversion(value: Any, dtype: Any, name: str | None) -> Any:
    """The first registered conversion function for `value`'s type (lowest priority first),
    as TF's registry: a function may return NotImplemented to pass; None if none applies."""
    for _, base_type, function in _CONVERSION_FUNCTIONS:
        if isinstance(value, base_type):
            result = function(value, dtype=dtype, name=name, as_ref=False)
            if result is not NotImplemented:
                return convert_to_tensor(result, dtype, name=name)
    return NotImplemented


def as_tensor(value: Any) -> Any:
    """A tensor (or a numpy string array) for `value`; tensors pass through untouched (the
    shape and creation ops' operand conversion)."""
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _hint_fits(value: Any, hint: torch.dtype) -> builtins.bool:
    """A dtype hint applies where TF's conversion would accept it without loss."""
    if isinstance(value, builtins.bool):
        return hint is torch.bool
    if isinstance(value, int):
        return hint is not torch.bool
    if isinstance(value, float):
        return hint.is_floating_point or hint.is_complex
    if isinstance(value, (list, tuple)):  # a (nested) list of Python numbers: every one must fit
        return builtins.all(_hint_fits(v, hint) for v in value)
    return False


def pair_on_one_device(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Two tensors an op combines, on one device: a host tensor next to one on an accelerator is
    copied there (TF copies an op's inputs to the op's device), except a 0-dim host tensor,
    which torch takes alongside any device as it is."""
    dx, dy = x.device, y.device
    if dx == dy:
        return x, y
    if dx.type == "cpu":
        return (x, y) if x.dim() == 0 else (x.to(dy), y)
    if dy.type == "cpu":
        return (x, y) if y.dim() == 0 else (x, y.to(dx))
    return x, y.to(dx)


def on_one_device(tensors: list[Any]) -> list[Any]:
    """The tensors on one device: the accelerator one of them is on (TF copies an op's inputs to
    the op's device; a Python list or a host constant next to a GPU tensor goes there)."""
    device = next((t.device for t in tensors if isinstance(t, Tensor) and t.device.type != "cpu"), None)
    if device is None:
        return tensors
    return [t.to(device) if isinstance(t, Tensor) and t.device != device else t for t in tensors]
