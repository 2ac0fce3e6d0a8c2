"""TF's layouts and padding for convolution and pooling (NHWC / NCHW, 'SAME' / 'VALID' / explicit
pairs), bias_add, depth_to_space and space_to_depth."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._ops.convert import binary_operands, dtype_name, shapes_error
from torchestimator._ops.nn_ops._common import Tensor, _tensor
from torchestimator.errors import InvalidArgumentError, UnimplementedError


def bias_add(
    value: Any, bias: Any, data_format: str | None = None, name: str | None = None
) -> Tensor:
    """Adds `bias` (1-D) to `value` along its channel dimension: the last one for `N...C`
    layouts (the default), dimension 1 for `NC...` layouts.

    Returns:
        A tensor with the same type as `value`.
    """
    op = "bias_add"
    value, bias = binary_operands(value, bias, op)
    if not isinstance(bias, Tensor):
        bias = torch.tensor(bias, dtype=value.dtype, device=value.device)
    if value.ndim < 2:
        raise InvalidArgumentError(
            None, None, f"{op}: input tensor must be at least 2D: {list(value.shape)}"
        )
    if bias.ndim != 1:
        raise InvalidArgumentError(None, None, f"{op}: biases must be 1D: {list(bias.shape)}")
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        channel = value.ndim - 1
    elif data_format.startswith("NC"):
        channel = 1
    else:
        raise ValueError(
            f"{op}: `data_format` must be of the form `N...C` or `NC...`. Received: "
            f"data_format={data_format}"
        )
    if bias.shape[0] != value.shape[channel]:
        raise shapes_error(
            op,
            bias.shape,
            value.shape,
            f"Must provide as many biases as the channel dimension ({channel}) of the input "
            "tensor.",
        )
    if channel == value.ndim - 1:
        return value + bias
    return value + bias.reshape((-1,) + (1,) * (value.ndim - 2))


# ------------------------------------------------------------------------- conv and pool helpers

_CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}
_CHANNELS_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _layout(data_format: str | None, n: int, op: str) -> bool:
    """True for channels-last (`NWC`/`NHWC`/`NDHWC`), False for channels-first."""
    if data_format is None or data_format == _CHANNELS_LAST[n]:
        return True
    if data_format == _CHANNELS_FIRST[n]:
        return False
    raise ValueError(
        f"{op}: data_format must be '{_CHANNELS_LAST[n]}' or '{_CHANNELS_FIRST[n]}', got "
        f"{data_format!r}."
    )


def _spatial(
    value: Any, n: int, channels_last: bool, op: str, arg: str, default: int = 1
) -> tuple[int, ...]:
    """An int, or a list of 1, n or n + 2 ints (TF's ksize/strides/dilations), as n ints."""
    if value is None:
        return (default,) * n
    if isinstance(value, (Tensor, np.ndarray)):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = [int(v) for v in value]
    if len(value) == 1:
        return (value[0],) * n
    if len(value) == n:
        return tuple(value)
    if len(value) == n + 2:
        outer = (value[0], value[-1]) if channels_last else (value[0], value[1])
        if outer != (1, 1):
            raise UnimplementedError(
                None,
                None,
                f"{op}: {arg}={value} moves along the batch or channel dimension, which TF does "
                "not support; "
                "those entries must be 1.",
            )
        return tuple(value[1:-1]) if channels_last else tuple(value[2:])
    lengths = "1 or 3" if n == 1 else f"1, {n} or {n + 2}"
    raise ValueError(
        f"{op}: {arg} should be of length {lengths}. Received: {arg}={value} of length {len(value)}"
    )


def _padding(
    padding: Any,
    n: int,
    channels_last: bool,
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    op: str,
    explicit_ok: bool = True,
) -> list[tuple[int, int]]:
    """TF's padding as a (before, after) pair per spatial dimension."""
    if isinstance(padding, str):
        if padding == "VALID":
            return [(0, 0)] * n
        if padding == "SAME":
            pads = []
            for size, k, s, d in zip(sizes, kernel, strides, dilations):
                out = -(-size // s)
                total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
                pads.append((total // 2, total - total // 2))
            return pads
        raise ValueError(
            f"{op}: padding must be 'SAME', 'VALID' or a list of [before, after] pairs, got "
            f"{padding!r}."
        )
    if not explicit_ok:
        raise TypeError(
            f"{op}: padding must be 'SAME' or 'VALID', got {padding!r} (no explicit padding)."
        )
    pairs = [
        [int(v) for v in pair]
        for pair in (padding.tolist() if isinstance(padding, Tensor) else padding)
    ]
    if len(pairs) != n + 2 or any(len(p) != 2 for p in pairs):
        raise ValueError(
            f"{op}: when padding is a list, it must be of size {n + 2} ([before, after] for each "
            f"dimension). Received: padding={padding}"
        )
    outer = (pairs[0], pairs[-1]) if channels_last else (pairs[0], pairs[1])
    if any(v != 0 for pair in outer for v in pair):
        raise ValueError(
            f"{op}: padding={pairs} pads the batch or channel dimension; those pairs must be [0, "
            "0]."
        )
    spatial = pairs[1:-1] if channels_last else pairs[2:]
    if any(v < 0 for pair in spatial for v in pair):
        raise ValueError(f"{op}: padding={pairs} has a negative value.")
    return [tuple(p) for p in spatial]


def _to_channels_first(
    x: Tensor, n: int, channels_last: bool, op: str, min_rank: int | None = None
) -> tuple[Tensor, tuple[int, ...]]:
    """`x` as a `[batch, channels, *spatial]` view; extra leading batch dims are flattened
    (returned so the output can be unflattened)."""
    rank = n + 2
    if x.ndim < rank or (min_rank is None and x.ndim != rank):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: input must be {rank}-D "
            f"({_CHANNELS_LAST[n] if channels_last else _CHANNELS_FIRST[n]}), "
            f"got shape {list(x.shape)}.",
        )
    batch = tuple(x.shape[: x.ndim - n - 1])
    if len(batch) != 1:
        x = x.reshape((-1,) + tuple(x.shape[len(batch) :]))
    if channels_last:
        x = x.movedim(-1, 1)
    return x, batch


def _from_channels_first(y: Tensor, batch: tuple[int, ...], channels_last: bool) -> Tensor:
    if channels_last:
        y = y.movedim(1, -1)
    if len(batch) != 1:
        y = y.reshape(batch + tuple(y.shape[1:]))
    return y


def _apply_pads(x: Tensor, pads: list[tuple[int, int]], value: float = 0.0) -> Tensor:
    flat: list[int] = []
    for before, after in reversed(pads):
        flat += [before, after]
    return F.pad(x, flat, value=value)


def _check_output(
    op: str,
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: list[tuple[int, int]],
    input_shape: Any,
    kernel_shape: Any,
) -> None:
    for size, k, s, d, (before, after) in zip(sizes, kernel, strides, dilations, pads):
        if size + before + after - (k - 1) * d - 1 < 0:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: computed output size would be negative: the input of shape "
                f"{list(input_shape)} is "
                f"smaller than the window of shape {list(kernel_shape)} (with padding {pads}).",
            )
        if s < 1:
            raise ValueError(f"{op}: strides must be >= 1, got {list(strides)}.")


_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _conv_operands(input: Any, filters: Any, op: str) -> tuple[Tensor, Tensor]:
    x, w = binary_operands(input, filters, op)
    if not isinstance(w, Tensor):
        w = torch.tensor(w, dtype=x.dtype, device=x.device)
    if x.dtype is torch.bool or x.is_complex():
        raise InvalidArgumentError(
            None, None, f"{op}: dtype {dtype_name(x.dtype)} is not supported."
        )
    if w.device != x.device:
        w = w.to(x.device)
    return x, w


# ----------------------------------------------------------------------------- space/depth


def depth_to_space(
    input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """Rearranges data from depth into blocks of spatial data (TF's `depth_to_space`).

    Returns:
        A tensor `[batch, height * block_size, width * block_size, depth / block_size**2]`.
    """
    op = "depth_to_space"
    x = _tensor(input, op, "input")
    channels_last = _layout(data_format, 2, op)
    xc, batch = _to_channels_first(x, 2, channels_last, op)
    b, c, h, w = xc.shape
    bs = int(block_size)
    if bs < 2 or c % (bs * bs):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: the depth {c} must be divisible by block_size * block_size = {bs * bs} "
            "(block_size >= 2).",
        )
    y = (
        xc.reshape(b, bs, bs, c // (bs * bs), h, w)
        .permute(0, 3, 4, 1, 5, 2)
        .reshape(b, c // (bs * bs), h * bs, w * bs)
    )
    return _from_channels_first(y, batch, channels_last)


def space_to_depth(
    input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """Rearranges blocks of spatial data into depth (TF's `space_to_depth`).

    Returns:
        A tensor `[batch, height / block_size, width / block_size, depth * block_size**2]`.
    """
    op = "space_to_depth"
    x = _tensor(input, op, "input")
    channels_last = _layout(data_format, 2, op)
    xc, batch = _to_channels_first(x, 2, channels_last, op)
    b, c, h, w = xc.shape
    bs = int(block_size)
    if bs < 2 or h % bs or w % bs:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: height {h} and width {w} must be divisible by block_size {bs} (block_size >= "
            "2).",
        )
    y = (
        xc.reshape(b, c, h // bs, bs, w // bs, bs)
        .permute(0, 3, 5, 1, 2, 4)
        .reshape(b, c * bs * bs, h // bs, w // bs)
    )
    return _from_channels_first(y, batch, channels_last)
