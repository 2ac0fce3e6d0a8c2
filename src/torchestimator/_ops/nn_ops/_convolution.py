"""tf.nn's convolutions: conv1d/2d/3d, convolution, depthwise and separable conv2d, and the
transposed convolutions."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import shapes_error
from torchestimator._ops.nn_ops._common import Tensor
from torchestimator._ops.nn_ops._data_format import (
    _CONV,
    _CONV_T,
    _apply_pads,
    _check_output,
    _conv_operands,
    _from_channels_first,
    _layout,
    _padding,
    _spatial,
    _to_channels_first,
)
from torchestimator.errors import InvalidArgumentError


def _conv(
    op: str,
    n: int,
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    dilations: Any,
    depthwise: bool = False,
) -> Tensor:
    x, w = _conv_operands(input, filters, op)
    channels_last = _layout(data_format, n, op)
    if w.ndim != n + 2:
        raise InvalidArgumentError(
            None, None, f"{op}: filters must be {n + 2}-D, got shape {list(w.shape)}."
        )
    xc, batch = _to_channels_first(x, n, channels_last, op, min_rank=n + 2)
    in_channels, sizes = xc.shape[1], tuple(xc.shape[2:])
    kernel = tuple(w.shape[:n])
    strides = _spatial(strides, n, channels_last, op, "strides")
    dilations = _spatial(dilations, n, channels_last, op, "dilations")
    if depthwise:
        if w.shape[n] != in_channels:
            raise shapes_error(
                op,
                x.shape,
                w.shape,
                f"The filter's in_channels ({w.shape[n]}) must equal the input's ({in_channels}).",
            )
        groups = in_channels
        weight = w.reshape(kernel + (1, in_channels * w.shape[n + 1]))
    else:
        if w.shape[n] == 0 or in_channels % w.shape[n]:
            raise shapes_error(
                op,
                x.shape,
                w.shape,
                f"input depth must be evenly divisible by filter depth: {in_channels} vs "
                f"{w.shape[n]}.",
            )
        groups = in_channels // w.shape[n]
        if w.shape[n + 1] % groups:
            raise shapes_error(
                op,
                x.shape,
                w.shape,
                f"The number of filters must be divisible by the groups ({groups}).",
            )
        weight = w
    weight = weight.permute((n + 1, n) + tuple(range(n)))
    pads = _padding(padding, n, channels_last, sizes, kernel, strides, dilations, op)
    _check_output(op, sizes, kernel, strides, dilations, pads, x.shape, w.shape)
    integer = not xc.is_floating_point()
    if (
        integer
    ):  # torch convolves integers only on some devices: exact in float64 for moderate values
        xc, weight = xc.to(torch.float64), weight.to(torch.float64)
    if all(before == after for before, after in pads):
        y = _CONV[n](xc, weight, None, strides, tuple(b for b, _ in pads), dilations, groups)
    else:
        y = _CONV[n](_apply_pads(xc, pads), weight, None, strides, 0, dilations, groups)
    if integer:
        y = y.round().to(x.dtype)
    return _from_channels_first(y, batch, channels_last)


# ----------------------------------------------------------------------------- convolutions


def conv1d(
    input: Any,
    filters: Any,
    stride: Any,
    padding: Any,
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes a 1-D convolution of a 3-D `input` (`NWC`) with `filters`
    `[width, in_channels, out_channels]`.

    Returns:
        A tensor of the same type as `input`, `[batch, out_width, out_channels]` (`NWC`).
    """
    return _conv("conv1d", 1, input, filters, stride, padding, data_format, dilations)


def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes a 2-D convolution of a 4-D `input` (`NHWC`, or `NCHW`) with `filters`
    `[height, width, in_channels, out_channels]` (grouped when `in_channels` is a divisor of the
    input's channels). `strides`/`dilations`: an int, or 2 or 4 ints; `padding`: `'SAME'`,
    `'VALID'` or explicit `[[0, 0], [top, bottom], [left, right], [0, 0]]`.

    Returns:
        A tensor of the same type as `input`.
    """
    return _conv("conv2d", 2, input, filters, strides, padding, data_format, dilations)


def conv3d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes a 3-D convolution of a 5-D `input` (`NDHWC`) with `filters`
    `[depth, height, width, in_channels, out_channels]`.

    Returns:
        A tensor of the same type as `input`.
    """
    return _conv("conv3d", 3, input, filters, strides, padding, data_format, dilations)


def convolution(
    input: Any,
    filters: Any,
    strides: Any = None,
    padding: str = "VALID",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Computes the sum of N-D convolutions (N = `filters` rank - 2, 1 to 3), as TF's
    `tf.nn.convolution`.

    Returns:
        A tensor of the same type as `input`.
    """
    rank = np.ndim(filters) if not isinstance(filters, Tensor) else filters.ndim
    n = rank - 2
    if n not in (1, 2, 3):
        raise ValueError(f"convolution: filters must be 3-D to 5-D, got rank {rank}.")
    return _conv("convolution", n, input, filters, strides, padding, data_format, dilations)


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Depthwise 2-D convolution: each input channel is convolved with its own
    `channel_multiplier` filters (`filter` is `[height, width, in_channels, channel_multiplier]`);
    output channel `c * channel_multiplier + m` comes from input channel `c`.

    Returns:
        A 4-D tensor with `in_channels * channel_multiplier` channels.
    """
    return _conv(
        "depthwise_conv2d",
        2,
        input,
        filter,
        strides,
        padding,
        data_format,
        dilations,
        depthwise=True,
    )


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """2-D convolution with separable filters: a depthwise convolution followed by a 1x1
    (pointwise) convolution with `pointwise_filter` `[1, 1, channels * multiplier, out_channels]`.

    Returns:
        A 4-D tensor.
    """
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pointwise_filter, 1, "VALID", data_format or "NHWC")


def _conv_transpose(
    op: str,
    n: int,
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    dilations: Any,
) -> Tensor:
    x, w = _conv_operands(input, filters, op)
    channels_last = _layout(data_format, n, op)
    if w.ndim != n + 2:
        raise InvalidArgumentError(
            None, None, f"{op}: filters must be {n + 2}-D, got shape {list(w.shape)}."
        )
    xc, batch = _to_channels_first(x, n, channels_last, op)
    in_sizes = tuple(xc.shape[2:])
    if xc.shape[1] != w.shape[n + 1]:
        raise shapes_error(
            op,
            x.shape,
            w.shape,
            f"The input's channels ({xc.shape[1]}) must equal the filters' last dimension "
            f"({w.shape[n + 1]}).",
        )
    if isinstance(output_shape, (Tensor, np.ndarray)):
        output_shape = output_shape.tolist()
    output_shape = [int(d) for d in output_shape]
    if len(output_shape) == n + 2:
        out_channels = output_shape[-1] if channels_last else output_shape[1]
        out_sizes = tuple(output_shape[1:-1] if channels_last else output_shape[2:])
        if out_channels != w.shape[n]:
            raise shapes_error(
                op,
                output_shape,
                w.shape,
                "output_shape's channels must equal the filters' out_channels.",
            )
    elif len(output_shape) == n:
        out_sizes = tuple(output_shape)
    else:
        raise ValueError(
            f"{op}: output_shape must have {n + 2} (or {n}) elements, got {output_shape}."
        )
    kernel = tuple(w.shape[:n])
    strides = _spatial(strides, n, channels_last, op, "strides")
    dilations = _spatial(dilations, n, channels_last, op, "dilations")
    pads = _padding(padding, n, channels_last, out_sizes, kernel, strides, dilations, op)
    for dim, (size, k, s, d, (before, after)) in enumerate(
        zip(out_sizes, kernel, strides, dilations, pads)
    ):
        expected = (size + before + after - (k - 1) * d - 1) // s + 1
        if expected != in_sizes[dim]:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: the input's spatial size {in_sizes[dim]} (dimension {dim}) does not match "
                f"output_shape {output_shape}: a convolution of that output would give {expected}.",
            )
    weight = w.permute((n + 1, n) + tuple(range(n)))
    integer = not xc.is_floating_point()
    if integer:
        xc, weight = xc.to(torch.float64), weight.to(torch.float64)
    full = _CONV_T[n](xc, weight, None, strides, 0, 0, 1, dilations)
    crop: list[tuple[int, int]] = []
    for dim, (size, (before, _)) in enumerate(zip(out_sizes, pads)):
        crop.append((-before, size + before - full.shape[2 + dim]))
    y = _apply_pads(full, crop) if any(c != (0, 0) for c in crop) else full
    if integer:
        y = y.round().to(x.dtype)
    return _from_channels_first(y, batch, channels_last)


def conv1d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of `conv1d` (the gradient of `conv1d` with respect to its input); `filters`
    is `[width, output_channels, in_channels]`.

    Returns:
        A tensor of `output_shape`.
    """
    return _conv_transpose(
        "conv1d_transpose",
        1,
        input,
        filters,
        output_shape,
        strides,
        padding,
        data_format,
        dilations,
    )


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of `conv2d` (the gradient of `conv2d` with respect to its input), as TF's
    `tf.nn.conv2d_transpose`; `filters` is `[height, width, output_channels, in_channels]` and
    `output_shape` the full 4-D output shape.

    Returns:
        A tensor of `output_shape`, of `input`'s type.
    """
    return _conv_transpose(
        "conv2d_transpose",
        2,
        input,
        filters,
        output_shape,
        strides,
        padding,
        data_format,
        dilations,
    )


def conv3d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of `conv3d`; `filters` is `[depth, height, width, output_channels,
    in_channels]`.

    Returns:
        A tensor of `output_shape`.
    """
    return _conv_transpose(
        "conv3d_transpose",
        3,
        input,
        filters,
        output_shape,
        strides,
        padding,
        data_format,
        dilations,
    )
