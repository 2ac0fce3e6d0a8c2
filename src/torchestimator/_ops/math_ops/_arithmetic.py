"""tf.math's arithmetic: add, subtract, multiply, the divisions, pow, the special binary functions,
add_n and accumulate_n."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    on_one_device,
)
from torchestimator._ops.math_ops._common import (
    _FLOAT_COMPLEX,
    _FLOATS,
    _INTS,
    _NUMERIC,
    _REAL,
    Tensor,
    _binary,
    _dtype_error,
    _raise_binary,
    _string_add,
    _tensor,
)
from torchestimator.errors import InvalidArgumentError

add = _binary(torch.add, "add", _NUMERIC, True,
              "Returns x + y element-wise, with broadcasting (TF's `tf.math.add`); strings "
              "concatenate.", strings=_string_add)
subtract = _binary(torch.sub, "subtract", _NUMERIC, True,
                   "Returns x - y element-wise, with broadcasting (TF's `tf.math.subtract`).")
multiply = _binary(torch.mul, "multiply", _NUMERIC, True,
                   "Returns x * y element-wise, with broadcasting (TF's `tf.math.multiply`).")
maximum = _binary(torch.maximum, "maximum", _REAL, False,
                  "Returns the max of x and y (x > y ? x : y) element-wise; NaN propagates "
                  "(TF's `tf.math.maximum`).")
minimum = _binary(torch.minimum, "minimum", _REAL, False,
                  "Returns the min of x and y (x < y ? x : y) element-wise; NaN propagates "
                  "(TF's `tf.math.minimum`).")


def _floordiv(x: Tensor, y: Any) -> Tensor:
    if x.is_floating_point():  # TF: floor(x / y), not Python's x // y (1. // .1 is 10 in TF)
        return torch.floor(torch.div(x, y))
    return torch.floor_divide(x, y)


floordiv = _binary(_floordiv, "floordiv", _REAL, True,
                   "Divides x / y element-wise, rounding toward the most negative integer "
                   "(TF's `tf.math.floordiv`: floor(x / y) for floats).")
floormod = _binary(torch.remainder, "floormod", _REAL, True,
                   "Returns the element-wise remainder of division, with the sign of the divisor: "
                   "x - floor(x / y) * y (TF's `tf.math.floormod`).")
mod = _binary(torch.remainder, "mod", _REAL, True,
              "Returns the element-wise remainder of division, with the sign of the divisor "
              "(TF's `tf.math.mod`, an alias of floormod).")
truncatediv = _binary(lambda x, y: torch.div(x, y, rounding_mode="trunc"), "truncatediv", _REAL,
                      True, "Returns x / y element-wise, rounded toward zero (TF's "
                      "`tf.truncatediv`).")
truncatemod = _binary(torch.fmod, "truncatemod", _REAL, True,
                      "Returns the element-wise remainder of division with the sign of x, as C's "
                      "fmod (TF's `tf.truncatemod`).")
_atan2 = _binary(torch.atan2, "atan2", _FLOATS, False, "atan2(y, x).")
_nextafter = _binary(torch.nextafter, "nextafter", frozenset({torch.float32, torch.float64}),
                     False, "nextafter(x1, x2).")
_igamma = _binary(torch.special.gammainc, "igamma", frozenset({torch.float32, torch.float64}),
                  False, "igamma(a, x).")
_igammac = _binary(torch.special.gammaincc, "igammac", frozenset({torch.float32, torch.float64}),
                   False, "igammac(a, x).")
_zeta = _binary(torch.special.zeta, "zeta", frozenset({torch.float32, torch.float64}), False,
                "zeta(x, q).")


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """Computes arctangent of y/x element-wise, respecting the signs of the arguments (TF's
    `tf.math.atan2(y, x)`)."""
    return _atan2(y, x)


def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    """Returns the next representable value of x1 in the direction of x2, element-wise (TF's
    `tf.math.nextafter(x1, x2)`)."""
    return _nextafter(x1, x2)


def igamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """Computes the lower regularized incomplete Gamma function P(a, x) (TF's
    `tf.math.igamma(a, x)`)."""
    return _igamma(a, x)


def igammac(a: Any, x: Any, name: str | None = None) -> Tensor:
    """Computes the upper regularized incomplete Gamma function Q(a, x) (TF's
    `tf.math.igammac(a, x)`)."""
    return _igammac(a, x)


def zeta(x: Any, q: Any, name: str | None = None) -> Tensor:
    """Computes the Hurwitz zeta function zeta(x, q) = sum_n (q + n)^-x (TF's
    `tf.math.zeta(x, q)`)."""
    return _zeta(x, q)

def _xlogy(x: Tensor, y: Tensor) -> Tensor:
    return torch.where(x == 0, torch.zeros_like(x), torch.xlogy(x, y))


def _xdivy(x: Tensor, y: Tensor) -> Tensor:
    return torch.where(x == 0, torch.zeros_like(x), x / y)


def _xlog1py(x: Tensor, y: Tensor) -> Tensor:
    return torch.where(x == 0, torch.zeros_like(x), torch.special.xlog1py(x, y))


xlogy = _binary(_xlogy, "xlogy", _FLOAT_COMPLEX, False,
                "Returns 0 if x == 0, and x * log(y) otherwise, element-wise (TF's "
                "`tf.math.xlogy`).")
xdivy = _binary(_xdivy, "xdivy", _FLOAT_COMPLEX, False,
                "Returns 0 if x == 0, and x / y otherwise, element-wise (TF's `tf.math.xdivy`).")
xlog1py = _binary(_xlog1py, "xlog1py", _FLOATS, False,
                  "Returns 0 if x == 0, and x * log1p(y) otherwise, element-wise (TF's "
                  "`tf.math.xlog1py`).")


def _squared_difference(x: Tensor, y: Any) -> Tensor:
    d = torch.sub(x, y)
    return d * d.conj() if d.is_complex() else torch.square(d)


squared_difference = _binary(_squared_difference, "squared_difference", _NUMERIC, True,
                             "Returns (x - y)(x - y) element-wise (TF's "
                             "`tf.math.squared_difference`).")


def _pow(x: Tensor, y: Any) -> Tensor:
    if x.dtype in _INTS and isinstance(y, Tensor) and builtins.bool((y < 0).any()):
        raise InvalidArgumentError(
            None, None, "pow: Integers to negative integer powers are not allowed"
        )
    return torch.pow(x, y)


pow = _binary(_pow, "pow", _NUMERIC, True,  # noqa: A001 - TF's name
              "Computes the power of one value to another, x ** y element-wise (TF's "
              "`tf.math.pow`).")

# --- division: integers divide in floating point (TF's truediv table) ----------------------
_TRUEDIV_FLOAT = {
    torch.int8: torch.float32, torch.int16: torch.float32, torch.uint8: torch.float32,
    torch.int32: torch.float64, torch.int64: torch.float64,
}
for _name, _target in (("uint16", torch.float32), ("uint32", torch.float64),
                       ("uint64", torch.float64)):
    if hasattr(torch, _name):
        _TRUEDIV_FLOAT[getattr(torch, _name)] = _target


def _division_operands(x: Any, y: Any, op: str) -> tuple[Tensor, Any]:
    """TF's truediv conversion: one dtype (else TypeError), integers to their float type."""
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype is not y.dtype:
        raise TypeError(
            f"{op}: `x` and `y` must have the same dtype, got {dtype_name(x.dtype)} != "
            f"{dtype_name(y.dtype)}."
        )
    x, y = binary_operands(x, y, op)
    if not isinstance(x, Tensor):
        x = torch.tensor(x, dtype=y.dtype, device=y.device)
    target = _TRUEDIV_FLOAT.get(x.dtype)
    if target is not None:
        x = x.to(target)
        y = y.to(target) if isinstance(y, Tensor) else y
    elif x.dtype not in _FLOAT_COMPLEX:
        raise TypeError(f"{op}: Invalid dtype {dtype_name(x.dtype)}; expected a numeric dtype.")
    return x, y


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Divides x / y elementwise, using Python 3 division semantics (TF's `tf.math.truediv`).

    Integer operands are cast to floating point first: int8, int16, uint8 and
    uint16 to float32; int32 and int64 to float64.

    Returns:
        A floating (or complex) tensor.
    """
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        dtype = x.dtype
        if dtype is y.dtype and dtype in _FLOAT_COMPLEX:
            try:
                return torch.div(x, y)
            except RuntimeError as e:
                _raise_binary("truediv", x, y, e)
    x, y = _division_operands(x, y, "truediv")
    try:
        return torch.div(x, y)
    except RuntimeError as e:
        _raise_binary("truediv", x, y, e)


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Computes Python style division of x by y (TF's `tf.math.divide`; integers divide in
    floating point, as `truediv`).

    Returns:
        A floating (or complex) tensor.
    """
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        dtype = x.dtype
        if dtype is y.dtype and dtype in _FLOAT_COMPLEX:
            try:
                return torch.div(x, y)
            except RuntimeError as e:
                _raise_binary("divide", x, y, e)
    x, y = _division_operands(x, y, "divide")
    try:
        return torch.div(x, y)
    except RuntimeError as e:
        _raise_binary("divide", x, y, e)


realdiv = _binary(torch.div, "realdiv", _FLOAT_COMPLEX, True,
                  "Returns x / y element-wise for real types (TF's `tf.realdiv`).")


def divide_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Computes a safe divide which returns 0 if `y` is zero (TF's `tf.math.divide_no_nan`).

    Returns:
        x / y where y != 0, else 0 (integers divide in floating point, as truediv).
    """
    x, y = _division_operands(x, y, "divide_no_nan")
    if not isinstance(y, Tensor):
        y = torch.tensor(y, dtype=x.dtype, device=x.device)
    try:
        quotient = torch.div(x, y)
    except RuntimeError as e:
        _raise_binary("divide_no_nan", x, y, e)
    return torch.where(y == 0, torch.zeros((), dtype=quotient.dtype, device=quotient.device),
                       quotient)


def _multiply_no_nan(x: Tensor, y: Tensor) -> Tensor:
    product = torch.mul(x, y)
    return torch.where(y == 0, torch.zeros((), dtype=product.dtype, device=product.device),
                       product)


multiply_no_nan = _binary(_multiply_no_nan, "multiply_no_nan", _FLOAT_COMPLEX, False,
                          "Computes the product of x and y and returns 0 if y is zero, even if "
                          "x is NaN or infinite (TF's `tf.math.multiply_no_nan`).")


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Tensor:
    """Multiplies a scalar times a tensor (TF's `tf.math.scalar_mul`).

    Returns:
        `scalar * x`, with `x`'s dtype; ValueError if `scalar` is not 0-D.
    """
    if isinstance(scalar, (Tensor, np.ndarray, list, tuple)) and np.ndim(scalar) != 0:
        raise ValueError(
            f"The input scalar must be a 0-D value. Received shape {tuple(np.shape(scalar))}."
        )
    return multiply(scalar, x) if isinstance(scalar, Tensor) else multiply(x, scalar)


def add_n(inputs: Any, name: str | None = None) -> Tensor:
    """Returns the element-wise sum of a list of tensors of one shape and dtype (TF's
    `tf.math.add_n`; no broadcasting).

    Returns:
        A tensor of the inputs' shape and dtype.
    """
    if isinstance(inputs, Tensor):
        return inputs
    tensors = list(inputs) if inputs is not None else []
    if not tensors:
        raise ValueError(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
            "and shape."
        )
    first = tensors[0]
    if not isinstance(first, Tensor):
        first = _tensor(first, "add_n", _NUMERIC)
    parts = [first]
    for i, t in enumerate(tensors[1:], start=1):
        if not isinstance(t, Tensor):
            t = convert_to_tensor(t, dtype_hint=first.dtype)
            if isinstance(t, np.ndarray):
                raise _dtype_error("add_n", None, _NUMERIC)
        if t.dtype is not first.dtype:
            raise InvalidArgumentError(
                None, None, f"add_n: input #{i} has dtype {dtype_name(t.dtype)}, expected "
                f"{dtype_name(first.dtype)} (the dtype of input #0)."
            )
        if t.shape != first.shape:
            raise InvalidArgumentError(
                None, None, "add_n: Inputs must have the same size and shape. Input 0: "
                f"{list(first.shape)} != input {i}: {list(t.shape)}"
            )
        parts.append(t)
    if first.dtype not in _NUMERIC:
        raise _dtype_error("add_n", first.dtype, _NUMERIC)
    if len(parts) == 1:
        return first
    parts = on_one_device(parts)
    total = torch.add(parts[0], parts[1])
    for t in parts[2:]:
        total = total.add_(t) if not total.requires_grad else total + t
    return total


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None,
                 name: str | None = None) -> Tensor:
    """Returns the element-wise sum of a list of tensors (TF's deprecated
    `tf.math.accumulate_n`, the same as `add_n`)."""
    return add_n(inputs)
