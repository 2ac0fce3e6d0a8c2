"""Converting array-likes to torch tensors for Keras functions that take tensors."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.keras.backend import floatx


def as_float_tensor(x: Any, name: str = "x") -> torch.Tensor:
    """Returns `x` as a floating-point torch tensor.

    Tensors that are already floating point are returned as they are (same
    device, dtype and autograd graph); integer or boolean tensors and
    array-likes (numpy arrays, lists, scalars) become `floatx()` tensors, except
    float64 numpy arrays, which stay float64. Raises TypeError naming the
    argument when `x` cannot be read as numbers.
    """
    if isinstance(x, torch.Tensor):
        if x.is_floating_point() or x.is_complex():
            return x
        return x.to(getattr(torch, floatx()))
    try:
        array = np.asarray(x)
    except Exception as err:  # noqa: BLE001 - reported with the argument's name
        raise TypeError(f"`{name}` must be a tensor or an array of numbers; received {x!r}") from err
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"`{name}` must be a tensor or an array of numbers; received an array of dtype "
            f"{array.dtype} ({x!r})"
        )
    if array.dtype == np.float64:
        return torch.from_numpy(np.ascontiguousarray(array))
    return torch.as_tensor(array, dtype=getattr(torch, floatx()))
