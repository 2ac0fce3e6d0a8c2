"""`tf.fftnd`, `tf.ifftnd`, `tf.rfftnd`, `tf.irfftnd`: N-dimensional FFTs over `axes`, with
the signal cropped or zero-padded to `fft_length` along them (torch.fft)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor


def _args(input: Any, fft_length: Any, axes: Any, owner: str) -> tuple[torch.Tensor, list[int] | None, list[int]]:  # noqa: A002
    x = convert_to_tensor(input)
    axes_list = [int(a) for a in convert_to_tensor(axes, dtype=torch.int64).reshape(-1).tolist()] \
        if axes is not None else list(range(-len(fft_length), 0)) if fft_length is not None else list(range(x.ndim))
    lengths = [int(v) for v in convert_to_tensor(fft_length, dtype=torch.int64).reshape(-1).tolist()] \
        if fft_length is not None else None
    if lengths is not None and len(lengths) != len(axes_list):
        raise ValueError(f"{owner}: fft_length {lengths} and axes {axes_list} must have the same length.")
    return x, lengths, axes_list


def fftnd(input: Any, fft_length: Any = None, axes: Any = None, name: str | None = None) -> torch.Tensor:  # noqa: A002
    """The N-dimensional discrete Fourier transform of complex `input` over `axes`."""
    x, lengths, axes_list = _args(input, fft_length, axes, "fftnd")
    if not x.is_complex():
        raise TypeError(f"fftnd: input must be complex64 or complex128; received {x.dtype}.")
    return torch.fft.fftn(x, s=lengths, dim=axes_list)


def ifftnd(input: Any, fft_length: Any = None, axes: Any = None, name: str | None = None) -> torch.Tensor:  # noqa: A002
    """The inverse N-dimensional discrete Fourier transform of complex `input` over `axes`."""
    x, lengths, axes_list = _args(input, fft_length, axes, "ifftnd")
    if not x.is_complex():
        raise TypeError(f"ifftnd: input must be complex64 or complex128; received {x.dtype}.")
    return torch.fft.ifftn(x, s=lengths, dim=axes_list)


def rfftnd(input: Any, fft_length: Any = None, axes: Any = None, Tcomplex: Any = torch.complex64,  # noqa: A002, N803
           name: str | None = None) -> torch.Tensor:
    """The N-dimensional FFT of real `input`: only the non-negative frequencies of the last axis."""
    x, lengths, axes_list = _args(input, fft_length, axes, "rfftnd")
    if x.is_complex():
        raise TypeError(f"rfftnd: input must be real; received {x.dtype}.")
    return torch.fft.rfftn(x, s=lengths, dim=axes_list).to(_dtypes.as_dtype(Tcomplex))


def irfftnd(input: Any, fft_length: Any = None, axes: Any = None, Treal: Any = torch.float32,  # noqa: A002, N803
            name: str | None = None) -> torch.Tensor:
    """The inverse of `rfftnd`: a real signal of `fft_length` along `axes`."""
    x, lengths, axes_list = _args(input, fft_length, axes, "irfftnd")
    return torch.fft.irfftn(x.to(torch.complex128 if _dtypes.as_dtype(Treal) is torch.float64 else x.dtype),
                            s=lengths, dim=axes_list).to(_dtypes.as_dtype(Treal))
