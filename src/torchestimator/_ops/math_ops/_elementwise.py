"""tf.math's unary elementwise functions: abs, exp, log, trigonometric and special functions, sign,
round, complex parts, polyval, invert_permutation, monotonicity checks."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._ops.math_ops._arithmetic import add, multiply
from torchestimator._ops.math_ops._common import (
    _ANY,
    _FLOAT_COMPLEX,
    _FLOATS,
    _NUMERIC,
    _REAL,
    _SIGNED_NUMERIC,
    Tensor,
    _tensor,
    _unary,
)
from torchestimator.errors import InvalidArgumentError

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
_softplus = _unary(F.softplus, "softplus", _FLOATS, "softplus(features).")


def softplus(features: Any, name: str | None = None) -> Tensor:
    """Computes log(exp(features) + 1) element-wise (TF's `tf.math.softplus(features)`)."""
    return _softplus(features)


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
