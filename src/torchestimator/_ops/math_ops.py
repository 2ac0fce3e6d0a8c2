"""tf.math: elementwise math, comparisons, reductions, segment ops (TF names, axes and dtype rules over torch).

TensorFlow never promotes: binary ops want operands of one dtype (a Python
number takes the tensor's dtype), integer ops stay integer (`reduce_mean` of
int32 is int32, truncated), and each op accepts the dtypes TF's kernel
accepts (`tf.sqrt` of an int tensor, `tf.add` of bools are
`InvalidArgumentError`s). `truediv`/`divide` of integers is the exception TF
makes: int8/int16/uint8/uint16 divide in float32, int32/int64 in float64.

The common elementwise ops are on the per-step path: for two tensors of one
dtype they do two `isinstance` checks, a dtype check and one torch call.
"""

from __future__ import annotations

import builtins
import collections
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError

# Names TF 2.15 also has at top level (`tf.<name>`); the rest are `tf.math.<name>` only.
__all__ = [
    "abs", "acos", "acosh", "add", "add_n", "argmax", "argmin", "asin", "asinh", "atan", "atan2",
    "atanh", "cos", "cosh", "cumsum", "divide", "equal", "exp", "floor", "greater",
    "greater_equal", "less", "less_equal", "logical_and", "logical_not", "logical_or", "maximum",
    "minimum", "multiply", "negative", "not_equal", "pow", "realdiv", "reduce_all", "reduce_any",
    "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum",
    "round", "scalar_mul", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "subtract", "tan",
    "tanh", "truediv", "truncatediv", "truncatemod",
]

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
        x = convert_to_tensor(x)
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
                        _raise_binary(op, x, y, e)
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
    fn.__module__ = __name__
    return fn


def _unary(torch_fn: Callable, op: str, allowed: frozenset, doc: str) -> Callable:
    """Builds a TF unary elementwise op over `torch_fn` for inputs of the `allowed` dtypes."""

    def fn(x: Any, name: str | None = None) -> Tensor:
        if isinstance(x, Tensor) and x.dtype in allowed:
            return torch_fn(x)
        return torch_fn(_tensor(x, op, allowed))

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


# --------------------------------------------------------------------------------------------
# binary arithmetic
# --------------------------------------------------------------------------------------------
def _string_add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    try:
        return np.add(x, y, dtype=object)
    except ValueError:
        raise shapes_error("add", np.shape(x), np.shape(y)) from None


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
atan2 = _binary(torch.atan2, "atan2", _FLOATS, False,
                "Computes arctangent of y/x element-wise, respecting the signs of the arguments "
                "(TF's `tf.math.atan2(y, x)`).")
nextafter = _binary(torch.nextafter, "nextafter", frozenset({torch.float32, torch.float64}),
                    False, "Returns the next representable value of x1 in the direction of x2, "
                    "element-wise (TF's `tf.math.nextafter`).")
igamma = _binary(torch.special.gammainc, "igamma", frozenset({torch.float32, torch.float64}),
                 False, "Computes the lower regularized incomplete Gamma function P(a, x) "
                 "(TF's `tf.math.igamma`).")
igammac = _binary(torch.special.gammaincc, "igammac", frozenset({torch.float32, torch.float64}),
                  False, "Computes the upper regularized incomplete Gamma function Q(a, x) "
                  "(TF's `tf.math.igammac`).")
zeta = _binary(torch.special.zeta, "zeta", frozenset({torch.float32, torch.float64}), False,
               "Computes the Hurwitz zeta function zeta(x, q) (TF's `tf.math.zeta`).")


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
    total = torch.add(parts[0], parts[1])
    for t in parts[2:]:
        total = total.add_(t) if not total.requires_grad else total + t
    return total


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None,
                 name: str | None = None) -> Tensor:
    """Returns the element-wise sum of a list of tensors (TF's deprecated
    `tf.math.accumulate_n`, the same as `add_n`)."""
    return add_n(inputs)


# --------------------------------------------------------------------------------------------
# comparisons and logic
# --------------------------------------------------------------------------------------------
def _string_compare(np_fn: Callable, op: str) -> Callable:
    def compare(x: np.ndarray, y: np.ndarray) -> Tensor:
        try:
            return torch.from_numpy(np.asarray(np_fn(x, y), dtype=np.bool_))
        except ValueError:
            raise shapes_error(op, np.shape(x), np.shape(y)) from None

    return compare


equal = _binary(torch.eq, "equal", _ANY, True,
                "Returns the truth value of (x == y) element-wise, with broadcasting (TF's "
                "`tf.math.equal`; strings compare too).",
                strings=_string_compare(np.equal, "equal"))
not_equal = _binary(torch.ne, "not_equal", _ANY, True,
                    "Returns the truth value of (x != y) element-wise, with broadcasting (TF's "
                    "`tf.math.not_equal`; strings compare too).",
                    strings=_string_compare(np.not_equal, "not_equal"))
less = _binary(torch.lt, "less", _REAL, True,
               "Returns the truth value of (x < y) element-wise (TF's `tf.math.less`).")
less_equal = _binary(torch.le, "less_equal", _REAL, True,
                     "Returns the truth value of (x <= y) element-wise (TF's "
                     "`tf.math.less_equal`).")
greater = _binary(torch.gt, "greater", _REAL, True,
                  "Returns the truth value of (x > y) element-wise (TF's `tf.math.greater`).")
greater_equal = _binary(torch.ge, "greater_equal", _REAL, True,
                        "Returns the truth value of (x >= y) element-wise (TF's "
                        "`tf.math.greater_equal`).")
logical_and = _binary(torch.logical_and, "logical_and", _ONLY_BOOL, False,
                      "Returns the truth value of x AND y element-wise; bool tensors only (TF's "
                      "`tf.math.logical_and`).")
logical_or = _binary(torch.logical_or, "logical_or", _ONLY_BOOL, False,
                     "Returns the truth value of x OR y element-wise; bool tensors only (TF's "
                     "`tf.math.logical_or`).")
logical_xor = _binary(torch.logical_xor, "logical_xor", _ONLY_BOOL, False,
                      "Returns the truth value of x XOR y element-wise; bool tensors only (TF's "
                      "`tf.math.logical_xor`).")
logical_not = _unary(torch.logical_not, "logical_not", _ONLY_BOOL,
                     "Returns the truth value of NOT x element-wise; bool tensors only (TF's "
                     "`tf.math.logical_not`).")

# --------------------------------------------------------------------------------------------
# unary elementwise
# --------------------------------------------------------------------------------------------
abs = _unary(torch.abs, "abs", _SIGNED_NUMERIC,  # noqa: A001 - TF's name
             "Computes the absolute value of a tensor (TF's `tf.math.abs`); complex input gives "
             "the real magnitude.")
negative = _unary(torch.neg, "negative", _SIGNED_NUMERIC,
                  "Computes numerical negative value element-wise, -x (TF's "
                  "`tf.math.negative`).")
square = _unary(torch.square, "square", _NUMERIC,
                "Computes square of x element-wise, x * x (TF's `tf.math.square`).")
sqrt = _unary(torch.sqrt, "sqrt", _FLOAT_COMPLEX,
              "Computes element-wise square root (TF's `tf.math.sqrt`); floating or complex "
              "input.")
rsqrt = _unary(torch.rsqrt, "rsqrt", _FLOAT_COMPLEX,
               "Computes reciprocal of square root of x element-wise, 1 / sqrt(x) (TF's "
               "`tf.math.rsqrt`).")
exp = _unary(torch.exp, "exp", _FLOAT_COMPLEX,
             "Computes exponential of x element-wise, e^x (TF's `tf.math.exp`).")
expm1 = _unary(torch.expm1, "expm1", _FLOAT_COMPLEX,
               "Computes exp(x) - 1 element-wise (TF's `tf.math.expm1`).")
log = _unary(torch.log, "log", _FLOAT_COMPLEX,
             "Computes natural logarithm of x element-wise (TF's `tf.math.log`).")
log1p = _unary(torch.log1p, "log1p", _FLOAT_COMPLEX,
               "Computes natural logarithm of (1 + x) element-wise (TF's `tf.math.log1p`).")
sigmoid = _unary(torch.sigmoid, "sigmoid", _FLOAT_COMPLEX,
                 "Computes sigmoid of x element-wise, 1 / (1 + exp(-x)) (TF's "
                 "`tf.math.sigmoid`).")
log_sigmoid = _unary(F.logsigmoid, "log_sigmoid", _FLOATS,
                     "Computes log sigmoid of x element-wise, -softplus(-x) (TF's "
                     "`tf.math.log_sigmoid`).")
tanh = _unary(torch.tanh, "tanh", _FLOAT_COMPLEX,
              "Computes hyperbolic tangent of x element-wise (TF's `tf.math.tanh`).")
softplus = _unary(F.softplus, "softplus", _FLOATS,
                  "Computes log(exp(features) + 1) element-wise (TF's `tf.math.softplus`).")
sin = _unary(torch.sin, "sin", _FLOAT_COMPLEX,
             "Computes sine of x element-wise (TF's `tf.math.sin`).")
cos = _unary(torch.cos, "cos", _FLOAT_COMPLEX,
             "Computes cosine of x element-wise (TF's `tf.math.cos`).")
tan = _unary(torch.tan, "tan", _FLOAT_COMPLEX,
             "Computes tangent of x element-wise (TF's `tf.math.tan`).")
asin = _unary(torch.asin, "asin", _FLOAT_COMPLEX,
              "Computes the inverse sine of x element-wise (TF's `tf.math.asin`).")
acos = _unary(torch.acos, "acos", _FLOAT_COMPLEX,
              "Computes the inverse cosine of x element-wise (TF's `tf.math.acos`).")
atan = _unary(torch.atan, "atan", _FLOAT_COMPLEX,
              "Computes the inverse tangent of x element-wise (TF's `tf.math.atan`).")
sinh = _unary(torch.sinh, "sinh", _FLOAT_COMPLEX,
              "Computes hyperbolic sine of x element-wise (TF's `tf.math.sinh`).")
cosh = _unary(torch.cosh, "cosh", _FLOAT_COMPLEX,
              "Computes hyperbolic cosine of x element-wise (TF's `tf.math.cosh`).")
asinh = _unary(torch.asinh, "asinh", _FLOAT_COMPLEX,
               "Computes inverse hyperbolic sine of x element-wise (TF's `tf.math.asinh`).")
acosh = _unary(torch.acosh, "acosh", _FLOAT_COMPLEX,
               "Computes inverse hyperbolic cosine of x element-wise (TF's `tf.math.acosh`).")
atanh = _unary(torch.atanh, "atanh", _FLOAT_COMPLEX,
               "Computes inverse hyperbolic tangent of x element-wise (TF's `tf.math.atanh`).")
reciprocal = _unary(torch.reciprocal, "reciprocal", _FLOAT_COMPLEX,
                    "Computes the reciprocal of x element-wise, 1 / x (TF's "
                    "`tf.math.reciprocal`).")
floor = _unary(torch.floor, "floor", _FLOATS,
               "Returns element-wise largest integer not greater than x (TF's `tf.math.floor`).")
ceil = _unary(torch.ceil, "ceil", _FLOATS,
              "Return the ceiling of the input, element-wise (TF's `tf.math.ceil`).")
rint = _unary(torch.round, "rint", _FLOATS,
              "Returns element-wise integer closest to x, half to even (TF's `tf.math.rint`).")
erf = _unary(torch.erf, "erf", _FLOATS,
             "Computes the Gauss error function of x element-wise (TF's `tf.math.erf`).")
erfc = _unary(torch.erfc, "erfc", _FLOATS,
              "Computes the complementary error function of x element-wise (TF's "
              "`tf.math.erfc`).")
erfinv = _unary(torch.erfinv, "erfinv", _FLOATS,
                "Computes the inverse error function of x element-wise (TF's `tf.math.erfinv`).")
ndtri = _unary(torch.special.ndtri, "ndtri", _FLOATS,
               "Computes the inverse of the standard normal CDF element-wise (TF's "
               "`tf.math.ndtri`).")
lgamma = _unary(torch.lgamma, "lgamma", _FLOATS,
                "Computes the log of the absolute value of Gamma(x) element-wise (TF's "
                "`tf.math.lgamma`).")
digamma = _unary(torch.digamma, "digamma", _FLOATS,
                 "Computes Psi, the derivative of lgamma, element-wise (TF's "
                 "`tf.math.digamma`).")
bessel_i0 = _unary(torch.special.i0, "bessel_i0", _FLOATS,
                   "Computes the modified Bessel function of order 0 element-wise (TF's "
                   "`tf.math.bessel_i0`).")
bessel_i0e = _unary(torch.special.i0e, "bessel_i0e", _FLOATS,
                    "Computes the exponentially scaled modified Bessel function of order 0 "
                    "(TF's `tf.math.bessel_i0e`).")
bessel_i1 = _unary(torch.special.i1, "bessel_i1", _FLOATS,
                   "Computes the modified Bessel function of order 1 element-wise (TF's "
                   "`tf.math.bessel_i1`).")
bessel_i1e = _unary(torch.special.i1e, "bessel_i1e", _FLOATS,
                    "Computes the exponentially scaled modified Bessel function of order 1 "
                    "(TF's `tf.math.bessel_i1e`).")
is_nan = _unary(torch.isnan, "is_nan", _FLOATS,
                "Returns which elements of x are NaN (TF's `tf.math.is_nan`).")
is_inf = _unary(torch.isinf, "is_inf", _FLOATS,
                "Returns which elements of x are Inf (TF's `tf.math.is_inf`).")
is_finite = _unary(torch.isfinite, "is_finite", _FLOATS,
                   "Returns which elements of x are finite (TF's `tf.math.is_finite`).")


def _sign(x: Tensor) -> Tensor:
    if x.is_floating_point():  # TF keeps NaN (torch.sign gives 0)
        return torch.where(torch.isnan(x), x, torch.sign(x))
    return torch.sgn(x)


sign = _unary(_sign, "sign", _SIGNED_NUMERIC,
              "Returns an element-wise indication of the sign of a number: -1, 0 or 1 (x / |x| "
              "for complex; NaN stays NaN) (TF's `tf.math.sign`).")


def _round(x: Tensor) -> Tensor:
    return torch.round(x) if x.is_floating_point() else x


round = _unary(_round, "round", _REAL,  # noqa: A001 - TF's name
               "Rounds the values of a tensor to the nearest integer, element-wise, half to even "
               "(banker's rounding) (TF's `tf.math.round`); integers pass through.")


def erfcinv(x: Any, name: str | None = None) -> Tensor:
    """Computes the inverse of the complementary error function element-wise (TF's
    `tf.math.erfcinv`)."""
    x = _tensor(x, "erfcinv", _FLOATS)
    return -torch.special.ndtri(x * 0.5) * (0.5 ** 0.5)


def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """Returns 1 / x element-wise, and 0 where x is 0 (TF's `tf.math.reciprocal_no_nan`)."""
    x = _tensor(x, "reciprocal_no_nan", _FLOAT_COMPLEX)
    return torch.where(x == 0, torch.zeros((), dtype=x.dtype, device=x.device),
                       torch.reciprocal(x))


def conj(x: Any, name: str | None = None) -> Tensor:
    """Returns the complex conjugate of a complex number; real input passes through (TF's
    `tf.math.conj`)."""
    x = _tensor(x, "conj", _ANY)
    return torch.conj_physical(x) if x.is_complex() else x


def real(input: Any, name: str | None = None) -> Tensor:
    """Returns the real part of a complex (or real) number (TF's `tf.math.real`)."""
    x = _tensor(input, "real", _NUMERIC)
    return x.real if x.is_complex() else x


def imag(input: Any, name: str | None = None) -> Tensor:
    """Returns the imaginary part of a complex number; zeros for real input (TF's
    `tf.math.imag`)."""
    x = _tensor(input, "imag", _FLOAT_COMPLEX)
    return x.imag if x.is_complex() else torch.zeros_like(x)


def angle(input: Any, name: str | None = None) -> Tensor:
    """Returns the element-wise argument of a complex (or real) tensor (TF's `tf.math.angle`):
    pi for negative reals, 0 otherwise."""
    x = _tensor(input, "angle", _FLOAT_COMPLEX)
    return torch.angle(x)


def lbeta(x: Any, name: str | None = None) -> Tensor:
    """Computes ln(|Beta(x)|), reducing along the last dimension (TF's `tf.math.lbeta`)."""
    x = _tensor(x, "lbeta", _FLOATS)
    if x.dim() == 0:
        raise InvalidArgumentError(None, None, "lbeta: x must have rank >= 1.")
    return torch.lgamma(x).sum(-1) - torch.lgamma(x.sum(-1))


def polyval(coeffs: Any, x: Any, name: str | None = None) -> Tensor:
    """Computes the elementwise value of a polynomial: coeffs[0] * x**(n-1) + ... + coeffs[n-1]
    (TF's `tf.math.polyval`, Horner's method).

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    if isinstance(coeffs, Tensor) or not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"polyval: coeffs must be a list of tensors or numbers, got {coeffs!r}.")
    x = _tensor(x, "polyval", _NUMERIC)
    if not coeffs:
        return torch.zeros_like(x)
    result = coeffs[0]
    result = result if isinstance(result, Tensor) else torch.as_tensor(
        result, dtype=x.dtype, device=x.device)
    for c in coeffs[1:]:
        result = add(multiply(result, x), c)
    return result if result.shape == x.shape else result.expand(
        torch.broadcast_shapes(result.shape, x.shape))


def invert_permutation(x: Any, name: str | None = None) -> Tensor:
    """Computes the inverse permutation of a 1-D permutation tensor (TF's
    `tf.math.invert_permutation`)."""
    x = _tensor(x, "invert_permutation", frozenset({torch.int32, torch.int64}))
    if x.dim() != 1:
        raise InvalidArgumentError(
            None, None, f"invert_permutation expects a 1-D vector, got shape {list(x.shape)}"
        )
    n = x.numel()
    order = torch.arange(n, dtype=x.dtype, device=x.device)
    if n and not torch.equal(torch.sort(x).values, order):
        raise InvalidArgumentError(
            None, None, f"invert_permutation: {x.tolist()} is not a permutation of 0..{n - 1}."
        )
    out = torch.empty_like(x)
    out[x.long()] = order
    return out


def is_non_decreasing(x: Any, name: str | None = None) -> Tensor:
    """Returns True if `x` (flattened) is non-decreasing (TF's `tf.math.is_non_decreasing`)."""
    x = _tensor(x, "is_non_decreasing", _REAL).reshape(-1)
    return torch.all(x[1:] >= x[:-1])


def is_strictly_increasing(x: Any, name: str | None = None) -> Tensor:
    """Returns True if `x` (flattened) is strictly increasing (TF's
    `tf.math.is_strictly_increasing`)."""
    x = _tensor(x, "is_strictly_increasing", _REAL).reshape(-1)
    return torch.all(x[1:] > x[:-1])


# --------------------------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------------------------
def _axes(axis: Any, rank: int, op: str) -> tuple[int, ...] | None:
    """TF's reduction axes: None (all), or a tuple of distinct axes in [0, rank)."""
    if axis is None:
        return None
    if isinstance(axis, (Tensor, np.ndarray)):
        axis = axis.tolist()
    items = axis if isinstance(axis, (list, tuple)) else [axis]
    out = []
    for a in items:
        if isinstance(a, float) or isinstance(a, builtins.bool):
            raise TypeError(f"{op}: axis must be integers, got {axis!r}.")
        a = int(a)
        if not -rank <= a < rank:
            raise InvalidArgumentError(
                None, None,
                f"{op}: Invalid reduction dimension ({a} for input with {rank} dimension(s))",
            )
        a %= rank
        if a in out:
            raise InvalidArgumentError(
                None, None,
                f"{op}: Invalid reduction arguments: Axes contains duplicate dimension: {a}",
            )
        out.append(a)
    return tuple(out)


def _all_axes(x: Tensor, dims: tuple[int, ...] | None) -> tuple[int, ...]:
    return tuple(builtins.range(x.dim())) if dims is None else dims


def _reduced_shape(x: Tensor, dims: tuple[int, ...] | None, keepdims: Any) -> list[int]:
    dims = _all_axes(x, dims)
    if keepdims:
        return [1 if i in dims else d for i, d in enumerate(x.shape)]
    return [d for i, d in enumerate(x.shape) if i not in dims]


def _count(x: Tensor, dims: tuple[int, ...] | None) -> int:
    count = 1
    for i in _all_axes(x, dims):
        count *= x.shape[i]
    return count


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the sum of elements across dimensions of a tensor (TF's `tf.math.reduce_sum`).

    `axis=None` reduces every dimension; negative axes count from the end.
    Integer sums stay in the input dtype (overflow wraps, as TF).

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = input_tensor if isinstance(input_tensor, Tensor) and input_tensor.dtype in _NUMERIC \
        else _tensor(input_tensor, "reduce_sum", _NUMERIC)
    if axis is None:
        result = torch.sum(x, dtype=x.dtype)
        return result.reshape([1] * x.dim()) if keepdims else result
    dims = _axes(axis, x.dim(), "reduce_sum")
    if not dims:
        return x
    return torch.sum(x, dim=dims, keepdim=builtins.bool(keepdims), dtype=x.dtype)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                name: str | None = None) -> Tensor:
    """Computes the mean of elements across dimensions of a tensor (TF's `tf.math.reduce_mean`).

    The mean of an integer tensor is an integer of the same dtype (the sum
    divided by the count, truncated toward zero), as in TF; the mean over no
    elements is NaN for floats and 0 for integers.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = input_tensor if isinstance(input_tensor, Tensor) and input_tensor.dtype in _NUMERIC \
        else _tensor(input_tensor, "reduce_mean", _NUMERIC)
    dims = _axes(axis, x.dim(), "reduce_mean")
    keep = builtins.bool(keepdims)
    if dims is not None and not dims:
        return x
    if x.dtype in _INTS:
        count = _count(x, dims)
        total = torch.sum(x, dim=_all_axes(x, dims), keepdim=keep, dtype=torch.int64)
        if count == 0:
            return torch.zeros_like(total, dtype=x.dtype)
        return torch.div(total, count, rounding_mode="trunc").to(x.dtype)
    if dims is None:
        result = torch.mean(x)
        return result.reshape([1] * x.dim()) if keep else result
    return torch.mean(x, dim=dims, keepdim=keep)


def _extreme(x: Tensor, largest: builtins.bool) -> Any:
    if x.dtype in _FLOATS:
        return float("-inf") if largest else float("inf")
    info = torch.iinfo(x.dtype)
    return info.min if largest else info.max


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the maximum of elements across dimensions of a tensor (TF's
    `tf.math.reduce_max`); NaN propagates; the max over no elements is -inf (the dtype's lowest
    value for integers).

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_max", _REAL)
    dims = _axes(axis, x.dim(), "reduce_max")
    if dims is not None and not dims:
        return x
    if x.numel() == 0:
        return torch.full(_reduced_shape(x, dims, keepdims), _extreme(x, True), dtype=x.dtype,
                          device=x.device)
    return torch.amax(x, dim=_all_axes(x, dims), keepdim=builtins.bool(keepdims))


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the minimum of elements across dimensions of a tensor (TF's
    `tf.math.reduce_min`); NaN propagates; the min over no elements is +inf (the dtype's highest
    value for integers).

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_min", _REAL)
    dims = _axes(axis, x.dim(), "reduce_min")
    if dims is not None and not dims:
        return x
    if x.numel() == 0:
        return torch.full(_reduced_shape(x, dims, keepdims), _extreme(x, False), dtype=x.dtype,
                          device=x.device)
    return torch.amin(x, dim=_all_axes(x, dims), keepdim=builtins.bool(keepdims))


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                name: str | None = None) -> Tensor:
    """Computes the product of elements across dimensions of a tensor (TF's
    `tf.math.reduce_prod`); the product over no elements is 1.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_prod", _NUMERIC)
    dims = _axes(axis, x.dim(), "reduce_prod")
    keep = builtins.bool(keepdims)
    if dims is not None and not dims:
        return x
    if dims is None or len(dims) == x.dim():
        result = torch.prod(x, dtype=x.dtype)
        return result.reshape([1] * x.dim()) if keep else result
    if len(dims) == 1:
        return torch.prod(x, dim=dims[0], keepdim=keep, dtype=x.dtype)
    # several (not all) axes: move them to the end, flatten them and take one product
    rest = [i for i in builtins.range(x.dim()) if i not in dims]
    moved = x.permute(*rest, *dims).reshape(*[x.shape[i] for i in rest], -1)
    result = torch.prod(moved, dim=-1, dtype=x.dtype)
    return result.reshape(_reduced_shape(x, dims, True)) if keep else result


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the logical or of elements across dimensions of a bool tensor (TF's
    `tf.math.reduce_any`); False over no elements.

    Returns:
        A bool tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_any", _ONLY_BOOL)
    dims = _axes(axis, x.dim(), "reduce_any")
    if dims is not None and not dims:
        return x
    return torch.any(x, dim=_all_axes(x, dims), keepdim=builtins.bool(keepdims)) if x.dim() \
        else x.clone()


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the logical and of elements across dimensions of a bool tensor (TF's
    `tf.math.reduce_all`); True over no elements.

    Returns:
        A bool tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_all", _ONLY_BOOL)
    dims = _axes(axis, x.dim(), "reduce_all")
    if dims is not None and not dims:
        return x
    return torch.all(x, dim=_all_axes(x, dims), keepdim=builtins.bool(keepdims)) if x.dim() \
        else x.clone()


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                     name: str | None = None) -> Tensor:
    """Computes log(sum(exp(elements across dimensions of a tensor))), numerically stable (TF's
    `tf.math.reduce_logsumexp`); -inf over no elements.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_logsumexp", _FLOATS)
    dims = _axes(axis, x.dim(), "reduce_logsumexp")
    if dims is not None and not dims:
        return x
    if x.dim() == 0:
        return x.clone()
    return torch.logsumexp(x, dim=_all_axes(x, dims), keepdim=builtins.bool(keepdims))


def _float_or_complex(input_tensor: Any, op: str) -> Tensor:
    x = input_tensor if isinstance(input_tensor, Tensor) else convert_to_tensor(input_tensor)
    if isinstance(x, np.ndarray) or x.dtype not in _FLOAT_COMPLEX:
        kind = "integer" if not isinstance(x, np.ndarray) and x.dtype in _INTS else "non-numeric"
        shown = "string" if isinstance(x, np.ndarray) else dtype_name(x.dtype)
        raise TypeError(f"{op}: Input must be either real or complex. Received {kind} type "
                        f"{shown}.")
    return x


def _variance(input_tensor: Any, axis: Any, keepdims: Any, op: str) -> Tensor:
    x = _float_or_complex(input_tensor, op)
    dims = _axes(axis, x.dim(), op)
    keep = builtins.bool(keepdims)
    all_dims = _all_axes(x, dims)
    if dims is not None and not dims:
        return torch.zeros_like(x.real if x.is_complex() else x)
    if x.numel() == 0 or x.dim() == 0:  # TF's formula, without torch's warning: NaN when empty
        mean = torch.mean(x, dim=all_dims, keepdim=True) if x.dim() else x
        deviation = torch.abs(x - mean) ** 2
        return torch.mean(deviation, dim=all_dims, keepdim=keep) if x.dim() else deviation
    return torch.var(x, dim=all_dims, correction=0, keepdim=keep)


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                    name: str | None = None) -> Tensor:
    """Computes the (population) variance of elements across dimensions of a tensor (TF's
    `tf.math.reduce_variance`): mean(|x - mean(x)|**2); NaN over no elements.

    Returns:
        A real tensor (complex input gives its real dtype).
    """
    return _variance(input_tensor, axis, keepdims, "reduce_variance")


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: Any = False,
               name: str | None = None) -> Tensor:
    """Computes the (population) standard deviation of elements across dimensions of a tensor
    (TF's `tf.math.reduce_std`).

    Returns:
        A real tensor (complex input gives its real dtype).
    """
    return torch.sqrt(_variance(input_tensor, axis, keepdims, "reduce_std"))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: Any = False,
                          name: str | None = None) -> Tensor:
    """Computes the Euclidean norm, sqrt(sum(x**2)), of elements across dimensions of a tensor
    (TF's `tf.math.reduce_euclidean_norm`); integer input gives the truncated integer norm.

    Returns:
        The reduced tensor, with the reduced dimensions kept as 1 if `keepdims`.
    """
    x = _tensor(input_tensor, "reduce_euclidean_norm", _NUMERIC)
    dims = _axes(axis, x.dim(), "reduce_euclidean_norm")
    keep = builtins.bool(keepdims)
    if dims is not None and not dims:
        return x
    if x.dtype in _INTS:
        norm = torch.linalg.vector_norm(x.to(torch.float64), 2, dim=_all_axes(x, dims),
                                        keepdim=keep)
        return torch.trunc(norm).to(x.dtype)
    return torch.linalg.vector_norm(x, 2, dim=_all_axes(x, dims), keepdim=keep)


def count_nonzero(input: Any, axis: Any = None, keepdims: Any = None, dtype: Any = torch.int64,
                  name: str | None = None) -> Tensor:
    """Computes the number of nonzero elements across dimensions of a tensor (TF's
    `tf.math.count_nonzero`); for strings, the non-empty ones.

    Returns:
        A tensor of `dtype` (int64 by default).
    """
    want = _dtypes.as_dtype(dtype)
    if isinstance(input, Tensor):
        nonzero = input != 0
    else:
        value = convert_to_tensor(input)
        if isinstance(value, np.ndarray):
            nonzero = torch.from_numpy(np.vectorize(builtins.len, otypes=[np.int64])(value) > 0
                                       if value.size else np.zeros(value.shape, dtype=bool))
        else:
            nonzero = value != 0
    dims = _axes(axis, nonzero.dim(), "count_nonzero")
    if dims is None:
        result = torch.sum(nonzero, dtype=want)
        return result.reshape([1] * nonzero.dim()) if keepdims else result
    if not dims:
        return nonzero.to(want)
    return torch.sum(nonzero, dim=dims, keepdim=builtins.bool(keepdims), dtype=want)


# --------------------------------------------------------------------------------------------
# arg reductions, scans, top_k
# --------------------------------------------------------------------------------------------
def _single_axis(axis: Any, rank: int, op: str, message: str) -> int:
    if isinstance(axis, (Tensor, np.ndarray)):
        if np.ndim(axis) != 0:
            raise InvalidArgumentError(
                None, None, f"{op}: dim must be a scalar, but received tensor of shape: "
                f"{list(np.shape(axis))}"
            )
        axis = axis.item()
    if isinstance(axis, (list, tuple)):
        raise InvalidArgumentError(
            None, None, f"{op}: dim must be a scalar, but received tensor of shape: "
            f"[{len(axis)}]"
        )
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            None, None, f"{op}: {message} in the range [{-rank}, {rank}), but got {axis}"
        )
    return axis % rank


_ARG_TYPES = frozenset({torch.int32, torch.int64, torch.int16} | (
    {torch.uint16} if hasattr(torch, "uint16") else set()))


def _arg_reduce(input: Any, axis: Any, output_type: Any, op: str, largest: builtins.bool) -> Tensor:
    x = _tensor(input, op, _REAL | {_BOOL})
    out = _dtypes.as_dtype(output_type)
    if out not in _ARG_TYPES:
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'output_type' of {dtype_name(out)} is not in the "
            "list of allowed values: int16, uint16, int32, int64"
        )
    dim = _single_axis(0 if axis is None else axis, x.dim(), op, "Expected dimension")
    if x.shape[dim] == 0:
        raise InvalidArgumentError(
            None, None, f"{op}: Reduction axis {dim} is empty in shape {list(x.shape)}"
        )
    if x.dtype is _BOOL:
        x = x.to(torch.uint8)
    elif x.is_floating_point():  # TF's kernel skips NaN (torch would pick it)
        x = torch.where(torch.isnan(x), float("-inf") if largest else float("inf"), x)
    index = torch.argmax(x, dim=dim) if largest else torch.argmin(x, dim=dim)
    return index if out is torch.int64 else index.to(out)


def argmax(input: Any, axis: Any = None, output_type: Any = torch.int64,
           name: str | None = None) -> Tensor:
    """Returns the index with the largest value across an axis of a tensor (TF's
    `tf.math.argmax`): `axis` defaults to 0; ties give the smallest index.

    Returns:
        An int64 (or `output_type`) tensor with `axis` removed.
    """
    return _arg_reduce(input, axis, output_type, "argmax", True)


def argmin(input: Any, axis: Any = None, output_type: Any = torch.int64,
           name: str | None = None) -> Tensor:
    """Returns the index with the smallest value across an axis of a tensor (TF's
    `tf.math.argmin`): `axis` defaults to 0; ties give the smallest index.

    Returns:
        An int64 (or `output_type`) tensor with `axis` removed.
    """
    return _arg_reduce(input, axis, output_type, "argmin", False)


def _scan(x: Tensor, axis: Any, exclusive: Any, reverse: Any, op: str,
          scan_fn: Callable[[Tensor, int], Tensor], identity: float) -> Tensor:
    dim = _single_axis(axis, x.dim(), op, "ScanOp: Expected scan axis")
    if reverse:
        x = x.flip(dim)
    result = scan_fn(x, dim)
    if exclusive and x.shape[dim] > 0:
        shape = list(x.shape)
        shape[dim] = 1
        first = torch.full(shape, identity, dtype=result.dtype, device=result.device)
        result = torch.cat([first, result.narrow(dim, 0, x.shape[dim] - 1)], dim=dim)
    return result.flip(dim) if reverse else result


def cumsum(x: Any, axis: Any = 0, exclusive: Any = False, reverse: Any = False,
           name: str | None = None) -> Tensor:
    """Computes the cumulative sum of the tensor `x` along `axis` (TF's `tf.math.cumsum`);
    `exclusive` starts from 0, `reverse` sums from the end.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    x = _tensor(x, "cumsum", _NUMERIC)
    return _scan(x, axis, exclusive, reverse, "cumsum",
                 lambda t, d: torch.cumsum(t, d, dtype=t.dtype), 0)


def cumprod(x: Any, axis: Any = 0, exclusive: Any = False, reverse: Any = False,
            name: str | None = None) -> Tensor:
    """Computes the cumulative product of the tensor `x` along `axis` (TF's
    `tf.math.cumprod`); `exclusive` starts from 1, `reverse` multiplies from the end.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    x = _tensor(x, "cumprod", _NUMERIC)
    return _scan(x, axis, exclusive, reverse, "cumprod",
                 lambda t, d: torch.cumprod(t, d, dtype=t.dtype), 1)


def cumulative_logsumexp(x: Any, axis: Any = 0, exclusive: Any = False, reverse: Any = False,
                         name: str | None = None) -> Tensor:
    """Computes the cumulative log-sum-exp of the tensor `x` along `axis` (TF's
    `tf.math.cumulative_logsumexp`); `exclusive` starts from -inf.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    x = _tensor(x, "cumulative_logsumexp", _FLOATS)
    return _scan(x, axis, exclusive, reverse, "cumulative_logsumexp", torch.logcumsumexp,
                 float("-inf"))


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _top_k(x: Tensor, k: int, dim: int, largest: builtins.bool, index_type: torch.dtype,
           op: str) -> tuple[Tensor, Tensor]:
    n = x.shape[dim]
    if k < 0:
        raise InvalidArgumentError(None, None, f"{op}: Need k >= 0, got {k}")
    if n < k:
        raise InvalidArgumentError(
            None, None, f"{op}: input must have at least k columns. Had {n}, needed {k}"
        )
    key = x
    if x.is_floating_point():  # TF ranks NaN below every number
        key = torch.where(torch.isnan(x), float("-inf") if largest else float("inf"), x)
    # A stable sort keeps TF's tie order: among equal values, the lower index first.
    order = torch.sort(key, dim=dim, descending=largest, stable=True).indices.narrow(dim, 0, k)
    values = torch.gather(x, dim, order)
    return values, order if index_type is torch.int64 else order.to(index_type)


def top_k(input: Any, k: Any = 1, sorted: builtins.bool = True, index_type: Any = torch.int32,
          name: str | None = None) -> TopKV2:
    """Finds values and indices of the `k` largest entries for the last dimension (TF's
    `tf.math.top_k`); equal values keep the lower index first.

    Returns:
        A `TopKV2(values, indices)` namedtuple; indices are int32 (or `index_type`).
    """
    x = _tensor(input, "top_k", _REAL)
    if x.dim() == 0:
        raise InvalidArgumentError(
            None, None, f"top_k: input must be >= 1-D, got shape {list(x.shape)}"
        )
    index_type = _dtypes.as_dtype(index_type)
    if index_type not in (torch.int16, torch.int32, torch.int64):
        raise InvalidArgumentError(
            None, None, f"top_k: index_type must be int16, int32 or int64, got "
            f"{dtype_name(index_type)}"
        )
    values, indices = _top_k(x, int(k), x.dim() - 1, True, index_type, "top_k")
    return TopKV2(values, indices)


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: builtins.bool = True, name: str | None = None) -> ApproxTopK:
    """Returns the max `k` values and their indices along `reduction_dimension` (TF's
    `tf.math.approx_max_k`; computed exactly here).

    Returns:
        An `ApproxTopK(values, indices)` namedtuple with int32 indices.
    """
    x = _tensor(operand, "approx_max_k", _REAL)
    dim = _single_axis(reduction_dimension, x.dim(), "approx_max_k", "Expected dimension")
    return ApproxTopK(*_top_k(x, int(k), dim, True, torch.int32, "approx_max_k"))


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: builtins.bool = True, name: str | None = None) -> ApproxTopK:
    """Returns the min `k` values and their indices along `reduction_dimension` (TF's
    `tf.math.approx_min_k`; computed exactly here).

    Returns:
        An `ApproxTopK(values, indices)` namedtuple with int32 indices.
    """
    x = _tensor(operand, "approx_min_k", _REAL)
    dim = _single_axis(reduction_dimension, x.dim(), "approx_min_k", "Expected dimension")
    return ApproxTopK(*_top_k(x, int(k), dim, False, torch.int32, "approx_min_k"))


def in_top_k(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Tensor:
    """Says whether the targets are in the top `k` predictions (TF's `tf.math.in_top_k`).

    Classes tied with the target's prediction at the top-k boundary count as
    in the top k; a row with a non-finite prediction, or a target out of
    range, gives False.

    Returns:
        A bool tensor of shape [batch_size].
    """
    preds = _tensor(predictions, "in_top_k", frozenset({torch.float32}))
    tgts = _tensor(targets, "in_top_k", frozenset({torch.int32, torch.int64}))
    if preds.dim() != 2 or tgts.dim() != 1 or tgts.shape[0] != preds.shape[0]:
        raise InvalidArgumentError(
            None, None, "in_top_k: predictions must be 2-D and targets 1-D with one target per "
            f"row; got shapes {list(preds.shape)} and {list(tgts.shape)}"
        )
    classes = preds.shape[1]
    valid = (tgts >= 0) & (tgts < classes)
    index = tgts.clamp(0, max(classes - 1, 0)).long().unsqueeze(1)
    if classes == 0:
        return torch.zeros(tgts.shape, dtype=torch.bool, device=preds.device)
    target_pred = torch.gather(preds, 1, index)
    better = (preds > target_pred).sum(1)
    return valid & torch.isfinite(preds).all(1) & (better < int(k))


# --------------------------------------------------------------------------------------------
# segments, counting
# --------------------------------------------------------------------------------------------
_INDEX_TYPES = frozenset({torch.int32, torch.int64})


def _segment_ids(segment_ids: Any, op: str) -> Tensor:
    ids = segment_ids if isinstance(segment_ids, Tensor) else convert_to_tensor(segment_ids)
    if isinstance(ids, np.ndarray) or ids.dtype not in _INDEX_TYPES:
        shown = "string" if isinstance(ids, np.ndarray) else dtype_name(ids.dtype)
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'Tindices' of {shown} is not in the list of "
            "allowed values: int32, int64"
        )
    return ids


def _sorted_segments(data: Any, segment_ids: Any, op: str,
                     allowed: frozenset = _NUMERIC) -> tuple[Tensor, Tensor, int]:
    x = _tensor(data, op, allowed)
    ids = _segment_ids(segment_ids, op)
    if ids.dim() != 1 or x.dim() == 0 or ids.shape[0] != x.shape[0]:
        raise InvalidArgumentError(
            None, None, f"{op}: segment_ids should be the same size as dimension 0 of input; got "
            f"shapes {list(ids.shape)} and {list(x.shape)}."
        )
    if ids.numel() == 0:
        return x, ids.long(), 0
    if builtins.bool((ids[1:] < ids[:-1]).any()):
        raise InvalidArgumentError(None, None, f"{op}: segment ids are not increasing")
    first, last = int(ids[0]), int(ids[-1])
    if first < 0:
        raise InvalidArgumentError(
            None, None, f"{op}: Segment id {first} out of range [0, {last + 1}), possibly because "
            "'segment_ids' input is not sorted."
        )
    return x, ids.long(), last + 1


def _unsorted_segments(data: Any, segment_ids: Any, num_segments: Any, op: str,
                       allowed: frozenset = _NUMERIC) -> tuple[Tensor, Tensor, int]:
    """Flattened data [N, ...], ids in [0, n] (negatives mapped to the dropped bin n), n."""
    x = _tensor(data, op, allowed)
    ids = _segment_ids(segment_ids, op)
    n = int(num_segments.item() if isinstance(num_segments, Tensor) else num_segments)
    if n < 0:
        raise InvalidArgumentError(None, None, f"{op}: num_segments must be >= 0, got {n}")
    if tuple(x.shape[: ids.dim()]) != tuple(ids.shape):
        raise InvalidArgumentError(
            None, None, f"{op}: data.shape = {list(x.shape)} does not start with "
            f"segment_ids.shape = {list(ids.shape)}"
        )
    flat_ids = ids.reshape(-1).long()
    if flat_ids.numel() and builtins.bool((flat_ids >= n).any()):
        bad = int(torch.nonzero(flat_ids >= n)[0, 0])
        raise InvalidArgumentError(
            None, None, f"{op}: segment_ids[{bad}] = {int(flat_ids[bad])} is out of range "
            f"[0, {n})"
        )
    flat = x.reshape(flat_ids.numel(), *x.shape[ids.dim():])
    return flat, torch.where(flat_ids < 0, n, flat_ids), n


def _index(ids: Tensor, like: Tensor) -> Tensor:
    return ids.view(-1, *([1] * (like.dim() - 1))).expand_as(like)


def _seg_sum(x: Tensor, ids: Tensor, bins: int) -> Tensor:
    out = torch.zeros((bins, *x.shape[1:]), dtype=x.dtype, device=x.device)
    return out.index_add(0, ids, x)


def _seg_reduce(x: Tensor, ids: Tensor, bins: int, reduce: str, fill: Any) -> Tensor:
    out = torch.full((bins, *x.shape[1:]), fill, dtype=x.dtype, device=x.device)
    return out.scatter_reduce(0, _index(ids, x), x, reduce, include_self=False)


def _seg_counts(ids: Tensor, bins: int, like: Tensor) -> Tensor:
    counts = torch.bincount(ids, minlength=bins)[:bins]
    return counts.view(-1, *([1] * (like.dim() - 1)))


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the sum along sorted segments of a tensor (TF's `tf.math.segment_sum`):
    output[i] = sum of data[j] where segment_ids[j] == i; 0 for empty segments.

    Returns:
        A tensor of shape [segment_ids[-1] + 1] + data.shape[1:].
    """
    x, ids, n = _sorted_segments(data, segment_ids, "segment_sum")
    return _seg_sum(x, ids, n)


def segment_prod(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the product along sorted segments of a tensor (TF's `tf.math.segment_prod`);
    1 for empty segments."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_prod")
    return _seg_reduce(x, ids, n, "prod", 1)


def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the maximum along sorted segments of a tensor (TF's `tf.math.segment_max`);
    0 for empty segments."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_max", _REAL)
    return _seg_reduce(x, ids, n, "amax", 0)


def segment_min(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the minimum along sorted segments of a tensor (TF's `tf.math.segment_min`);
    0 for empty segments."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_min", _REAL)
    return _seg_reduce(x, ids, n, "amin", 0)


def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the mean along sorted segments of a tensor (TF's `tf.math.segment_mean`);
    0 for empty segments; integer means truncate, keeping the dtype."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_mean")
    total = _seg_sum(x, ids, n)
    counts = _seg_counts(ids, n, x).clamp(min=1)
    if x.dtype in _INTS:
        return torch.div(total, counts, rounding_mode="trunc").to(x.dtype)
    return total / counts.to(total.real.dtype if total.is_complex() else total.dtype)


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Tensor:
    """Computes the sum along segments of a tensor (TF's `tf.math.unsorted_segment_sum`);
    segment_ids may be unsorted and of any rank that prefixes data's shape; negative ids are
    dropped; 0 for empty segments.

    Returns:
        A tensor of shape [num_segments] + data.shape[segment_ids.ndim:].
    """
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_sum")
    return _seg_sum(x, ids, n + 1)[:n]


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any,
                          name: str | None = None) -> Tensor:
    """Computes the product along segments of a tensor (TF's `tf.math.unsorted_segment_prod`);
    1 for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_prod")
    return _seg_reduce(x, ids, n + 1, "prod", 1)[:n]


def _lowest(dtype: torch.dtype) -> Any:
    return torch.finfo(dtype).min if dtype.is_floating_point else torch.iinfo(dtype).min


def _highest(dtype: torch.dtype) -> Any:
    return torch.finfo(dtype).max if dtype.is_floating_point else torch.iinfo(dtype).max


def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Tensor:
    """Computes the maximum along segments of a tensor (TF's `tf.math.unsorted_segment_max`);
    the dtype's lowest finite value for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_max",
                                   _REAL)
    return _seg_reduce(x, ids, n + 1, "amax", _lowest(x.dtype))[:n]


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Tensor:
    """Computes the minimum along segments of a tensor (TF's `tf.math.unsorted_segment_min`);
    the dtype's highest finite value for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_min",
                                   _REAL)
    return _seg_reduce(x, ids, n + 1, "amin", _highest(x.dtype))[:n]


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: str | None = None) -> Tensor:
    """Computes the mean along segments of a tensor (TF's `tf.math.unsorted_segment_mean`):
    sum / max(count, 1), so 0 for empty segments; integers divide as truediv (int32 gives
    float64)."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_mean")
    total = _seg_sum(x, ids, n + 1)[:n]
    counts = _seg_counts(ids, n + 1, x)[:n].clamp(min=1)
    target = _TRUEDIV_FLOAT.get(total.dtype)
    if target is not None:
        total = total.to(target)
    return total / counts.to(total.real.dtype if total.is_complex() else total.dtype)


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: str | None = None) -> Tensor:
    """Computes the sum along segments divided by sqrt(N), N the segment's size (TF's
    `tf.math.unsorted_segment_sqrt_n`); 0 for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_sqrt_n",
                                   _FLOAT_COMPLEX)
    total = _seg_sum(x, ids, n + 1)[:n]
    counts = _seg_counts(ids, n + 1, x)[:n].clamp(min=1)
    return total / torch.sqrt(counts.to(total.real.dtype if total.is_complex() else total.dtype))


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = torch.int32, name: str | None = None, axis: Any = None,
             binary_output: builtins.bool = False) -> Tensor:
    """Counts the number of occurrences of each value in an integer array (TF's
    `tf.math.bincount`).

    The output has max(arr) + 1 bins (at least `minlength`, at most
    `maxlength`; larger values are dropped). With `weights`, each bin sums
    the weights (output in the weights' dtype); `binary_output` marks
    presence. `axis=-1` counts each row of a 2-D `arr` separately; `axis=None`
    flattens.

    Returns:
        A 1-D tensor (2-D for `axis=-1`) of `dtype` (int32 by default).
    """
    if weights is not None and binary_output:
        raise ValueError(
            "Arguments `binary_output` and `weights` are mutually exclusive. Please specify "
            "only one."
        )
    values = _tensor(arr, "bincount", _INTS)
    if axis not in (None, 0, -1):
        raise ValueError(f"bincount: unsupported axis {axis!r}; use None, 0 or -1.")
    per_row = axis == -1 and values.dim() > 1
    if per_row and values.dim() != 2:
        raise InvalidArgumentError(
            None, None, f"bincount: axis=-1 needs a 2-D arr, got shape {list(values.shape)}"
        )
    out_dtype = _dtypes.as_dtype(dtype)
    if weights is not None:
        w = weights if isinstance(weights, Tensor) else convert_to_tensor(weights)
        if tuple(w.shape) != tuple(values.shape):
            raise shapes_error("bincount", values.shape, w.shape, "(arr and weights)")
        out_dtype = w.dtype
    if values.numel() and builtins.bool((values < 0).any()):
        raise InvalidArgumentError(None, None, "bincount: Input arr must be non-negative!")
    size = int(values.max()) + 1 if values.numel() else 0
    if minlength is not None:
        size = max(size, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength))
    flat = values.reshape(values.shape[0], -1) if per_row else values.reshape(1, -1)
    rows = flat.shape[0]
    idx = flat.long().clamp(max=size)  # values >= size go to a dropped extra bin
    idx = idx + torch.arange(rows, device=idx.device).unsqueeze(1) * (size + 1)
    contrib = (w.reshape(rows, -1).to(out_dtype) if weights is not None
               else torch.ones(idx.shape, dtype=out_dtype, device=idx.device))
    counts = torch.zeros(rows * (size + 1), dtype=out_dtype, device=idx.device)
    counts = counts.index_add(0, idx.reshape(-1), contrib.reshape(-1)).view(rows, size + 1)
    counts = counts[:, :size]
    if binary_output:
        counts = (counts > 0).to(out_dtype)
    return counts if per_row else counts[0]


def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None, weights: Any = None,
                     dtype: Any = torch.int32, name: str | None = None) -> Tensor:
    """Computes the confusion matrix from predictions and labels (TF's
    `tf.math.confusion_matrix`): rows are real labels, columns predictions.

    Returns:
        A [num_classes, num_classes] tensor of `dtype` (int32 by default); `num_classes`
        defaults to max(labels, predictions) + 1.
    """
    lab = _tensor(labels, "confusion_matrix", _INTS)
    pred = _tensor(predictions, "confusion_matrix", _INTS)
    if lab.dim() == pred.dim() + 1 and lab.shape[-1] == 1:
        lab = lab.squeeze(-1)
    elif pred.dim() == lab.dim() + 1 and pred.shape[-1] == 1:
        pred = pred.squeeze(-1)
    if lab.shape != pred.shape:
        raise shapes_error("confusion_matrix", lab.shape, pred.shape, "(labels and predictions)")
    lab, pred = lab.reshape(-1).long(), pred.reshape(-1).long()
    for values, what in ((lab, "labels"), (pred, "predictions")):
        if values.numel() and builtins.bool((values < 0).any()):
            raise InvalidArgumentError(None, None, f"`{what}` contains negative values")
    if num_classes is None:
        n = int(torch.maximum(lab.max(), pred.max())) + 1 if lab.numel() else 0
    else:
        n = int(num_classes.item() if isinstance(num_classes, Tensor) else num_classes)
        for values, what in ((lab, "labels"), (pred, "predictions")):
            if values.numel() and builtins.bool((values >= n).any()):
                raise InvalidArgumentError(
                    None, None, f"`{what}` out of bound: values must be < num_classes={n}"
                )
    out_dtype = _dtypes.as_dtype(dtype)
    if weights is None:
        contrib = torch.ones(lab.shape, dtype=out_dtype, device=lab.device)
    else:
        w = weights if isinstance(weights, Tensor) else convert_to_tensor(weights)
        if w.numel() != lab.numel():
            raise shapes_error("confusion_matrix", lab.shape, w.shape, "(labels and weights)")
        contrib = w.reshape(-1).to(out_dtype)
    matrix = torch.zeros(n * n, dtype=out_dtype, device=lab.device)
    return matrix.index_add(0, lab * n + pred, contrib).view(n, n)
