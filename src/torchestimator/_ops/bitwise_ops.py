"""`tf.bitwise`: elementwise bit operations on integer tensors (TF's semantics: shifts by a
negative amount or by at least the bit width are implementation-defined in TF; here they
follow torch)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor


def _integers(x: Any, y: Any, op: str) -> tuple[torch.Tensor, torch.Tensor]:
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype) if not isinstance(y, torch.Tensor) else y
    for name, t in (("x", x), ("y", y)):
        if t.is_floating_point() or t.is_complex() or t.dtype is torch.bool:
            raise TypeError(f"tf.bitwise.{op}: {name} must be an integer tensor; received {t.dtype}.")
    if x.dtype != y.dtype:
        raise TypeError(f"tf.bitwise.{op}: x and y must have the same dtype; received {x.dtype} and {y.dtype}.")
    return x, y


def bitwise_and(x: Any, y: Any, name: str | None = None) -> torch.Tensor:
    """Elementwise `x & y`."""
    x, y = _integers(x, y, "bitwise_and")
    return torch.bitwise_and(x, y)


def bitwise_or(x: Any, y: Any, name: str | None = None) -> torch.Tensor:
    """Elementwise `x | y`."""
    x, y = _integers(x, y, "bitwise_or")
    return torch.bitwise_or(x, y)


def bitwise_xor(x: Any, y: Any, name: str | None = None) -> torch.Tensor:
    """Elementwise `x ^ y`."""
    x, y = _integers(x, y, "bitwise_xor")
    return torch.bitwise_xor(x, y)


def invert(x: Any, name: str | None = None) -> torch.Tensor:
    """Flips every bit of `x` (`~x`; for unsigned types `max - x`)."""
    x, _ = _integers(x, 0, "invert")
    return torch.bitwise_not(x)


def left_shift(x: Any, y: Any, name: str | None = None) -> torch.Tensor:
    """Elementwise `x << y`."""
    x, y = _integers(x, y, "left_shift")
    return torch.bitwise_left_shift(x, y)


def right_shift(x: Any, y: Any, name: str | None = None) -> torch.Tensor:
    """Elementwise `x >> y` (arithmetic for signed types, logical for unsigned)."""
    x, y = _integers(x, y, "right_shift")
    return torch.bitwise_right_shift(x, y)
