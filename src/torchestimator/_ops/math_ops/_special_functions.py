"""tf.math's special functions: betainc, polygamma, sobol_sample and tf.math.special (Bessel
functions, Dawson's integral, the exponential integral, Fresnel integrals, Spence's function).

torch.special's kernels are used where torch has them; the others are computed in float64 and
cast back to the input's dtype.
"""

from __future__ import annotations

import builtins
import math
from fractions import Fraction
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.math_ops._common import _FLOATS, Tensor, _tensor
from torchestimator.errors import InvalidArgumentError

_F32_64 = frozenset({torch.float32, torch.float64})
_EULER = 0.57721566490153286061


def _unary(x: Any, op: str, allowed: frozenset = _FLOATS) -> Tensor:
    return _tensor(x, op, allowed)


def _via64(fn, x: Tensor) -> Tensor:
    """`fn` on `x` in float64, cast back to `x`'s dtype."""
    return fn(x.to(torch.float64)).to(x.dtype)


def _same_dtype(op: str, names: tuple[str, ...], values: tuple[Any, ...],
                allowed: frozenset) -> list[Tensor]:
    tensors = []
    ref = next((v for v in values if isinstance(v, Tensor)), None)
    for name, value in zip(names, values):
        if not isinstance(value, Tensor):
            if isinstance(value, (builtins.int, builtins.float)) and ref is not None and \
                    ref.dtype in allowed:
                value = torch.tensor(float(value), dtype=ref.dtype, device=ref.device)
            else:
                value = _tensor(value, op, allowed)
        if value.dtype not in allowed:
            raise InvalidArgumentError(
                None, None, f"{op}: `{name}` has dtype {dtype_name(value.dtype)}, which is not in "
                f"the list of allowed values: {', '.join(dtype_name(d) for d in sorted(allowed, key=str))}"
                "; tf.cast it to float32 or float64.")
        tensors.append(value)
    first = tensors[0].dtype
    for name, t in zip(names, tensors):
        if t.dtype is not first:
            raise InvalidArgumentError(
                None, None, f"{op}: `{name}` has dtype {dtype_name(t.dtype)} but `{names[0]}` has "
                f"{dtype_name(first)}; all inputs must have one dtype (tf.cast them).")
    return tensors


# -------------------------------------------------------------------------------- betainc
def _betacf(a: Tensor, b: Tensor, x: Tensor, iterations: int = 300) -> Tensor:
    """The continued fraction of the incomplete beta function (Lentz's method, float64)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = torch.ones_like(x)
    d = 1.0 - qab * x / qap
    d = torch.where(d.abs() < tiny, torch.full_like(d, tiny), d)
    d = 1.0 / d
    h = d.clone()
    for m in range(1, iterations + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = torch.where(d.abs() < tiny, torch.full_like(d, tiny), d)
        c = 1.0 + aa / c
        c = torch.where(c.abs() < tiny, torch.full_like(c, tiny), c)
        d = 1.0 / d
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = torch.where(d.abs() < tiny, torch.full_like(d, tiny), d)
        c = 1.0 + aa / c
        c = torch.where(c.abs() < tiny, torch.full_like(c, tiny), c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if bool(((delta - 1.0).abs() < 1e-16).all()):
            break
    return h


def betainc(a: Any, b: Any, x: Any, name: str | None = None) -> Tensor:
    """Computes the regularized incomplete beta integral I_x(a, b) (TF's `tf.math.betainc`).

    `a`, `b` and `x` are float32 or float64 tensors of one dtype, of one shape or scalars.
    Outside the domain (a <= 0, b <= 0, x outside [0, 1]) the result is NaN, as TF's.

    Returns:
        A tensor of the inputs' dtype and broadcast shape.
    """
    a, b, x = _same_dtype("betainc", ("a", "b", "x"), (a, b, x), _F32_64)
    shapes = [(n, t.shape) for n, t in (("a", a), ("b", b), ("x", x)) if t.dim()]
    for (n1, s1), (n2, s2) in zip(shapes, shapes[1:]):
        if s1 != s2:
            raise InvalidArgumentError(
                None, None, f"betainc: Shapes of {n1} and {n2} are inconsistent: {list(s1)} vs. "
                f"{list(s2)}; give them one shape or pass scalars.")
    dtype = a.dtype
    a64, b64, x64 = torch.broadcast_tensors(a.double(), b.double(), x.double())
    bad = (a64 <= 0) | (b64 <= 0) | (x64 < 0) | (x64 > 1) | a64.isnan() | b64.isnan() | x64.isnan()
    xs = x64.clamp(0.0, 1.0)
    inner = (xs > 0) & (xs < 1)
    xs_safe = torch.where(inner, xs, torch.full_like(xs, 0.5))
    a_s = torch.where(bad, torch.ones_like(a64), a64)
    b_s = torch.where(bad, torch.ones_like(b64), b64)
    log_front = (torch.lgamma(a_s + b_s) - torch.lgamma(a_s) - torch.lgamma(b_s)
                 + a_s * torch.log(xs_safe) + b_s * torch.log1p(-xs_safe))
    front = torch.exp(log_front)
    direct = xs_safe < (a_s + 1.0) / (a_s + b_s + 2.0)
    # I_x(a, b) = front * cf(a, b, x) / a, or 1 - front * cf(b, a, 1 - x) / b
    aa = torch.where(direct, a_s, b_s)
    bb = torch.where(direct, b_s, a_s)
    xx = torch.where(direct, xs_safe, 1.0 - xs_safe)
    cf = _betacf(aa, bb, xx)
    value = torch.where(direct, front * cf / a_s, 1.0 - front * cf / b_s)
    value = torch.where(xs <= 0, torch.zeros_like(value), value)
    value = torch.where(xs >= 1, torch.ones_like(value), value)
    value = torch.where(bad, torch.full_like(value, math.nan), value)
    return value.to(dtype)


# -------------------------------------------------------------------------------- polygamma
def polygamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """Computes the polygamma function psi^(a)(x), the a-th derivative of the digamma function
    (TF's `tf.math.polygamma`). `a` holds non-negative integers as floats; any other `a` gives
    NaN, as TF's.

    Returns:
        A tensor of the inputs' dtype and broadcast shape.
    """
    a, x = _same_dtype("polygamma", ("a", "x"), (a, x), _F32_64)
    try:
        a_b, x_b = torch.broadcast_tensors(a, x)
    except RuntimeError:
        raise InvalidArgumentError(
            None, None, f"polygamma: Incompatible shapes: {list(a.shape)} vs. {list(x.shape)}"
        ) from None
    out = torch.full(a_b.shape, math.nan, dtype=x.dtype, device=x.device)
    valid = (a_b >= 0) & (a_b == torch.floor(a_b)) & a_b.isfinite()
    for n in torch.unique(a_b[valid]).tolist():
        mask = valid & (a_b == n)
        xs = x_b[mask].double()
        out[mask] = torch.special.polygamma(int(n), xs).to(x.dtype)
    return out


# -------------------------------------------------------------------------------- sobol_sample
def sobol_sample(dim: Any, num_results: Any, skip: Any = 0, dtype: Any = torch.float32,
                 name: str | None = None) -> Tensor:
    """Returns points of the Sobol low-discrepancy sequence in [0, 1)^dim (TF's
    `tf.math.sobol_sample`, Joe and Kuo's direction numbers), skipping the all-zero first point
    and then `skip` more.

    Returns:
        A `[num_results, dim]` tensor of `dtype` (float32 or float64).
    """
    dim_i, n_i, skip_i = (int(v.item()) if isinstance(v, Tensor) else v
                          for v in (dim, num_results, skip))
    for arg, v, low in (("dim", dim_i, 1), ("num_results", n_i, 1), ("skip", skip_i, 0)):
        if isinstance(v, builtins.bool) or not isinstance(v, builtins.int) or v < low:
            raise InvalidArgumentError(
                None, None, f"sobol_sample: `{arg}` must be an integer >= {low}, got {v!r}.")
    if dim_i > 21201:
        raise InvalidArgumentError(
            None, None, f"sobol_sample: `dim` must be at most 21201 (the direction numbers' "
            f"dimensions), got {dim_i}.")
    torch_dtype = _dtypes.as_dtype(dtype)
    if torch_dtype not in _F32_64:
        raise InvalidArgumentError(
            None, None, f"sobol_sample: `dtype` must be float32 or float64, got "
            f"{dtype_name(torch_dtype)}.")
    engine = torch.quasirandom.SobolEngine(dim_i, scramble=False)
    engine.fast_forward(1 + skip_i)
    return engine.draw(n_i, dtype=torch.float64).to(torch_dtype)


# -------------------------------------------------------------------------------- Bessel
def _bessel(torch_fn, op: str, doc: str):
    def fn(x: Any, name: str | None = None) -> Tensor:
        x = _unary(x, op)
        if x.dtype in (torch.float16, torch.bfloat16):
            return torch_fn(x.float()).to(x.dtype)
        return torch_fn(x)

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    return fn


bessel_i0 = _bessel(torch.special.i0, "bessel_i0",
                    "Computes the modified Bessel function of the first kind of order 0 (TF's "
                    "`tf.math.special.bessel_i0`).\n\nReturns:\n    A tensor of `x`'s dtype.")
bessel_i0e = _bessel(torch.special.i0e, "bessel_i0e",
                     "Computes the exponentially scaled modified Bessel function of order 0, "
                     "exp(-|x|) * i0(x) (TF's `tf.math.special.bessel_i0e`).\n\nReturns:\n"
                     "    A tensor of `x`'s dtype.")
bessel_i1 = _bessel(torch.special.i1, "bessel_i1",
                    "Computes the modified Bessel function of the first kind of order 1 (TF's "
                    "`tf.math.special.bessel_i1`).\n\nReturns:\n    A tensor of `x`'s dtype.")
bessel_i1e = _bessel(torch.special.i1e, "bessel_i1e",
                     "Computes the exponentially scaled modified Bessel function of order 1, "
                     "exp(-|x|) * i1(x) (TF's `tf.math.special.bessel_i1e`).\n\nReturns:\n"
                     "    A tensor of `x`'s dtype.")
def _bessel_jn(order: int, torch_fn):
    """J_n in float64 by the trapezoid rule on Bessel's integral (1/pi) int_0^pi cos(n t -
    x sin t) dt, exponentially accurate for a periodic integrand (|x| <= 30; torch's kernel,
    accurate to ~1e-7 in float64, beyond); torch's kernel for the other dtypes."""
    def fn(x: Tensor) -> Tensor:
        if x.dtype is not torch.float64:
            return torch_fn(x)
        small = x.abs() <= 30.0
        xs = torch.where(small, x, torch.zeros_like(x))
        steps = 128
        t = torch.linspace(0.0, math.pi, steps + 1, dtype=torch.float64, device=x.device)
        w = torch.full((steps + 1,), 1.0 / steps, dtype=torch.float64, device=x.device)
        w[0] = w[-1] = 0.5 / steps
        vals = (torch.cos(order * t - xs.unsqueeze(-1) * torch.sin(t)) * w).sum(-1)
        return torch.where(small, vals, torch_fn(x))
    return fn


bessel_j0 = _bessel(_bessel_jn(0, torch.special.bessel_j0), "bessel_j0",
                    "Computes the Bessel function of the first kind of order 0 (TF's "
                    "`tf.math.special.bessel_j0`).\n\nReturns:\n    A tensor of `x`'s dtype.")
bessel_j1 = _bessel(_bessel_jn(1, torch.special.bessel_j1), "bessel_j1",
                    "Computes the Bessel function of the first kind of order 1 (TF's "
                    "`tf.math.special.bessel_j1`).\n\nReturns:\n    A tensor of `x`'s dtype.")
def _gauss_panels(a: float, b: Tensor, panels: int) -> tuple[Tensor, Tensor]:
    """Composite 12-point Gauss-Legendre nodes and weights on [a, b] (b per element)."""
    nodes, weights = _GL_NODES.to(b.device), _GL_WEIGHTS.to(b.device)
    p = torch.arange(panels, dtype=torch.float64, device=b.device)
    u = ((p[:, None] + 0.5) + 0.5 * nodes[None, :]).reshape(-1) / panels  # in [0, 1]
    w = (weights[None, :].expand(panels, -1) * 0.5 / panels).reshape(-1)
    span = (b - a).unsqueeze(-1)
    return a + span * u, span * w


def _bessel_yn64(order: int, x: Tensor) -> Tensor:
    """Y_n(x) for 2 <= x <= 30 in float64 by its integral representation
    (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^{nt} + (-1)^n e^{-nt})
    e^{-x sinh t} dt, each by composite Gauss-Legendre (accurate to ~1e-15)."""
    t1, w1 = _gauss_panels(0.0, torch.full_like(x, math.pi), 24)
    first = (torch.sin(x.unsqueeze(-1) * torch.sin(t1) - order * t1) * w1).sum(-1)
    t2, w2 = _gauss_panels(0.0, torch.asinh(60.0 / x) + 1.0, 24)
    sign = 1.0 if order % 2 == 0 else -1.0
    second = ((torch.exp(order * t2) + sign * torch.exp(-order * t2))
              * torch.exp(-x.unsqueeze(-1) * torch.sinh(t2)) * w2).sum(-1)
    return (first - second) / math.pi


def _bessel_y(torch_fn, order: int):
    """TF's Y_n: -inf for x <= 0 (NaN at 0 for float32 Y1, as TF's kernel); float64 values
    for 2 <= x <= 30 by the integral representation (torch's kernel is accurate to ~1e-6
    there), torch's kernel elsewhere."""
    def fn(x: Tensor) -> Tensor:
        y = torch_fn(x)
        if x.dtype is torch.float64:
            mid = (x >= 2.0) & (x <= 30.0)
            if bool(mid.any()):
                y = y.clone()
                y[mid] = _bessel_yn64(order, x[mid])
        y = torch.where(x < 0, torch.full_like(y, -math.inf), y)
        if order == 1 and x.dtype is not torch.float64:
            y = torch.where(x == 0, torch.full_like(y, math.nan), y)
        return y
    return fn


bessel_y0 = _bessel(_bessel_y(torch.special.bessel_y0, 0), "bessel_y0",
                    "Computes the Bessel function of the second kind of order 0 (TF's "
                    "`tf.math.special.bessel_y0`; -inf for x <= 0).\n\nReturns:\n"
                    "    A tensor of `x`'s dtype.")
bessel_y1 = _bessel(_bessel_y(torch.special.bessel_y1, 1), "bessel_y1",
                    "Computes the Bessel function of the second kind of order 1 (TF's "
                    "`tf.math.special.bessel_y1`; -inf for x < 0).\n\nReturns:\n"
                    "    A tensor of `x`'s dtype.")


def _neg_nan(torch_fn):
    """TF's K functions are +inf for x <= 0."""
    def fn(x: Tensor) -> Tensor:
        y = torch_fn(x)
        return torch.where(x < 0, torch.full_like(y, math.inf), y)
    return fn


bessel_k0 = _bessel(_neg_nan(torch.special.modified_bessel_k0), "bessel_k0",
                    "Computes the modified Bessel function of the second kind of order 0 (TF's "
                    "`tf.math.special.bessel_k0`).\n\nReturns:\n    A tensor of `x`'s dtype.")
bessel_k0e = _bessel(_neg_nan(torch.special.scaled_modified_bessel_k0), "bessel_k0e",
                     "Computes the exponentially scaled modified Bessel function of the second "
                     "kind of order 0, exp(x) * k0(x) (TF's `tf.math.special.bessel_k0e`).\n\n"
                     "Returns:\n    A tensor of `x`'s dtype.")
bessel_k1 = _bessel(_neg_nan(torch.special.modified_bessel_k1), "bessel_k1",
                    "Computes the modified Bessel function of the second kind of order 1 (TF's "
                    "`tf.math.special.bessel_k1`).\n\nReturns:\n    A tensor of `x`'s dtype.")
bessel_k1e = _bessel(_neg_nan(torch.special.scaled_modified_bessel_k1), "bessel_k1e",
                     "Computes the exponentially scaled modified Bessel function of the second "
                     "kind of order 1, exp(x) * k1(x) (TF's `tf.math.special.bessel_k1e`).\n\n"
                     "Returns:\n    A tensor of `x`'s dtype.")


# -------------------------------------------------------------------------------- Dawson
def _dawsn64(x: Tensor) -> Tensor:
    """Rybicki's method: F(x) = lim_{h->0} 1/sqrt(pi) sum_{n odd} exp(-(x - n h)^2) / n, with
    h = 0.2 (error ~ exp(-(pi / 2h)^2)) and the sum centred on x (Numerical Recipes 6.10)."""
    h = 0.2
    ax = x.abs()
    n0 = 2.0 * torch.round(0.5 * ax / h)
    xp = ax - n0 * h
    m = torch.arange(-81, 82, 2, dtype=torch.float64, device=x.device)
    shape = (1,) * x.dim() + (m.numel(),)
    m = m.reshape(shape)
    terms = torch.exp(-(xp.unsqueeze(-1) - m * h) ** 2) / (m + n0.unsqueeze(-1))
    big = ax > 50.0  # F(x) ~ 1/(2x) (1 + 1/(2x^2) + 3/(4x^4) + 15/(8x^6))
    safe = torch.where(big, ax, torch.ones_like(ax))
    inv2 = 1.0 / (safe * safe)
    asym = 0.5 / safe * (1.0 + 0.5 * inv2 + 0.75 * inv2 * inv2 + 1.875 * inv2 ** 3)
    value = torch.where(big, asym, terms.sum(-1) / math.sqrt(math.pi))
    return torch.sign(x) * value


def dawsn(x: Any, name: str | None = None) -> Tensor:
    """Computes Dawson's integral F(x) = exp(-x^2) * integral_0^x exp(t^2) dt (TF's
    `tf.math.special.dawsn`).

    Returns:
        A tensor of `x`'s dtype.
    """
    return _via64(_dawsn64, _unary(x, "dawsn"))


# -------------------------------------------------------------------------------- expint
def _ei64(x: Tensor) -> Tensor:
    """Ei(x) for x > 0 (other entries are ignored): gamma + ln x + sum x^k / (k k!) up to 40,
    the asymptotic e^x / x sum k! / x^k beyond."""
    pos = x > 0
    xs = torch.where(pos, x, torch.ones_like(x)).clamp(max=40.0)
    series = torch.zeros_like(x)
    term = torch.ones_like(x)
    for k in range(1, 200):
        term = term * xs / k
        step = term / k
        series = series + step
        if k % 10 == 0 and bool((step <= 1e-17 * series).all()):
            break
    out = _EULER + torch.log(xs) + series
    big = x > 40.0
    if bool(big.any()):
        xa = torch.where(big, x, torch.full_like(x, 41.0))
        asym = torch.ones_like(x)
        term = torch.ones_like(x)
        for k in range(1, 40):
            term = term * k / xa
            asym = asym + term
        out = torch.where(big, torch.exp(xa) / xa * asym, out)
    return out


def _expint64(x: Tensor) -> Tensor:
    out = _ei64(x)
    out = torch.where(x == 0, torch.full_like(x, -math.inf), out)
    out = torch.where(x == math.inf, torch.full_like(x, math.nan), out)  # as TF's
    out = torch.where(x < 0, torch.full_like(x, math.nan), out)
    return torch.where(x.isnan(), x, out)


def expint(x: Any, name: str | None = None) -> Tensor:
    """Computes the exponential integral Ei(x) = integral_{-inf}^x exp(t) / t dt (TF's
    `tf.math.special.expint`); -inf at 0, NaN for x < 0, as TF's.

    Returns:
        A tensor of `x`'s dtype.
    """
    return _via64(_expint64, _unary(x, "expint"))


# -------------------------------------------------------------------------------- Fresnel
_GL_NODES, _GL_WEIGHTS = (torch.from_numpy(a) for a in __import__("numpy").polynomial.legendre.leggauss(12))


def _fresnel64(x: Tensor) -> tuple[Tensor, Tensor]:
    """(C(x), S(x)) in float64: composite Gauss-Legendre quadrature for |x| < 6, the auxiliary
    functions' asymptotic series beyond."""
    ax = x.abs()
    small = ax < 6.0
    xs = torch.where(small, ax, torch.zeros_like(ax))
    panels = 20
    nodes = _GL_NODES.to(x.device)
    weights = _GL_WEIGHTS.to(x.device)
    # u in [0, 1]: panel p covers [p/P, (p+1)/P]
    p = torch.arange(panels, dtype=torch.float64, device=x.device)
    u = ((p[:, None] + 0.5) + 0.5 * nodes[None, :]) / panels  # [P, 12]
    w = (weights[None, :].expand(panels, -1) * 0.5 / panels).reshape(-1)
    u = u.reshape(-1)
    arg = (0.5 * math.pi) * (xs.unsqueeze(-1) * u) ** 2
    c_small = xs * (torch.cos(arg) * w).sum(-1)
    s_small = xs * (torch.sin(arg) * w).sum(-1)
    xl = torch.where(small, torch.full_like(ax, 6.0), ax)
    t = math.pi * xl * xl
    inv = 1.0 / (t * t)
    f = torch.ones_like(xl)
    g = torch.ones_like(xl)
    tf_term = torch.ones_like(xl)
    tg_term = torch.ones_like(xl)
    for k in range(1, 12):
        tf_term = -tf_term * (4 * k - 3) * (4 * k - 1) * inv
        tg_term = -tg_term * (4 * k - 1) * (4 * k + 1) * inv
        f = f + tf_term
        g = g + tg_term
    f = f / (math.pi * xl)
    g = g / (math.pi * t * xl)
    half = 0.5 * t
    c_large = 0.5 + f * torch.sin(half) - g * torch.cos(half)
    s_large = 0.5 - f * torch.cos(half) - g * torch.sin(half)
    inf = ax.isinf()
    c_large = torch.where(inf, torch.full_like(c_large, 0.5), c_large)
    s_large = torch.where(inf, torch.full_like(s_large, 0.5), s_large)
    c = torch.where(small, c_small, c_large)
    s = torch.where(small, s_small, s_large)
    sign = torch.sign(x)
    return torch.where(x.isnan(), x, sign * c), torch.where(x.isnan(), x, sign * s)


def fresnel_cos(x: Any, name: str | None = None) -> Tensor:
    """Computes the Fresnel cosine integral C(x) = integral_0^x cos(pi t^2 / 2) dt (TF's
    `tf.math.special.fresnel_cos`).

    Returns:
        A tensor of `x`'s dtype.
    """
    return _via64(lambda v: _fresnel64(v)[0], _unary(x, "fresnel_cos"))


def fresnel_sin(x: Any, name: str | None = None) -> Tensor:
    """Computes the Fresnel sine integral S(x) = integral_0^x sin(pi t^2 / 2) dt (TF's
    `tf.math.special.fresnel_sin`).

    Returns:
        A tensor of `x`'s dtype.
    """
    return _via64(lambda v: _fresnel64(v)[1], _unary(x, "fresnel_sin"))


# -------------------------------------------------------------------------------- Spence
def _bernoulli(n: int) -> list[float]:
    b = [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        a = [Fraction(0)] * (m + 1)
        for j in range(m + 1):
            a[j] = Fraction(1, j + 1)
            for k in range(j, 0, -1):
                a[k - 1] = k * (a[k - 1] - a[k])
        b[m] = a[0]  # B_1 = +1/2 in this recurrence
    return [float(v) for v in b]


_B = _bernoulli(40)
_B[1] = -0.5


def _li2_core(z: Tensor) -> Tensor:
    """Li2(z) for z in [-1, 1/2] by the Bernoulli series in u = -ln(1 - z)."""
    u = -torch.log1p(-z)
    total = torch.zeros_like(z)
    power = u.clone()
    fact = 1.0
    for n in range(0, 41):
        fact *= n + 1
        if _B[n] != 0.0:
            total = total + _B[n] * power / fact
        power = power * u
    return total


def _li2(z: Tensor) -> Tensor:
    """Li2(z) for real z <= 1."""
    pi2_6 = math.pi ** 2 / 6.0
    mid = (z >= -1.0) & (z <= 0.5)
    high = z > 0.5
    low = z < -1.0
    zm = torch.where(mid, z, torch.zeros_like(z))
    zh = torch.where(high, z, torch.full_like(z, 0.75))
    zl = torch.where(low, z, torch.full_like(z, -2.0))
    v_mid = _li2_core(zm)
    one_minus = 1.0 - zh
    log_term = torch.where(zh >= 1.0, torch.zeros_like(zh),
                           torch.log(zh) * torch.log(torch.clamp(one_minus, min=1e-300)))
    v_high = pi2_6 - log_term - _li2_core(torch.clamp(one_minus, min=0.0))
    inv = 1.0 / zl  # in (-1, 0)
    v_low = -pi2_6 - 0.5 * torch.log(-zl) ** 2 - _li2_core(inv)
    return torch.where(mid, v_mid, torch.where(high, v_high, v_low))


def _spence64(x: Tensor) -> Tensor:
    valid = x >= 0
    xs = torch.where(valid, x, torch.ones_like(x))
    out = _li2(1.0 - xs)
    out = torch.where(xs.isinf(), torch.full_like(out, math.nan), out)  # as TF's
    return torch.where(valid, out, torch.full_like(out, math.nan))


def spence(x: Any, name: str | None = None) -> Tensor:
    """Computes Spence's integral integral_1^x log(t) / (1 - t) dt, i.e. the dilogarithm
    Li2(1 - x) (TF's `tf.math.special.spence`); NaN for x < 0, as TF's.

    Returns:
        A tensor of `x`'s dtype.
    """
    return _via64(_spence64, _unary(x, "spence"))
