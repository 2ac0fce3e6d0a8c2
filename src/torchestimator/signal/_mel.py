"""tf.signal.linear_to_mel_weight_matrix (HTK mel scale, TF's exact edge handling)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._dtypes import as_dtype
from torchestimator._ops.convert import dtype_name
from torchestimator._ops.random_ops import _device

Tensor = torch.Tensor
_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz: Tensor) -> Tensor:
    return _MEL_HIGH_FREQUENCY_Q * torch.log(1.0 + frequencies_hertz / _MEL_BREAK_FREQUENCY_HERTZ)


def _validate(num_mel_bins: Any, sample_rate: Any, lower: Any, upper: Any, dtype: Any) -> None:
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower}")
    if lower >= upper:
        raise ValueError(f"lower_edge_hertz {float(lower):.1f} >= upper_edge_hertz "
                         f"{float(upper):.1f}")
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper > sample_rate / 2:
            raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency "
                             f"(sample_rate / 2). Got {upper} for sample_rate: {sample_rate}")
    if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise ValueError(f"dtype must be a floating point type. Got: {dtype_name(dtype)}")


def _linspace(start: Tensor, stop: Tensor, num: int) -> Tensor:
    """TF's LinSpace: start + i * (stop - start) / (num - 1), the last value exactly `stop`."""
    if num == 1:
        return start.reshape(1)
    step = (stop - start) / (num - 1)
    out = start + torch.arange(num, device=start.device).to(start.dtype) * step
    return torch.cat([out[:-1], stop.reshape(1)])


def linear_to_mel_weight_matrix(num_mel_bins: int = 20, num_spectrogram_bins: int = 129,
                                sample_rate: Any = 8000, lower_edge_hertz: float = 125.0,
                                upper_edge_hertz: float = 3800.0, dtype: Any = torch.float32,
                                name: str | None = None) -> Tensor:
    """Returns a matrix to warp linear-scale spectrograms to the mel scale (HTK's formula,
    `mel = 1127 ln(1 + f / 700)`): triangular filters on `num_mel_bins + 2` mel-spaced edges
    between `lower_edge_hertz` and `upper_edge_hertz`; the DC bin gets no weight.

    Returns:
        A tensor of shape `[num_spectrogram_bins, num_mel_bins]` of `dtype`.
    """
    torch_dtype = as_dtype(dtype)
    _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, torch_dtype)

    device = _device()
    rate = (sample_rate.to(device) if isinstance(sample_rate, Tensor)
            else torch.tensor(sample_rate, device=device)).to(torch_dtype)
    lower = torch.tensor(lower_edge_hertz, dtype=torch_dtype, device=device)
    upper = torch.tensor(upper_edge_hertz, dtype=torch_dtype, device=device)
    zero = torch.zeros((), dtype=torch_dtype, device=device)
    nyquist = rate / 2.0
    linear = _linspace(zero, nyquist, num_spectrogram_bins)[1:]
    bins_mel = _hertz_to_mel(linear).unsqueeze(1)
    edges = _linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2)
    lower_mel, center_mel, upper_mel = (edges[i:i + num_mel_bins].reshape(1, num_mel_bins)
                                        for i in range(3))
    lower_slopes = (bins_mel - lower_mel) / (center_mel - lower_mel)
    upper_slopes = (upper_mel - bins_mel) / (upper_mel - center_mel)
    weights = torch.maximum(zero, torch.minimum(lower_slopes, upper_slopes))
    return torch.nn.functional.pad(weights, [0, 0, 1, 0])


