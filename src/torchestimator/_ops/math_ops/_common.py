"""The dtype sets and operand checks tf.math's ops share, and the factories that build TF's binary
and unary elementwise ops (one dtype, TF's accepted dtypes, TF's errors)."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    placed,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor
_BOOL = torch.bool
_PY_NUMBERS = (builtins.bool, int, float, complex)

# dtype families, named as TF's kernels' allowed lists
_FLOATS = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
_COMPLEX = frozenset({torch.complex64, torch.complex128})
_SIGNED = frozenset({torch.int8, torch.int16, torch.int32, torch.int64})
_UNSIGNED = frozenset(
    d for d in (torch.uint8, getattr(torch, "uint16", None), getattr(torch, "uint32", None),
                getattr(torch, "uint64", None)) if d is not None
)
_INTS = _SIGNED | _UNSIGNED
_FLOAT_COMPLEX = _FLOATS | _COMPLEX
_REAL = _FLOATS | _INTS
_NUMERIC = _REAL | _COMPLEX
_SIGNED_NUMERIC = _FLOATS | _SIGNED | _COMPLEX
_ANY = _NUMERIC | {_BOOL}
_ONLY_BOOL = frozenset({_BOOL})

_ORDER = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
          torch.complex128, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
          torch.uint16, torch.uint32, torch.uint64, torch.bool]


def _allowed_names(allowed: frozenset) -> str:
    return ", ".join(dtype_name(d) for d in _ORDER if d in allowed)


def _dtype_error(op: str, dtype: Any, allowed: frozenset) -> InvalidArgumentError:
    return InvalidArgumentError(
        None, None,
        f"{op}: Value for attr 'T' of {dtype_name(dtype) if dtype is not None else 'string'} is "
        f"not in the list of allowed values: {_allowed_names(allowed)}",
    )


def _tensor(x: Any, op: str, allowed: frozenset = _ANY) -> Tensor:
    """`x` as a tensor whose dtype is in `allowed` (TF's kernel dtypes)."""
    if not isinstance(x, Tensor):
        x = placed(convert_to_tensor(x))  # Python or numpy values: on the GPU, as TF's op runs
        if isinstance(x, np.ndarray):
            raise _dtype_error(op, None, allowed)
    if x.dtype not in allowed:
        raise _dtype_error(op, x.dtype, allowed)
    return x


def _is_strings(value: Any) -> builtins.bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "OUS"
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, (str, bytes))


def _strings(value: Any) -> np.ndarray:
    return convert_to_tensor(value, _dtypes.string)


def _raise_binary(op: str, x: Any, y: Any, error: RuntimeError) -> None:
    """Turns torch's RuntimeError for a binary op into TF's error (shapes, division by zero)."""
    xs = x.shape if isinstance(x, Tensor) else ()
    ys = y.shape if isinstance(y, Tensor) else ()
    try:
        torch.broadcast_shapes(xs, ys)
    except RuntimeError:
        raise shapes_error(op, xs, ys) from None
    if "ZeroDivisionError" in str(error):
        raise InvalidArgumentError(None, None, f"{op}: Integer division by zero") from None
    raise error


def _binary(torch_fn: Callable, op: str, allowed: frozenset, scalar_ok: builtins.bool,
            doc: str, strings: Callable | None = None) -> Callable:
    """Builds a TF binary elementwise op over `torch_fn`: a fast path for two tensors of one
    allowed dtype, TF's conversion rules for anything else."""

    def slow(x: Any, y: Any) -> Any:
        if strings is not None and (_is_strings(x) or _is_strings(y)):
            return strings(_strings(x), _strings(y))
        x, y = binary_operands(x, y, op)
        if not isinstance(x, Tensor):  # a Python number on the left
            x = torch.tensor(x, dtype=y.dtype, device=y.device)
        elif not isinstance(y, Tensor) and not scalar_ok:
            y = torch.tensor(y, dtype=x.dtype, device=x.device)
        if x.dtype not in allowed:
            raise _dtype_error(op, x.dtype, allowed)
        try:
            return torch_fn(x, y)
        except RuntimeError as e:
            _raise_binary(op, x, y, e)

    def fn(x: Any, y: Any, name: str | None = None) -> Tensor:
        if isinstance(x, Tensor):
            dtype = x.dtype
            if isinstance(y, Tensor):
                if dtype is y.dtype and dtype in allowed:
                    try:
                        return torch_fn(x, y)
                    except RuntimeError as e:
                        if x.device == y.device:
                            _raise_binary(op, x, y, e)
                    return slow(x, y)  # a host tensor next to a device one: TF copies it there
            elif scalar_ok and dtype in allowed and (
                y.__class__ is int or (y.__class__ is float and dtype in _FLOAT_COMPLEX)
            ):  # a Python number takes the tensor's dtype
                try:
                    return torch_fn(x, y)
                except RuntimeError as e:
                    _raise_binary(op, x, y, e)
        return slow(x, y)

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    fn.__module__ = __package__  # the package (math_ops was one module)
    return fn


def _unary(torch_fn: Callable, op: str, allowed: frozenset, doc: str) -> Callable:
    """Builds a TF unary elementwise op over `torch_fn` for inputs of the `allowed` dtypes."""

    def fn(x: Any, name: str | None = None) -> Tensor:
        if isinstance(x, Tensor) and x.dtype in allowed:
            return torch_fn(x)
        return torch_fn(_tensor(x, op, allowed))

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    fn.__module__ = __package__  # the package (math_ops was one module)
    return fn


# --------------------------------------------------------------------------------------------
# binary arithmetic
# --------------------------------------------------------------------------------------------
def _string_add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    try:
        return np.add(x, y, dtype=object)
    except ValueError:
        raise shapes_error("add", np.shape(x), np.shape(y)) from None
