"""Turning Python values, numpy arrays and tensors into tensors, with TensorFlow's dtype rules.

TensorFlow infers `float32` from a Python float, `int32` from a Python int
(`int64` when it does not fit), `bool` from a bool; a numpy array keeps its
dtype. Binary ops never promote: two tensors of different dtypes are an
`InvalidArgumentError`, and a Python number takes the dtype of the tensor it
meets (a float meeting an integer tensor is a `TypeError`). Strings stay numpy
object arrays of `str` (the design's rule: torch has no string tensor).

Everything here is on the per-op path: the common case (tensors of one dtype)
must stay a couple of type checks. `convert_to_tensor` and its rules live in the low-level
`torchestimator._tensor_conversion` (so `_type_spec` and `_ragged` can use them) and are
re-exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._dtypes import dtype_name  # noqa: F401 - re-exported for the ops modules
from torchestimator._engine.loop import op_device, to_device
from torchestimator._tensor_conversion import (  # noqa: F401 - re-exported (moved down for _type_spec, _ragged)
    _CONVERSION_FUNCTIONS,
    _INT32_MAX,
    _INT32_MIN,
    _PY_SCALARS,
    Tensor,
    _check_python_value,
    _from_list,
    _hint_fits,
    _is_string_array,
    _python_dtype,
    _registered_conversion,
    _string_array,
    as_tensor,
    convert_to_tensor,
    on_one_device,
    pair_on_one_device,
    text_or_bytes,
)
from torchestimator.errors import InvalidArgumentError


def placed(value: Any) -> Any:
    """`value` -- a tensor a TF op made from Python or numpy values -- on `loop.op_device()`
    (the GPU when there is one, as TF places ops), unless it is a scalar: a 0-dim host tensor
    meets tensors on any device in torch, and stays on the host at no copy per call. Strings
    (numpy arrays) and tensors where no accelerator is the default stay as they are. The copy is
    the loop's (`loop.to_device`: to a GPU from pinned memory, without blocking the host)."""
    if type(value) is not Tensor or not value.ndim:
        return value
    device = op_device()
    return value if device is None or value.device == device else to_device(value, device)


def convert_to_tensor_on_device(value: Any, dtype: Any = None, dtype_hint: Any = None,
                                name: str | None = None) -> Any:
    """Converts `value` to a tensor, as TF's `tf.convert_to_tensor`: a tensor passes through
    (a tensor of another dtype than `dtype` is a ValueError: use `tf.cast`), numpy arrays keep
    their dtype, Python scalars and lists follow TF's inference (float32, int32, bool) or take
    `dtype_hint`, strings become numpy object arrays of `str`. A value made from Python or numpy
    data is placed as TF places ops: on the GPU when there is one (`placed`).

    Returns:
        A `torch.Tensor`, or a numpy object array for string values.
    """
    if isinstance(value, Tensor):
        return convert_to_tensor(value, dtype, dtype_hint, name)
    return placed(convert_to_tensor(value, dtype, dtype_hint, name))


# `tf.convert_to_tensor` (the library's own conversions use `convert_to_tensor`, on the host)
convert_to_tensor_on_device.__name__ = convert_to_tensor_on_device.__qualname__ = "convert_to_tensor"


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Any:
    """Creates a constant tensor from a tensor-like `value`, as TF's `tf.constant`.

    Unlike `convert_to_tensor`, a tensor of another dtype is cast, and `shape`
    reshapes the value (a scalar or one-element value is broadcast to it).

    A tensor made from Python or numpy values is placed as TF places ops: on the GPU when there
    is one (`placed`; a scalar stays on the host, where torch lets it meet any device).

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
            return placed(tensor)
        return placed(_reshaped_constant(tensor, shape))
    if shape is None:
        return tensor
    return _reshaped_constant(tensor, shape)


def _reshaped_constant(tensor: Any, shape: Any) -> Any:
    """`tf.constant`'s `shape`: the value reshaped, or a one-element value broadcast to it."""
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
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
            return pair_on_one_device(x, y)
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
