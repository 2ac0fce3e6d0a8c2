"""tf.signal's window functions, computed in the requested float dtype as TF does."""

from __future__ import annotations

import math
from typing import Any

import torch

from torchestimator._ops.host_fallback import host_fallback
from torchestimator.signal._common import float_dtype, static_int

Tensor = torch.Tensor


def _device() -> torch.device:
    from torchestimator._ops.random_ops import (  # lazy: heavy (torchestimator._ops.random_ops, 219 ms)
        _device as default_device,
    )

    return default_device()


def _length(window_length: Any, op: str) -> int:
    length = static_int(window_length, "window_length", op)
    if length < 0:
        raise ValueError(f"{op}: window_length must be non-negative, got {length}.")
    return length


def _raised_cosine(window_length: Any, periodic: Any, dtype: Any, a: float, b: float,
                   op: str) -> Tensor:
    dtype = float_dtype(dtype, op)
    length = _length(window_length, op)
    device = _device()
    if length == 1:
        return torch.ones(1, dtype=dtype, device=device)
    periodic = bool(periodic.item() if isinstance(periodic, Tensor) else periodic)
    even = 1 - length % 2
    n = torch.tensor(length + int(periodic) * even - 1, dtype=dtype, device=device)
    count = torch.arange(length, device=device).to(dtype)
    cos_arg = torch.tensor(2 * math.pi, dtype=dtype, device=device) * count / n
    return a - b * torch.cos(cos_arg)


def hann_window(window_length: Any, periodic: bool = True, dtype: Any = torch.float32,
                name: str | None = None) -> Tensor:
    """Generates a Hann window, `0.5 - 0.5 * cos(2 pi n / N)`.

    `periodic=True` gives the window for spectral analysis (N = window_length); False the
    symmetric one (N = window_length - 1).

    Returns:
        A 1-D tensor of shape `[window_length]` of `dtype`.
    """
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length: Any, periodic: bool = True, dtype: Any = torch.float32,
                   name: str | None = None) -> Tensor:
    """Generates a Hamming window, `0.54 - 0.46 * cos(2 pi n / N)` (see `hann_window`).

    Returns:
        A 1-D tensor of shape `[window_length]` of `dtype`.
    """
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


def kaiser_window(window_length: Any, beta: float = 12.0, dtype: Any = torch.float32,
                  name: str | None = None) -> Tensor:
    """Generates a Kaiser window, `I0(beta * sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)`.

    Returns:
        A 1-D tensor of shape `[window_length]` of `dtype`.
    """
    dtype = float_dtype(dtype, "kaiser_window")
    length = _length(window_length, "kaiser_window")
    device = _device()
    if length == 1:
        return torch.ones(1, dtype=dtype, device=device)
    halflen = (length - 1) / 2
    arg = (torch.arange(length, dtype=torch.float32, device=device) - halflen).to(dtype)
    beta_t = torch.as_tensor(beta, device=device).to(dtype)
    num = beta_t * torch.sqrt(torch.relu(1.0 - torch.square(arg / halflen)))
    return torch.exp(num - beta_t) * torch.special.i0e(num) / torch.special.i0e(beta_t)


def kaiser_bessel_derived_window(window_length: Any, beta: float = 12.0,
                                 dtype: Any = torch.float32, name: str | None = None) -> Tensor:
    """Generates a Kaiser-Bessel derived window (the cumulative sums of a Kaiser window).

    Returns:
        A 1-D tensor of shape `[window_length]` of `dtype` (2 * (window_length // 2) values).
    """
    length = _length(window_length, "kaiser_bessel_derived_window")
    half = length // 2
    kaiser = kaiser_window(half + 1, beta, dtype)
    csum = host_fallback(lambda k: torch.cumsum(k, 0), kaiser)
    half_window = torch.sqrt(csum[:-1] / csum[-1])
    return torch.cat([half_window, half_window.flip(0)])


def vorbis_window(window_length: Any, dtype: Any = torch.float32,
                  name: str | None = None) -> Tensor:
    """Generates a Vorbis power complementary window, `sin(pi/2 sin^2(pi (n + 0.5) / N))`.

    Returns:
        A 1-D tensor of shape `[window_length]` of `dtype`.
    """
    dtype = float_dtype(dtype, "vorbis_window")
    length = _length(window_length, "vorbis_window")
    arg = torch.arange(length, device=_device()).to(dtype)
    if length == 0:
        return arg
    return torch.sin(math.pi / 2 * torch.square(torch.sin(math.pi / length * (arg + 0.5))))
