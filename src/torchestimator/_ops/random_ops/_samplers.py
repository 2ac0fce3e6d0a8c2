"""The argument checks and samplers tf.random's ops share: shapes, dtypes, parameters, and the
normal, truncated normal, uniform, categorical, gamma and Poisson draws."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator._ops.random_ops._seeds import _FLOAT_DTYPES, _INT_DTYPES, Tensor, _device
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- arguments


def _shape(shape: Any, op: str) -> tuple[int, ...]:
    """A 1-D shape (list, tuple, TensorShape, 1-D tensor or array) as a tuple of ints."""
    if isinstance(shape, Tensor) or isinstance(shape, np.ndarray):
        if shape.ndim != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: shape must be a vector of int32 or int64, got shape {list(shape.shape)}.",
            )
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) or not hasattr(shape, "__iter__"):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: shape must be a vector (a list or 1-D tensor) of int32 or int64, got "
            f"{shape!r}; "
            f"for example shape=[{shape!r}].",
        )
    dims = []
    for d in shape:
        if d is None or int(d) < 0:
            raise InvalidArgumentError(
                None, None, f"{op}: shape {list(shape)} must be fully known and >= 0."
            )
        dims.append(int(d))
    return tuple(dims)


def _dtype(
    dtype: Any, allowed: tuple[torch.dtype, ...], op: str, error: type = ValueError
) -> torch.dtype:
    want = _dtypes.as_dtype(dtype)
    if want not in allowed:
        names = ", ".join(dtype_name(d) for d in allowed)
        raise error(
            f"{op}: argument `dtype` got invalid value {dtype_name(want)}. Accepted dtypes are "
            f"({names})."
        )
    return want


def _param(value: Any, dtype: torch.dtype, device: torch.device, name: str) -> Any:
    """A Python number stays as is; anything else becomes a tensor of `dtype` on `device`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    tensor = (
        convert_to_tensor(value, dtype=dtype, name=name) if not isinstance(value, Tensor) else value
    )
    if isinstance(tensor, np.ndarray):
        raise TypeError(f"`{name}` must be a number or a numeric tensor, got strings.")
    if tensor.dtype is not dtype:
        raise ValueError(
            f"`{name}` has dtype {dtype_name(tensor.dtype)} but the op's dtype is "
            f"{dtype_name(dtype)}; "
            "tf.cast it."
        )
    return tensor if tensor.device == device else tensor.to(device)


def _scale_shift(rnd: Tensor, scale: Any, shift: Any) -> Tensor:
    """`rnd * scale + shift`, in place when both are Python numbers (TF broadcasts tensors)."""
    if not isinstance(scale, Tensor) and not isinstance(shift, Tensor):
        if scale != 1:
            rnd.mul_(scale)
        if shift != 0:
            rnd.add_(shift)
        return rnd
    return rnd * scale + shift


# ----------------------------------------------------------------------------- samplers


def _normal(shape: Any, mean: Any, stddev: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES, op, TypeError)
    device = gen.device if gen is not None else _device()
    mean = _param(mean, dtype, device, "mean")
    stddev = _param(stddev, dtype, device, "stddev")
    rnd = torch.randn(shape, generator=gen, dtype=dtype, device=device)
    return _scale_shift(rnd, stddev, mean)


_TRUNC_LOW = 0.5 * math.erfc(2.0 / math.sqrt(2.0))  # Phi(-2): the normal CDF at -2 stddev


def _truncated(shape: Any, mean: Any, stddev: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES, op, TypeError)
    device = gen.device if gen is not None else _device()
    mean = _param(mean, dtype, device, "mean")
    stddev = _param(stddev, dtype, device, "stddev")
    work = torch.float64 if dtype is torch.float64 else torch.float32
    # Inverse-CDF sampling of N(0, 1) restricted to [-2, 2]: the same law as redrawing every
    # value beyond two standard deviations, in one vectorized pass.
    u = torch.rand(shape, generator=gen, dtype=work, device=device)
    u.mul_(1.0 - 2.0 * _TRUNC_LOW).add_(_TRUNC_LOW)
    rnd = u.mul_(2.0).sub_(1.0).erfinv_().mul_(math.sqrt(2.0)).clamp_(-2.0, 2.0)
    if work is not dtype:
        rnd = rnd.to(dtype)
    return _scale_shift(rnd, stddev, mean)


def _scalar_int(value: Any, name: str, op: str) -> int:
    if isinstance(value, (Tensor, np.ndarray)):
        if value.ndim != 0:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: {name} must be 0-D for an integer dtype, got shape {list(value.shape)}.",
            )
        value = value.item()
    if isinstance(value, float) and not value.is_integer():
        raise TypeError(f"{op}: {name}={value!r} is not an integer, as an integer dtype needs.")
    return int(value)


def _full_range_int(shape: tuple[int, ...], dtype: torch.dtype, gen: Any, device: Any) -> Tensor:
    if dtype is torch.int32:
        return torch.randint(
            -(2**31), 2**31, shape, generator=gen, dtype=torch.int64, device=device
        ).to(torch.int32)
    high = torch.randint(-(2**31), 2**31, shape, generator=gen, dtype=torch.int64, device=device)
    low = torch.randint(0, 2**32, shape, generator=gen, dtype=torch.int64, device=device)
    return (high << 32) | low


def _uniform(
    shape: Any, minval: Any, maxval: Any, dtype: Any, gen: Any, op: str, stateless: bool
) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES + _INT_DTYPES, op)
    device = gen.device if gen is not None else _device()
    if dtype in _INT_DTYPES:
        if stateless and (minval is None) != (maxval is None):
            raise ValueError(
                f"{op}: for integer dtype {dtype_name(dtype)}, `minval` and `maxval` must be both "
                "None "
                f"or not None. Got minval={minval!r} and maxval={maxval!r}."
            )
        if stateless and minval is None:
            return _full_range_int(shape, dtype, gen, device)
        if maxval is None:
            raise ValueError(f"{op}: must specify maxval for integer dtype {dtype_name(dtype)}.")
        low = _scalar_int(minval, "minval", op)
        high = _scalar_int(maxval, "maxval", op)
        if low >= high:
            raise InvalidArgumentError(
                None, None, f"{op}: need minval < maxval, got {low} >= {high}."
            )
        return torch.randint(low, high, shape, generator=gen, dtype=dtype, device=device)
    minval = 0 if minval is None else minval
    maxval = 1 if maxval is None else maxval
    minval = _param(minval, dtype, device, "minval")
    maxval = _param(maxval, dtype, device, "maxval")
    rnd = torch.rand(shape, generator=gen, dtype=dtype, device=device)
    return _scale_shift(rnd, maxval - minval, minval)


def _categorical(logits: Any, num_samples: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    logits = convert_to_tensor(logits, dtype_hint=torch.float32, name="logits")
    if not isinstance(logits, Tensor) or not logits.is_floating_point():
        kind = "string" if not isinstance(logits, Tensor) else dtype_name(logits.dtype)
        raise InvalidArgumentError(
            None, None, f"{op}: logits must be a floating-point tensor, got {kind}."
        )
    if logits.ndim != 2:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: logits should be a matrix [batch_size, num_classes], got shape "
            f"{list(logits.shape)}.",
        )
    dtype = _dtype(torch.int64 if dtype is None else dtype, _INT_DTYPES, op)
    num_samples = _scalar_int(num_samples, "num_samples", op)
    if num_samples < 0:
        raise InvalidArgumentError(
            None, None, f"{op}: num_samples should be nonnegative, got {num_samples}."
        )
    batch, classes = logits.shape
    if num_samples == 0 or batch == 0 or classes == 0:
        return torch.zeros((batch, num_samples), dtype=dtype, device=logits.device)
    device = logits.device if gen is None else gen.device
    work = logits.detach().to(device=device, dtype=torch.float64)
    top = work.amax(dim=1, keepdim=True)
    valid = torch.isfinite(
        top
    )  # a row of -inf (or NaN, +inf) has no distribution: TF gives num_classes
    probs = torch.exp(work - torch.where(valid, top, torch.zeros_like(top)))
    probs = torch.where(valid, torch.nan_to_num(probs, nan=0.0), torch.ones_like(probs))
    samples = torch.multinomial(probs, num_samples, replacement=True, generator=gen)
    samples = torch.where(valid, samples, torch.full_like(samples, classes))
    return samples.to(device=logits.device, dtype=dtype)


def _gamma(shape: Any, alpha: Any, beta: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES, op, TypeError)
    device = gen.device if gen is not None else _device()
    alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha").to(device)
    beta = None if beta is None else convert_to_tensor(beta, dtype=dtype, name="beta").to(device)
    params = alpha if beta is None else torch.broadcast_tensors(alpha, beta)[0]
    work = torch.float64 if dtype is torch.float64 else torch.float32
    concentration = params.detach().to(work).expand(shape + tuple(params.shape))
    samples = torch._standard_gamma(concentration.contiguous(), generator=gen)
    samples = samples.clamp_min_(torch.finfo(dtype).tiny)  # TF's floor: never exactly 0
    if beta is not None:
        samples = samples / beta.to(work)
    return samples.to(dtype)


def _poisson(shape: Any, lam: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES + _INT_DTYPES, op)
    device = gen.device if gen is not None else _device()
    lam = convert_to_tensor(lam, dtype_hint=torch.float32, name="lam")
    if not isinstance(lam, Tensor):
        raise TypeError(f"{op}: lam must be numeric.")
    rates = lam.detach().to(
        device=device, dtype=torch.float64 if lam.dtype is torch.float64 else torch.float32
    )
    samples = torch.poisson(rates.expand(shape + tuple(rates.shape)).contiguous(), generator=gen)
    return samples.to(dtype)
