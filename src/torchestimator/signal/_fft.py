"""tf.signal's Fourier transforms: fft/ifft (1-3 D), rfft/irfft (1-3 D), the N-D forms, shifts.

Every transform runs over the innermost dimensions with torch.fft, on the input's device, and is
differentiable. TF's rfft/irfft crop or zero-pad the innermost dimensions to `fft_length`
(irfft to `fft_length // 2 + 1` on the last one), which torch.fft's `s` argument does as well.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator.errors import InvalidArgumentError
from torchestimator.signal._common import _COMPLEX_OF, int_list, real_tensor

Tensor = torch.Tensor


def _complex_tensor(value: Any, op: str) -> Tensor:
    tensor = convert_to_tensor(value)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: input must be a complex tensor, got string values.")
    if tensor.is_complex():
        return tensor
    if tensor.dtype is torch.bool:
        raise TypeError(f"{op}: input must be complex64 or complex128, got bool.")
    # TF converts real Python/numpy values to complex64; a float64 tensor keeps its precision.
    return tensor.to(torch.complex128 if tensor.dtype is torch.float64 else torch.complex64)


def _complex_preferred(value: Any, op: str) -> Tensor:
    """TF's conversion with a complex64 preference: non-tensor values become complex64."""
    tensor = _complex_tensor(value, op)
    if not isinstance(value, Tensor) and tensor.dtype is torch.complex128:
        tensor = tensor.to(torch.complex64)
    return tensor


def _check_rank(tensor: Tensor, rank: int, op: str) -> None:
    if tensor.dim() < rank:
        raise InvalidArgumentError(
            None, None, f"{op}: Input must have rank of at least {rank} but got: "
            f"{list(tensor.shape)}")


def _complex_transform(fn, rank: int, op: str):
    def transform(input: Any, name: str | None = None) -> Tensor:
        tensor = _complex_tensor(input, op)
        _check_rank(tensor, rank, op)
        return fn(tensor, dim=tuple(range(-rank, 0)))
    return transform


def _doc(fn, text: str):
    fn.__doc__ = text
    return fn


fft = _doc(_complex_transform(torch.fft.fftn, 1, "fft"),
           "Fast Fourier transform over the inner-most dimension of `input` (complex).\n\n"
           "Returns:\n    A complex tensor of the same shape and dtype.")
ifft = _doc(_complex_transform(torch.fft.ifftn, 1, "ifft"),
            "Inverse fast Fourier transform over the inner-most dimension of `input`.\n\n"
            "Returns:\n    A complex tensor of the same shape and dtype.")
fft2d = _doc(_complex_transform(torch.fft.fftn, 2, "fft2d"),
             "2D fast Fourier transform over the inner-most 2 dimensions of `input`.\n\n"
             "Returns:\n    A complex tensor of the same shape and dtype.")
ifft2d = _doc(_complex_transform(torch.fft.ifftn, 2, "ifft2d"),
              "Inverse 2D fast Fourier transform over the inner-most 2 dimensions of `input`.\n\n"
              "Returns:\n    A complex tensor of the same shape and dtype.")
fft3d = _doc(_complex_transform(torch.fft.fftn, 3, "fft3d"),
             "3D fast Fourier transform over the inner-most 3 dimensions of `input`.\n\n"
             "Returns:\n    A complex tensor of the same shape and dtype.")
ifft3d = _doc(_complex_transform(torch.fft.ifftn, 3, "ifft3d"),
              "Inverse 3D fast Fourier transform over the inner-most 3 dimensions of `input`.\n\n"
              "Returns:\n    A complex tensor of the same shape and dtype.")


def _real_input(input_tensor: Any, op: str) -> Tensor:
    tensor = real_tensor(input_tensor, op, "input_tensor")
    if tensor.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: "
                         f"{dtype_name(tensor.dtype)} ({op}: cast with tf.cast first)")
    return tensor


def _lengths(fft_length: Any, rank: int, op: str) -> list[int] | None:
    if fft_length is None:
        return None
    lengths = int_list(fft_length, "fft_length", op, rank)
    if any(n < 0 for n in lengths):
        raise InvalidArgumentError(None, None, f"{op}: fft_length must be non-negative, got "
                                   f"{lengths}.")
    return lengths


def _rfft_transform(rank: int, op: str):
    def transform(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Tensor:
        tensor = _real_input(input_tensor, op)
        _check_rank(tensor, rank, op)
        lengths = _lengths(fft_length, rank, op)
        if lengths is None:
            lengths = list(tensor.shape[-rank:])
        if 0 in lengths:
            shape = list(tensor.shape[:-rank]) + lengths[:-1] + [lengths[-1] // 2 + 1]
            return torch.zeros(shape, dtype=_COMPLEX_OF[tensor.dtype], device=tensor.device)
        return torch.fft.rfftn(tensor, s=lengths, dim=tuple(range(-rank, 0)))
    return transform


def _irfft_transform(rank: int, op: str):
    def transform(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Tensor:
        tensor = input_tensor if isinstance(input_tensor, Tensor) else \
            _complex_preferred(input_tensor, op)
        _check_rank(tensor, rank, op)
        if not tensor.is_complex():
            raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: "
                             f"{dtype_name(tensor.dtype)} ({op}: use tf.complex to build one)")
        lengths = _lengths(fft_length, rank, op)
        if lengths is None:  # TF: the inner dimension is 2 * (n - 1)
            lengths = list(tensor.shape[-rank:-1]) + [2 * (tensor.shape[-1] - 1)]
        if 0 in lengths or min(lengths) < 0:
            shape = list(tensor.shape[:-rank]) + [max(n, 0) for n in lengths]
            return torch.zeros(shape, dtype=tensor.real.dtype, device=tensor.device)
        return torch.fft.irfftn(tensor, s=lengths, dim=tuple(range(-rank, 0)))
    return transform


rfft = _doc(_rfft_transform(1, "rfft"),
            "Real-valued fast Fourier transform over the inner-most dimension of `input_tensor`.\n\n"
            "`fft_length` (a 1-element list) crops or zero-pads the input first; by default the\n"
            "inner dimension's size.\n\nReturns:\n    complex64 (from float32) or complex128 "
            "(from float64), inner dimension `fft_length // 2 + 1`.")
rfft2d = _doc(_rfft_transform(2, "rfft2d"),
              "2D real-valued FFT over the inner-most 2 dimensions (`fft_length`: 2 ints).\n\n"
              "Returns:\n    A complex tensor whose last dimension is `fft_length[-1] // 2 + 1`.")
rfft3d = _doc(_rfft_transform(3, "rfft3d"),
              "3D real-valued FFT over the inner-most 3 dimensions (`fft_length`: 3 ints).\n\n"
              "Returns:\n    A complex tensor whose last dimension is `fft_length[-1] // 2 + 1`.")
irfft = _doc(_irfft_transform(1, "irfft"),
             "Inverse real-valued FFT over the inner-most dimension of `input_tensor`.\n\n"
             "`fft_length` defaults to `2 * (n - 1)` for an inner dimension of size n.\n\n"
             "Returns:\n    float32 (from complex64) or float64 (from complex128).")
irfft2d = _doc(_irfft_transform(2, "irfft2d"),
               "Inverse 2D real-valued FFT over the inner-most 2 dimensions.\n\n"
               "Returns:\n    A real tensor with inner dimensions `fft_length`.")
irfft3d = _doc(_irfft_transform(3, "irfft3d"),
               "Inverse 3D real-valued FFT over the inner-most 3 dimensions.\n\n"
               "Returns:\n    A real tensor with inner dimensions `fft_length`.")


# ---------------------------------------------------------------------------- N-D transforms
_NORMS = (None, "backward", "forward", "ortho")


def _nd_args(tensor: Tensor, fft_length: Any, axes: Any, norm: Any, op: str
             ) -> tuple[list[int] | None, tuple[int, ...], str]:
    if norm not in _NORMS:
        raise ValueError(f"{op}: norm must be one of 'backward', 'forward', 'ortho' or None, "
                         f"got {norm!r}.")
    if axes is None:
        dims = tuple(range(-tensor.dim(), 0)) if fft_length is None else \
            tuple(range(-len(int_list(fft_length, "fft_length", op)), 0))
    else:
        dims = tuple(int_list(axes, "axes", op))
    for d in dims:
        if not -tensor.dim() <= d < tensor.dim():
            raise InvalidArgumentError(None, None, f"{op}: axis {d} is out of range for an input "
                                       f"of rank {tensor.dim()}.")
    lengths = None if fft_length is None else _lengths(fft_length, len(dims), op)
    return lengths, dims, norm or "backward"


def fftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: str | None = None,
          name: str | None = None) -> Tensor:
    """N-D fast Fourier transform over `axes` (default: all), each cropped/padded to `fft_length`.

    `norm`: "backward" (default, no scaling), "ortho" (1/sqrt(n)) or "forward" (1/n).
    TF 2.15's CPU build registers no kernel for this op; this follows its documented definition.

    Returns:
        A complex tensor.
    """
    tensor = _complex_preferred(input_tensor, "fftnd")
    lengths, dims, norm = _nd_args(tensor, fft_length, axes, norm, "fftnd")
    return torch.fft.fftn(tensor, s=lengths, dim=dims, norm=norm)


def ifftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: str | None = None,
           name: str | None = None) -> Tensor:
    """N-D inverse fast Fourier transform over `axes` (default: all); see `fftnd`.

    Returns:
        A complex tensor.
    """
    tensor = _complex_preferred(input_tensor, "ifftnd")
    lengths, dims, norm = _nd_args(tensor, fft_length, axes, norm, "ifftnd")
    return torch.fft.ifftn(tensor, s=lengths, dim=dims, norm=norm)


def rfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: str | None = None,
           name: str | None = None) -> Tensor:
    """N-D real-valued FFT over `axes` (default: all); the last axis keeps `n // 2 + 1` bins.

    Returns:
        complex64 from float32, complex128 from float64.
    """
    tensor = _real_input(input_tensor, "rfftnd")
    lengths, dims, norm = _nd_args(tensor, fft_length, axes, norm, "rfftnd")
    return torch.fft.rfftn(tensor, s=lengths, dim=dims, norm=norm)


def irfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None,
            norm: str | None = None, name: str | None = None) -> Tensor:
    """N-D inverse real-valued FFT over `axes` (default: all); see `rfftnd`.

    Returns:
        float32 from complex64, float64 from complex128.
    """
    tensor = _complex_preferred(input_tensor, "irfftnd")
    lengths, dims, norm = _nd_args(tensor, fft_length, axes, norm, "irfftnd")
    return torch.fft.irfftn(tensor, s=lengths, dim=dims, norm=norm)


# ---------------------------------------------------------------------------- shifts
def _shift(x: Any, axes: Any, sign: int, op: str) -> Tensor:
    tensor = convert_to_tensor(x)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: x must be a numeric tensor, got string values.")
    if axes is None:
        dims = tuple(range(tensor.dim()))
    else:
        dims = tuple(int_list(axes, "axes", op))
    shifts = tuple(sign * (tensor.shape[d] // 2) for d in dims)
    return torch.roll(tensor, shifts, dims) if dims else tensor


def fftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """Shifts the zero-frequency component to the center of the spectrum (all axes by default).

    Returns:
        The shifted tensor (numpy.fft.fftshift's result).
    """
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """The inverse of `fftshift` (they differ by one sample on odd-length axes).

    Returns:
        The shifted tensor.
    """
    return _shift(x, axes, -1, "ifftshift")
