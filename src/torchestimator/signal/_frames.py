"""tf.signal.frame and tf.signal.overlap_and_add."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._ops.convert import convert_to_tensor
from torchestimator.signal._common import static_int

Tensor = torch.Tensor


def _tensor(value: Any, op: str, name: str) -> Tensor:
    tensor = convert_to_tensor(value)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: `{name}` must be a numeric tensor, got string values.")
    return tensor


def frame(signal: Any, frame_length: Any, frame_step: Any, pad_end: bool = False,
          pad_value: Any = 0, axis: int = -1, name: str | None = None) -> Tensor:
    """Expands `signal`'s `axis` into frames of `frame_length`, `frame_step` apart.

    Without `pad_end`, only whole frames are kept (`1 + (n - frame_length) // frame_step`, at
    least 0); with it, the end is padded with `pad_value` to `ceil(n / frame_step)` frames.

    Returns:
        A tensor of shape `outer + [frames, frame_length] + inner`, `signal`'s dtype.
    """
    x = _tensor(signal, "frame", "signal")
    length = static_int(frame_length, "frame_length", "frame")
    step = static_int(frame_step, "frame_step", "frame")
    axis = static_int(axis, "axis", "frame")
    if x.dim() < 1:
        raise ValueError(f"frame: Shape {tuple(x.shape)} must have rank at least 1 ('signal').")
    if not -x.dim() <= axis < x.dim():
        raise ValueError(f"frame: axis {axis} is out of range for a signal of rank {x.dim()}.")
    if length < 0 or step <= 0:
        raise ValueError(f"frame: frame_length must be >= 0 and frame_step > 0, got "
                         f"frame_length={length}, frame_step={step}.")
    axis %= x.dim()
    n = x.shape[axis]
    if pad_end:
        frames = -(-n // step)
        pad = max(0, (frames - 1) * step + length - n) if frames else 0
        if pad:
            pad_value = pad_value.item() if isinstance(pad_value, Tensor) else pad_value
            padding = [0, 0] * (x.dim() - 1 - axis) + [0, pad]
            x = F.pad(x, padding, value=pad_value) if x.dtype.is_floating_point or \
                x.dtype.is_complex else _int_pad(x, axis, pad, pad_value)
    else:
        frames = max(0, 1 + (n - length) // step) if n >= length else 0
    if frames == 0 or length == 0:
        shape = list(x.shape[:axis]) + [frames, length] + list(x.shape[axis + 1:])
        return x.new_zeros(shape)
    out = x.narrow(axis, 0, (frames - 1) * step + length).unfold(axis, length, step)
    return out.movedim(-1, axis + 1)


def _int_pad(x: Tensor, axis: int, pad: int, value: Any) -> Tensor:
    shape = list(x.shape)
    shape[axis] = pad
    return torch.cat([x, torch.full(shape, value, dtype=x.dtype, device=x.device)], axis)


def overlap_and_add(signal: Any, frame_step: Any, name: str | None = None) -> Tensor:
    """Reconstructs a signal from a framed representation by adding the overlapping frames.

    `signal` has shape `[..., frames, frame_length]`.

    Returns:
        A tensor of shape `[..., (frames - 1) * frame_step + frame_length]`.
    """
    x = _tensor(signal, "overlap_and_add", "signal")
    step = static_int(frame_step, "frame_step", "overlap_and_add")
    if x.dim() < 2:
        raise ValueError(f"overlap_and_add: Shape {tuple(x.shape)} must have rank at least 2 "
                         "('signal' is [..., frames, frame_length]).")
    if step <= 0:
        raise ValueError(f"overlap_and_add: frame_step must be positive, got {step}.")
    frames, length = x.shape[-2], x.shape[-1]
    out_len = max(0, (frames - 1) * step + length)
    out = x.new_zeros(tuple(x.shape[:-2]) + (out_len,))
    if frames == 0 or length == 0:
        return out
    index = (torch.arange(frames, device=x.device)[:, None] * step
             + torch.arange(length, device=x.device)[None, :]).reshape(-1)
    return out.index_add(-1, index, x.reshape(tuple(x.shape[:-2]) + (frames * length,)))
