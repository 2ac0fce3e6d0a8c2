"""Turning Python values, numpy arrays and tensors into tensors, with TensorFlow's dtype rules.

TensorFlow infers `float32` from a Python float, `int32` from a Python int
(`int64` when it does not fit), `bool` from a bool; a numpy array keeps its
dtype. Binary ops never promote: two tensors of different dtypes are an
`InvalidArgumentError`, and a Python number takes the dtype of the tensor it
meets (a float meeting an integer tensor is a `TypeError`). Strings stay numpy
object arrays of `str` (the design's rule: torch has no string tensor).

Everything here is on the per-op path: the common case (tensors of one dtype)
must stay a couple of type checks.
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._dtypes import dtype_name  # noqa: F401 - re-exported for the ops modules
from torchestimator.errors import InvalidArgumentError

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
    if isinstance(value, _PY_SCALARS):
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
    return False


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Any:
    """Creates a constant tensor from a tensor-like `value`, as TF's `tf.constant`.

    Unlike `convert_to_tensor`, a tensor of another dtype is cast, and `shape`
    reshapes the value (a scalar or one-element value is broadcast to it).

    Returns:
        A new `torch.Tensor` that does not record gradients.
    """
    if isinstance(value, Tensor):
        tensor = value.detach()
        if dtype is not None:
            tensor = tensor.to(_dtypes.as_dtype(dtype))
    else:
        tensor = convert_to_tensor(value, dtype)
    if shape is None:
        return tensor
    shape = tuple(int(d) for d in shape)
    if isinstance(tensor, np.ndarray):
        return np.broadcast_to(tensor, shape).copy() if tensor.size == 1 else tensor.reshape(shape)
    count = int(np.prod(shape))
    if tensor.numel() == count:
        return tensor.reshape(shape)
    if tensor.numel() == 1:
        return tensor.reshape(()).expand(shape).clone()
    raise TypeError(
        f"Eager execution of tf.constant with unsupported shape. Tried to convert a value of "
        f"{tensor.numel()} elements (shape {list(tensor.shape)}) to a tensor of shape {list(shape)} "
        f"({count} elements)."
    )


def binary_operands(x: Any, y: Any, op: str) -> tuple[Any, Any]:
    """Returns `(x, y)` ready for a torch binary op under TF's dtype rules.

    Two tensors must share a dtype (TF does not promote). A Python number is left
    as it is for torch to broadcast (it takes the tensor's dtype), except a float
    meeting an integer tensor, which TF refuses. Other values are converted with
    the tensor's dtype. Raises `InvalidArgumentError` naming both dtypes.
    """
    if isinstance(x, Tensor):
        if isinstance(y, Tensor):
            if x.dtype is not y.dtype:
                _dtype_mismatch(op, x.dtype, y.dtype)
            return x, y
        return x, _operand_like(y, x, op)
    if isinstance(y, Tensor):
        return _operand_like(x, y, op), y
    x = convert_to_tensor(x)
    if isinstance(x, np.ndarray):
        raise TypeError(f"{op}: string values are not supported by this op.")
    return x, _operand_like(y, x, op)


def _operand_like(value: Any, other: Tensor, op: str) -> Any:
    if isinstance(value, _PY_SCALARS):
        if isinstance(value, float) and not (other.is_floating_point() or other.is_complex()):
            raise TypeError(
                f"{op}: cannot convert {value!r} to a tensor of dtype {dtype_name(other.dtype)} "
                "(the other operand's); cast the tensor to a floating dtype with tf.cast first."
            )
        return value
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        converted = torch.from_numpy(np.require(array, requirements="C"))
        if converted.dtype is not other.dtype:
            if converted.is_floating_point() != other.is_floating_point():
                _dtype_mismatch(op, other.dtype, converted.dtype)
            converted = converted.to(other.dtype)
        return converted.to(other.device) if converted.device != other.device else converted
    converted = convert_to_tensor(value, dtype_hint=other.dtype)
    if isinstance(converted, np.ndarray):
        raise TypeError(f"{op}: string values are not supported by this op.")
    if converted.dtype is not other.dtype:
        if converted.dtype in (torch.float32, torch.int32) and (
            converted.is_floating_point() == other.is_floating_point()
        ):  # a Python list takes the tensor's dtype of the same kind, as in TF
            converted = converted.to(other.dtype)
        else:
            _dtype_mismatch(op, other.dtype, converted.dtype)
    return converted.to(other.device) if converted.device != other.device else converted


def _dtype_mismatch(op: str, a: torch.dtype, b: torch.dtype) -> None:
    raise InvalidArgumentError(
        None, None,
        f"{op}: the operands have different dtypes, {dtype_name(a)} and {dtype_name(b)}. "
        "TensorFlow does not promote dtypes; tf.cast one operand to the other's dtype.",
    )


def shapes_error(op: str, a: Any, b: Any, detail: str = "") -> InvalidArgumentError:
    """An `InvalidArgumentError` naming both shapes, for ops given incompatible shapes."""
    extra = f" {detail}" if detail else ""
    return InvalidArgumentError(
        None, None, f"{op}: incompatible shapes {list(a)} and {list(b)}.{extra}"
    )


def normalize_axis(axis: Any, rank: int, op: str) -> Any:
    """Returns `axis` (an int, a list/tuple/tensor of ints, or None) as an int or tuple of ints
    in `[0, rank)`; negative axes count from the end. Raises naming the op, the axis and the rank."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    elif isinstance(axis, np.ndarray):
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)):
        return tuple(normalize_axis(int(a), rank, op) for a in axis)
    axis = int(axis)
    bound = max(rank, 1)
    if not -bound <= axis < bound:
        raise InvalidArgumentError(
            None, None,
            f"{op}: axis {axis} is out of range for a tensor of rank {rank} (expected in "
            f"[{-bound}, {bound})).",
        )
    return axis % bound
