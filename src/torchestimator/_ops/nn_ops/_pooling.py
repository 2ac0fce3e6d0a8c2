"""tf.nn's pooling: max_pool and avg_pool in 1, 2 and 3 dimensions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._ops.convert import dtype_name
from torchestimator._ops.host_fallback import host_fallback
from torchestimator._ops.nn_ops._common import _FLOATS, Tensor, _numeric
from torchestimator._ops.nn_ops._data_format import (
    _CHANNELS_FIRST,
    _CHANNELS_LAST,
    _apply_pads,
    _check_output,
    _from_channels_first,
    _layout,
    _padding,
    _spatial,
    _to_channels_first,
)
from torchestimator.errors import InvalidArgumentError


def _pool(
    op: str,
    kind: str,
    n: int | None,
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
) -> Tensor:
    x = _numeric(input, op, "input")
    if n is None:
        n = x.ndim - 2
        if n not in (1, 2, 3):
            raise ValueError(
                f"{op}: input must be 3-D, 4-D or 5-D (rank N+2 for N in 1..3), got shape "
                f"{list(x.shape)}."
            )
        if data_format is not None and data_format not in (_CHANNELS_LAST[n], _CHANNELS_FIRST[n]):
            raise ValueError(
                f"{op}: data_format {data_format!r} does not fit an input of rank {x.ndim}."
            )
    if kind == "avg" and not x.is_floating_point():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: input must be a floating-point tensor ({_FLOATS}), got {dtype_name(x.dtype)}.",
        )
    channels_last = _layout(data_format, n, op)
    xc, batch = _to_channels_first(x, n, channels_last, op)
    sizes = tuple(xc.shape[2:])
    kernel = _spatial(ksize, n, channels_last, op, "ksize")
    strides = _spatial(strides, n, channels_last, op, "strides")
    ones = (1,) * n
    pads = _padding(
        padding, n, channels_last, sizes, kernel, strides, ones, op, explicit_ok=kind == "max"
    )
    _check_output(op, sizes, kernel, strides, ones, pads, x.shape, kernel)
    squeeze = n == 1  # 1-D pools run as 2-D ones (torch has no integer max_pool1d)
    if squeeze:
        xc, kernel, strides, pads, n = (
            xc.unsqueeze(2),
            (1,) + kernel,
            (1,) + strides,
            [(0, 0)] + pads,
            2,
        )
    symmetric = all(
        before == after and before <= k // 2 for (before, after), k in zip(pads, kernel)
    )
    if kind == "max":
        pool = F.max_pool2d if n == 2 else F.max_pool3d
        if symmetric:  # (CUDA has no integer max pooling: those run on the host)
            y = host_fallback(lambda t: pool(t, kernel, strides, tuple(b for b, _ in pads)), xc)
        else:
            low = -math.inf if xc.is_floating_point() else torch.iinfo(xc.dtype).min
            y = host_fallback(lambda t: pool(t, kernel, strides), _apply_pads(xc, pads, low))
    else:
        pool = F.avg_pool2d if n == 2 else F.avg_pool3d
        if symmetric:
            y = pool(xc, kernel, strides, tuple(b for b, _ in pads), count_include_pad=False)
        else:  # TF averages over the window's elements inside the input only
            fraction = _window_fraction(tuple(xc.shape[2:]), kernel, strides, pads, xc)
            y = pool(_apply_pads(xc, pads), kernel, strides) * fraction
    if squeeze:
        y = y.squeeze(2)
    return _from_channels_first(y, batch, channels_last)


def _window_fraction(
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    pads: list[tuple[int, int]],
    like: Tensor,
) -> Tensor:
    """`window size / elements of the window inside the input`, per output position."""
    fraction = None
    for dim, (size, k, s, (before, after)) in enumerate(zip(sizes, kernel, strides, pads)):
        out = (size + before + after - k) // s + 1
        start = np.arange(out) * s - before
        inside = np.minimum(start + k, size) - np.maximum(start, 0)
        factor = torch.as_tensor(k / inside, dtype=like.dtype, device=like.device)
        shape = [1] * len(sizes)
        shape[dim] = out
        factor = factor.reshape(shape)
        fraction = factor if fraction is None else fraction * factor
    return fraction


# ----------------------------------------------------------------------------- pooling


def max_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on an N-D input (rank 3, 4 or 5: `NWC`, `NHWC`, `NDHWC`).

    Returns:
        A tensor of the format specified by `data_format`: the max pooled output.
    """
    return _pool("max_pool", "max", None, input, ksize, strides, padding, data_format)


def avg_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on an N-D input (rank 3, 4 or 5); with `'SAME'` padding each
    window averages only the elements inside the input, as TF.

    Returns:
        A tensor of the format specified by `data_format`: the average pooled output.
    """
    return _pool("avg_pool", "avg", None, input, ksize, strides, padding, data_format)


def max_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on a 3-D input (`NWC`).

    Returns:
        The max pooled output tensor.
    """
    return _pool("max_pool1d", "max", 1, input, ksize, strides, padding, data_format)


def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on a 4-D input (`NHWC`); `ksize`/`strides` are an int or 2 or 4 ints,
    `padding` `'SAME'`, `'VALID'` or explicit pairs.

    Returns:
        The max pooled output tensor.
    """
    return _pool("max_pool2d", "max", 2, input, ksize, strides, padding, data_format)


def max_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """Performs max pooling on a 5-D input (`NDHWC`).

    Returns:
        The max pooled output tensor.
    """
    return _pool("max_pool3d", "max", 3, input, ksize, strides, padding, data_format)


def avg_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on a 3-D input (`NWC`).

    Returns:
        The average pooled output tensor.
    """
    return _pool("avg_pool1d", "avg", 1, input, ksize, strides, padding, data_format)


def avg_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on a 4-D input (`NHWC`); with `'SAME'` padding each window
    averages only the elements inside the input, as TF.

    Returns:
        The average pooled output tensor.
    """
    return _pool("avg_pool2d", "avg", 2, input, ksize, strides, padding, data_format)


def avg_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """Performs average pooling on a 5-D input (`NDHWC`).

    Returns:
        The average pooled output tensor.
    """
    return _pool("avg_pool3d", "avg", 3, input, ksize, strides, padding, data_format)
