"""The helpers tf.image's ops share: image and rank checks, batching, dtype ranges and casts, op-
seeded and stateless generators, argument checks."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator._ops import random_ops
from torchestimator._ops.convert import convert_to_tensor

Tensor = torch.Tensor

# The dtype `resize` refuses, as TF's kernels have no registration for them.
_NOT_IMAGE_DTYPES = (torch.bool, torch.complex64, torch.complex128)


# ---------------------------------------------------------------------------- helpers
def _image(image: Any, op: str) -> Tensor:
    value = convert_to_tensor(image)
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: images must be numeric tensors, got string values.")
    return value


def _rank_error(op: str, shape: Any, need: str) -> ValueError:
    return ValueError(f"{op}: 'image' (shape {tuple(shape)}) {need}")


def _check_rank(image: Tensor, op: str, ranks: tuple[int, ...] = (3, 4)) -> None:
    if image.dim() < 3:
        raise _rank_error(op, image.shape, "must be at least three-dimensional.")
    if image.dim() not in ranks:
        raise _rank_error(op, image.shape, "must have either 3 or 4 dimensions.")


def _as_batch(image: Any, op: str) -> tuple[Tensor, bool]:
    """Returns `(NHWC tensor, was_batched)`; raises for ranks other than 3 and 4."""
    image = _image(image, op)
    _check_rank(image, op)
    if image.dim() == 3:
        return image.unsqueeze(0), False
    return image, True


def _unbatch(image: Tensor, was_batched: bool) -> Tensor:
    return image if was_batched else image.squeeze(0)


def _is_integer(dtype: torch.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex or dtype is torch.bool)


def _max(dtype: torch.dtype) -> float | int:
    return torch.iinfo(dtype).max if _is_integer(dtype) else torch.finfo(dtype).max


def _min(dtype: torch.dtype) -> float | int:
    return torch.iinfo(dtype).min if _is_integer(dtype) else torch.finfo(dtype).min


def _cast(x: Tensor, dtype: torch.dtype) -> Tensor:
    """TF's (C++) cast: floats truncate toward zero, integers wrap around."""
    if x.dtype is dtype:
        return x
    if x.dtype.is_floating_point and _is_integer(dtype) and dtype is not torch.int64:
        return x.to(torch.int64).to(dtype)  # truncate, then wrap (defined, as TF's)
    return x.to(dtype)


def _saturate_cast(x: Tensor, dtype: torch.dtype) -> Tensor:
    """TF's `saturate_cast`: clamps to `dtype`'s range (limits taken in `x`'s dtype) and casts."""
    lo_in, hi_in, lo_out, hi_out = _min(x.dtype), _max(x.dtype), _min(dtype), _max(dtype)
    if lo_in < lo_out or hi_in > hi_out:
        np_dtype = torch.empty((), dtype=x.dtype).numpy().dtype if x.dtype is not torch.bfloat16 \
            else np.dtype(np.float32)
        lo = np_dtype.type(max(lo_in, lo_out))
        if float(lo) < lo_out:  # the limit rounded outside the range: step back inside
            lo = np.nextafter(lo, np_dtype.type(0), dtype=np_dtype)
        hi = np_dtype.type(min(hi_in, hi_out))
        if float(hi) > hi_out:
            hi = np.nextafter(hi, np_dtype.type(0), dtype=np_dtype)
        x = x.clamp(lo.item(), hi.item())
    return _cast(x, dtype)


def _op_seed_generator(seed: Any, device: torch.device, op: str) -> torch.Generator | None:
    """The generator for an op `seed` (None: torch's default generator), as tf.random's ops."""
    return random_ops._op_generator(op, seed, device)


# Where the random image ops draw (the same draws on every device; nothing read back from a GPU).
_HOST = torch.device("cpu")


def _stateless(seed: Any, op: str) -> torch.Generator:
    """The host generator of a stateless op's `seed` (the same draws on every device)."""
    return random_ops._stateless_generator(seed, op)


def _uniform(shape: tuple, low: float, high: float, gen: torch.Generator | None,
             device: torch.device) -> Tensor:
    return torch.rand(shape, generator=gen, device=device) * (high - low) + low


def _int_arg(value: Any, name: str, op: str) -> int:
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        if np.ndim(value) != 0:
            raise ValueError(f"{op}: `{name}` must be a scalar integer, got {value!r}.")
        value = value.item()
    if isinstance(value, builtins.bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}: `{name}` must be an integer, got {value!r}.")
    return int(value)


def _box(op: str, offset_height: Any, offset_width: Any, target_height: Any,
         target_width: Any) -> tuple[int, int, int, int]:
    names = ("offset_height", "offset_width", "target_height", "target_width")
    values = (offset_height, offset_width, target_height, target_width)
    oh, ow, th, tw = (_int_arg(v, n, op) for v, n in zip(values, names))
    return oh, ow, th, tw
