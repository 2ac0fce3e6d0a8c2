"""tf.nn's atrous and N-D transposed convolutions and the convolution gradients
(`*_backprop_filter` / `*_backprop_input`), as TF 2.15's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator._ops.nn_ops._common import Tensor, _floating
from torchestimator._ops.nn_ops._convolution import (
    conv1d_transpose,
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    depthwise_conv2d,
)
from torchestimator._ops.nn_ops._nn_extras._args import _ints
from torchestimator.errors import InvalidArgumentError


def atrous_conv2d(value: Any, filters: Any, rate: int, padding: str,
                  name: str | None = None) -> Tensor:
    """Atrous (dilated) 2-D convolution of an NHWC `value` with `filters`
    `[height, width, in_channels, out_channels]`, sampling the input every `rate` pixels (TF's
    `tf.nn.atrous_conv2d`).

    Returns:
        A 4-D NHWC tensor of `value`'s dtype.
    """
    if int(rate) < 1:
        raise ValueError(f"atrous_conv2d: all values of `dilation_rate` must be positive. "
                         f"Received: rate={rate}")
    return conv2d(value, filters, [1, 1, 1, 1], padding, "NHWC", [1, int(rate), int(rate), 1])


def atrous_conv2d_transpose(value: Any, filters: Any, output_shape: Any, rate: int, padding: str,
                            name: str | None = None) -> Tensor:
    """The transpose of `atrous_conv2d` (its gradient with respect to its input; TF's
    `tf.nn.atrous_conv2d_transpose`); `filters` is `[height, width, out_channels,
    in_channels]`.

    Returns:
        A 4-D NHWC tensor of shape `output_shape`.
    """
    if int(rate) < 1:
        raise ValueError(f"atrous_conv2d_transpose: `rate` must be positive, got {rate}.")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"atrous_conv2d_transpose: padding must be 'SAME' or 'VALID', got "
                         f"{padding!r}.")
    return conv2d_transpose(value, filters, output_shape, [1, 1, 1, 1], padding, "NHWC",
                            [1, int(rate), int(rate), 1])


def conv_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,
                   padding: str = "SAME", data_format: str | None = None, dilations: Any = None,
                   name: str | None = None) -> Tensor:
    """The transpose of `convolution` for 1, 2 or 3 spatial dimensions, chosen by the length
    of `output_shape` (TF's `tf.nn.conv_transpose`).

    Returns:
        A tensor of shape `output_shape`.
    """
    shape = _ints(output_shape, "conv_transpose", "output_shape")
    n = len(shape) - 2
    fns = {1: conv1d_transpose, 2: conv2d_transpose, 3: conv3d_transpose}
    if n not in fns:
        raise ValueError(f"conv_transpose: output_shape must have length 3, 4 or 5 (N+2 for N "
                         f"spatial dimensions), got {shape}.")
    fmt = data_format if data_format is not None else {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]
    return fns[n](input, filters, shape, strides, padding, fmt, dilations)


def _vjp(fn: Callable[[Tensor], Tensor], primal: Tensor, cotangent: Any, op: str) -> Tensor:
    primal = primal.detach().requires_grad_(True)
    with torch.enable_grad():
        y = fn(primal)
    cot = convert_to_tensor(cotangent, dtype_hint=y.dtype, name="out_backprop")
    if tuple(cot.shape) != tuple(y.shape):
        raise InvalidArgumentError(
            None, None, f"{op}: `out_backprop` has shape {list(cot.shape)} but the convolution's "
            f"output has shape {list(y.shape)}; check strides, padding and sizes.")
    (grad,) = torch.autograd.grad(y, primal, cot.to(y.dtype))
    return grad.detach()


def _sizes(sizes: Any, op: str, arg: str, rank: int) -> list[int]:
    s = _ints(sizes, op, arg)
    if len(s) != rank:
        raise ValueError(f"{op}: `{arg}` must have {rank} elements, got {s}.")
    return s


def _backprop_filter(op: str, conv: Callable, rank: int, input: Any, filter_sizes: Any,
                     out_backprop: Any, strides: Any, padding: Any, data_format: Any,
                     dilations: Any) -> Tensor:
    x = _floating(input, op, "input")
    shape = _sizes(filter_sizes, op, "filter_sizes", rank)
    w = torch.zeros(shape, dtype=x.dtype, device=x.device)
    return _vjp(lambda f: conv(x, f, strides, padding, data_format, dilations), w,
                out_backprop, op)


def _backprop_input(op: str, conv: Callable, rank: int, input_sizes: Any, filter: Any,
                    out_backprop: Any, strides: Any, padding: Any, data_format: Any,
                    dilations: Any) -> Tensor:
    w = _floating(filter, op, "filter")
    shape = _sizes(input_sizes, op, "input_sizes", rank)
    x = torch.zeros(shape, dtype=w.dtype, device=w.device)
    return _vjp(lambda v: conv(v, w, strides, padding, data_format, dilations), x,
                out_backprop, op)


def depthwise_conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any,
                                     strides: Any, padding: Any, data_format: str = "NHWC",
                                     dilations: Any = (1, 1, 1, 1),
                                     name: str | None = None) -> Tensor:
    """The gradient of the depthwise convolution with respect to its filter (TF's
    `tf.nn.depthwise_conv2d_backprop_filter`): `filter_sizes` is `[height, width,
    in_channels, channel_multiplier]`.

    Returns:
        A tensor of shape `filter_sizes`.
    """
    def conv(x, f, s, p, fmt, d):
        return depthwise_conv2d(x, f, s, p, fmt, _rate2(d))

    return _backprop_filter("depthwise_conv2d_backprop_filter", conv, 4, input, filter_sizes,
                            out_backprop, strides, padding, data_format, list(dilations))


def depthwise_conv2d_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any,
                                    strides: Any, padding: Any, data_format: str = "NHWC",
                                    dilations: Any = (1, 1, 1, 1),
                                    name: str | None = None) -> Tensor:
    """The gradient of the depthwise convolution with respect to its input (TF's
    `tf.nn.depthwise_conv2d_backprop_input`).

    Returns:
        A tensor of shape `input_sizes`.
    """
    def conv(x, f, s, p, fmt, d):
        return depthwise_conv2d(x, f, s, p, fmt, _rate2(d))

    return _backprop_input("depthwise_conv2d_backprop_input", conv, 4, input_sizes, filter,
                           out_backprop, strides, padding, data_format, list(dilations))


def _rate2(dilations: Any) -> Any:
    d = _ints(dilations, "depthwise_conv2d", "dilations")
    return d[1:3] if len(d) == 4 else d


def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, strides: Any,
                           padding: Any, use_cudnn_on_gpu: bool = True,
                           data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
                           name: str | None = None) -> Tensor:
    """The gradient of `conv2d` with respect to its filter (TF1's
    `tf.compat.v1.nn.conv2d_backprop_filter`).

    Returns:
        A tensor of shape `filter_sizes`.
    """
    return _backprop_filter("conv2d_backprop_filter", conv2d, 4, input, filter_sizes,
                            out_backprop, strides, padding, data_format, list(dilations))


def conv3d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, strides: Any,
                           padding: str, data_format: str = "NDHWC",
                           dilations: Any = (1, 1, 1, 1, 1), name: str | None = None) -> Tensor:
    """The gradient of `conv3d` with respect to its filter (TF1's
    `tf.compat.v1.nn.conv3d_backprop_filter` / `conv3d_backprop_filter_v2`).

    Returns:
        A tensor of shape `filter_sizes`.
    """
    return _backprop_filter("conv3d_backprop_filter", conv3d, 5, input, filter_sizes,
                            out_backprop, strides, padding, data_format, list(dilations))


conv3d_backprop_filter_v2 = conv3d_backprop_filter


# ----------------------------------------------------------------------------- morphology
