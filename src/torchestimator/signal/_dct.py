"""tf.signal.dct / idct (types I-IV, TF's FFT-based definitions) and MFCCs."""

from __future__ import annotations

import math
from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator.signal._common import static_int

Tensor = torch.Tensor


def _input(value: Any, op: str) -> Tensor:
    tensor = convert_to_tensor(value, dtype_hint=torch.float32)
    if not isinstance(tensor, Tensor) or not tensor.dtype.is_floating_point:
        found = dtype_name(tensor.dtype) if isinstance(tensor, Tensor) else "string"
        raise TypeError(f"{op}: input must be a float tensor, got {found}; cast it with tf.cast.")
    return tensor


def _validate(x: Tensor, dct_type: Any, n: Any, axis: Any, norm: Any) -> None:
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if x.dim() and x.shape[-1] < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _resize_last(x: Tensor, n: int) -> Tensor:
    size = x.shape[-1]
    if n < size:
        return x[..., :n]
    if n > size:
        return torch.nn.functional.pad(x, [0, n - size])
    return x


def dct(input: Any, type: int = 2, n: int | None = None, axis: int = -1,
        norm: str | None = None, name: str | None = None) -> Tensor:
    """Computes the 1D Discrete Cosine Transform (DCT) of `input` over its last axis.

    Types I-IV as scipy.fftpack.dct; `norm="ortho"` (not for type I) makes it orthonormal;
    `n` truncates or zero-pads the last axis first. Only `axis=-1` is supported (as TF).

    Returns:
        A tensor of `input`'s float dtype and (with `n`) last dimension `n`.
    """
    x = _input(input, "dct")
    if n is not None:
        n = static_int(n, "n", "dct")
    _validate(x, type, n, axis, norm)
    if n is not None:
        x = _resize_last(x, n)
    size = x.shape[-1]
    if type == 1:
        extended = torch.cat([x, x[..., 1:-1].flip(-1)], -1)
        return torch.fft.rfft(extended).real
    if type == 2:
        k = torch.arange(size, device=x.device).to(x.dtype)
        scale = 2.0 * torch.exp(torch.complex(torch.zeros_like(k), -k * math.pi * 0.5 / size))
        out = (torch.fft.rfft(x, n=2 * size)[..., :size] * scale).real
        if norm == "ortho":
            n1 = 0.5 / math.sqrt(size)
            weights = torch.full((size,), n1 * math.sqrt(2.0), dtype=x.dtype, device=x.device)
            weights[0] = n1
            out = out * weights
        return out
    if type == 3:
        if norm == "ortho":
            n1 = math.sqrt(size)
            weights = torch.full((size,), n1 * math.sqrt(0.5), dtype=x.dtype, device=x.device)
            weights[0] = n1
            x = x * weights
        else:
            x = x * float(size)
        k = torch.arange(size, device=x.device).to(x.dtype)
        scale = 2.0 * torch.exp(torch.complex(torch.zeros_like(k), k * math.pi * 0.5 / size))
        spectrum = scale * torch.complex(x, torch.zeros_like(x))
        return torch.fft.irfft(spectrum, n=2 * size)[..., :size]
    out = dct(x, type=2, n=2 * size, axis=-1, norm=None)[..., 1::2]
    if norm == "ortho":
        out = out * (math.sqrt(0.5) / math.sqrt(size))
    return out


def idct(input: Any, type: int = 2, n: int | None = None, axis: int = -1,
         norm: str | None = None, name: str | None = None) -> Tensor:
    """Computes the 1D inverse DCT: a DCT of the inverse type (II <-> III, I and IV themselves).

    Without `norm`, `idct(dct(x)) == 2 * N * x` for types II-IV (`2 * (N - 1)` for type I), as
    TF documents; with `norm="ortho"` it is the exact inverse.

    Returns:
        A tensor of `input`'s float dtype.
    """
    x = _input(input, "idct")
    _validate(x, type, n if n is None else static_int(n, "n", "idct"), axis, norm)
    inverse_type = {1: 1, 2: 3, 3: 2, 4: 4}[type]
    return dct(x, type=inverse_type, n=n, axis=axis, norm=norm)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: Any,
                                    name: str | None = None) -> Tensor:
    """Computes MFCCs of `log_mel_spectrograms` (`[..., num_mel_bins]`): an orthonormal-scaled
    DCT-II, `dct(x, type=2) / sqrt(2 * num_mel_bins)` (HTK's scaling).

    Returns:
        A tensor of the same shape and dtype.
    """
    x = _input(log_mel_spectrograms, "mfccs_from_log_mel_spectrograms")
    if x.dim() < 1 or x.shape[-1] <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: a tensor of shape "
                         f"{tuple(x.shape)} (mfccs_from_log_mel_spectrograms' last dimension)")
    bins = x.shape[-1]
    return dct(x, type=2) * (1.0 / math.sqrt(bins * 2.0))
