"""`tf.histogram_fixed_width` and `tf.histogram_fixed_width_bins`: equal-width bins over
`value_range`; values below the range count in the first bin, above it in the last."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor


def _bins(values: Any, value_range: Any, nbins: int, owner: str) -> torch.Tensor:
    values = convert_to_tensor(values)
    low, high = (float(v) for v in convert_to_tensor(value_range, dtype=torch.float64).reshape(-1).tolist())
    if isinstance(nbins, bool) or int(nbins) < 1:
        raise ValueError(f"{owner}: nbins must be > 0; received {nbins!r}.")
    if not high > low:
        raise ValueError(f"{owner}: value_range must be [low, high] with low < high; received {[low, high]}.")
    scaled = (values.to(torch.float64) - low) / (high - low)
    return torch.clamp(torch.floor(scaled * int(nbins)), 0, int(nbins) - 1).to(torch.int64)


def histogram_fixed_width_bins(values: Any, value_range: Any, nbins: int = 100, dtype: Any = torch.int32,
                               name: str | None = None) -> torch.Tensor:
    """The bin index of every value (of `values`' shape, `dtype`)."""
    return _bins(values, value_range, nbins, "histogram_fixed_width_bins").to(_dtypes.as_dtype(dtype))


def histogram_fixed_width(values: Any, value_range: Any, nbins: int = 100, dtype: Any = torch.int32,
                          name: str | None = None) -> torch.Tensor:
    """The number of values in each of `nbins` bins (a 1-D tensor of `dtype`)."""
    bins = _bins(values, value_range, nbins, "histogram_fixed_width")
    return torch.bincount(bins.reshape(-1), minlength=int(nbins)).to(_dtypes.as_dtype(dtype))
