"""Keras 2.15's `tf.keras.backend` neural-network functions on torch: activations, losses,
convolutions, pooling, padding, resizing, normalization and dropout.

Images and volumes in `channels_first` layout are moved to channels-last, run through the
tf-level op (`tf.nn.convolution`, `tf.nn.max_pool2d`, ...) and moved back, as Keras does on a
CPU without NCHW kernels.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch

import torchestimator as _tf
from torchestimator.keras.backend._arrays import (
    _check_data_format,
    concatenate,
    permute_dimensions,
    repeat_elements,
    reshape,
    temporal_padding,
)
from torchestimator.keras.backend._core import _t, ndim
from torchestimator.keras.backend._math import batch_dot
from torchestimator.keras.backend._state import floatx
from torchestimator.keras.losses import _crossentropy  # names read at call time (a circle)

# --------------------------------------------------------------------- activations


def relu(x: Any, alpha: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> torch.Tensor:
    """Rectified linear unit: `max(x, 0)`, with `alpha` the slope below `threshold` and
    `max_value` the saturation threshold."""
    x = _t(x) if not isinstance(x, torch.Tensor) else x
    if not x.is_floating_point():
        x = x.to(getattr(torch, floatx()))
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return _tf.nn.leaky_relu(x, alpha=alpha)
        negative_part = _tf.nn.relu(-x + threshold) if threshold != 0 else _tf.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        out = x * (x > threshold).to(x.dtype)
    elif max_value == 6:
        out = _tf.nn.relu6(x)
        clip_max = False
    else:
        out = _tf.nn.relu(x)
    if clip_max:
        out = torch.clamp(out, 0, max_value)
    if alpha != 0.0:
        out = out - alpha * negative_part
    return out


def elu(x: Any, alpha: float = 1.0) -> torch.Tensor:
    """Exponential linear unit: `x` for x > 0, `alpha * (exp(x) - 1)` otherwise."""
    x = _t(x)
    res = _tf.nn.elu(x)
    if alpha == 1:
        return res
    return torch.where(x > 0, res, alpha * res)


def softmax(x: Any, axis: Any = -1) -> torch.Tensor:
    """Softmax of a tensor along `axis` (an int or a tuple of ints)."""
    x = _t(x)
    if x.dim() <= 1:
        raise ValueError(
            "Cannot apply softmax to a tensor that is 1D. Received input: "
            f"{x.detach().cpu().numpy()}"
        )
    if isinstance(axis, int):
        output = _tf.nn.softmax(x, axis=axis)
    else:
        dims = tuple(axis)
        numerator = torch.exp(x - torch.amax(x, dim=dims, keepdim=True))
        output = numerator / torch.sum(numerator, dim=dims, keepdim=True)
    output._keras_logits = x  # crossentropy losses read the logits back, as Keras does
    return output


def softplus(x: Any) -> torch.Tensor:
    """Softplus of a tensor: `log(exp(x) + 1)`."""
    return _tf.math.softplus(x)


def softsign(x: Any) -> torch.Tensor:
    """Softsign of a tensor: `x / (abs(x) + 1)`."""
    return _tf.math.softsign(x)


def sigmoid(x: Any) -> torch.Tensor:
    """Element-wise sigmoid."""
    return _tf.sigmoid(x)


def hard_sigmoid(x: Any) -> torch.Tensor:
    """Segment-wise linear approximation of sigmoid: `clip(0.2 * x + 0.5, 0, 1)`."""
    x = _t(x)
    return torch.clamp(x * 0.2 + 0.5, 0.0, 1.0)


def tanh(x: Any) -> torch.Tensor:
    """Element-wise tanh."""
    return _tf.tanh(x)


def l2_normalize(x: Any, axis: Any = None) -> torch.Tensor:
    """Normalizes a tensor wrt the L2 norm alongside the specified axis (all axes when None)."""
    return _tf.math.l2_normalize(x, axis=axis)


def dropout(x: Any, level: float, noise_shape: Any = None, seed: int | None = None) -> torch.Tensor:
    """Sets entries in `x` to zero at random (with probability `level`), scaling the others
    by `1 / (1 - level)`."""
    if seed is None:
        seed = np.random.randint(10e6)
    return _tf.nn.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)


def in_top_k(predictions: Any, targets: Any, k: int) -> torch.Tensor:
    """Returns whether the `targets` are in the top `k` `predictions`: a bool tensor of shape
    (batch_size,)."""
    return _tf.math.in_top_k(targets=targets, predictions=predictions, k=k)


def bias_add(x: Any, bias: Any, data_format: str | None = None) -> torch.Tensor:
    """Adds a bias vector (or a bias of shape `x.shape[1:]` in `data_format`) to a tensor."""
    data_format = _check_data_format(data_format)
    x, bias = _t(x), _t(bias)
    bias_shape = tuple(bias.shape)
    if len(bias_shape) != 1 and len(bias_shape) != x.dim() - 1:
        raise ValueError(
            f"Unexpected bias dimensions {len(bias_shape)}, expect to be 1 or {x.dim() - 1} "
            "dimensions"
        )
    if len(bias_shape) == 1:
        if data_format == "channels_first":
            return _tf.nn.bias_add(x, bias, data_format="NCHW")
        return _tf.nn.bias_add(x, bias, data_format="NHWC")
    if x.dim() in (3, 4, 5):
        if data_format == "channels_first":
            return x + reshape(bias, (1, bias_shape[-1]) + bias_shape[:-1])
        return x + reshape(bias, (1,) + bias_shape)
    return _tf.nn.bias_add(x, bias)


# --------------------------------------------------------------------- losses
def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> torch.Tensor:
    """Binary crossentropy between an output tensor and a target tensor, element-wise."""
    target, output = _t(target), _t(output)
    return _crossentropy._backend_binary_crossentropy(target.to(output.dtype), output, from_logits)


def binary_focal_crossentropy(target: Any, output: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False) -> torch.Tensor:
    """Binary focal crossentropy, element-wise: the binary crossentropy scaled by
    `(1 - p_t) ** gamma` (and by `alpha` / `1 - alpha` with `apply_class_balancing`)."""
    target, output = _t(target), _t(output)
    target = target.to(output.dtype)
    sigmoidal = torch.sigmoid(output) if from_logits else output
    p_t = target * sigmoidal + (1 - target) * (1 - sigmoidal)
    focal_bce = torch.pow(1.0 - p_t, gamma) * binary_crossentropy(target, output, from_logits)
    if apply_class_balancing:
        focal_bce = (target * alpha + (1 - target) * (1 - alpha)) * focal_bce
    return focal_bce


def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> torch.Tensor:
    """Categorical crossentropy between an output tensor and a one-hot target tensor; the
    class `axis` is reduced."""
    return _crossentropy.categorical_crossentropy(target, output, from_logits=from_logits,
                                                  label_smoothing=0.0, axis=axis)


def categorical_focal_crossentropy(target: Any, output: Any, alpha: Any = 0.25, gamma: float = 2.0,
                                   from_logits: bool = False, axis: int = -1) -> torch.Tensor:
    """Categorical focal crossentropy: `alpha * (1 - p) ** gamma * crossentropy`, summed over
    the class `axis`."""
    return _crossentropy.categorical_focal_crossentropy(target, output, alpha=alpha, gamma=gamma,
                                                        from_logits=from_logits,
                                                        label_smoothing=0.0, axis=axis)


def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                                    axis: int = -1, ignore_class: int | None = None) -> torch.Tensor:
    """Categorical crossentropy with integer targets; `ignore_class` ids give 0."""
    return _crossentropy.sparse_categorical_crossentropy(target, output, from_logits=from_logits,
                                                         axis=axis, ignore_class=ignore_class)


# --------------------------------------------------------------------- convolution
def _preprocess_padding(padding: Any) -> str:
    if padding == "same":
        return "SAME"
    if padding == "valid":
        return "VALID"
    raise ValueError("Invalid padding: " + str(padding))


def _to_last(x: torch.Tensor, data_format: str) -> torch.Tensor:
    return x.movedim(1, -1) if data_format == "channels_first" else x


def _from_last(x: torch.Tensor, data_format: str) -> torch.Tensor:
    return x.movedim(-1, 1) if data_format == "channels_first" else x


def _tuple(v: Any, n: int) -> tuple:
    return (v,) * n if isinstance(v, int) else tuple(v)


def _nd_format(n: int) -> str:
    return {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]


def _conv(x: Any, kernel: Any, strides: Any, padding: str, data_format: Any, dilation_rate: Any,
          n: int) -> torch.Tensor:
    data_format = _check_data_format(data_format)
    padding = _preprocess_padding(padding)
    x = _to_last(_t(x), data_format)
    out = _tf.nn.convolution(x, _t(kernel), strides=list(_tuple(strides, n)), padding=padding,
                             data_format=_nd_format(n), dilations=list(_tuple(dilation_rate, n)))
    return _from_last(out, data_format)


def conv1d(x: Any, kernel: Any, strides: int = 1, padding: str = "valid", data_format: str | None = None,
           dilation_rate: int = 1) -> torch.Tensor:
    """1D convolution; `padding` is 'valid', 'same' or 'causal'."""
    data_format = _check_data_format(data_format)
    kernel = _t(kernel)
    if padding == "causal":
        left_pad = dilation_rate * (kernel.shape[0] - 1)
        x = _from_last(temporal_padding(_to_last(_t(x), data_format), (left_pad, 0)), data_format)
        padding = "valid"
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 1)


def conv2d(x: Any, kernel: Any, strides: Any = (1, 1), padding: str = "valid", data_format: str | None = None,
           dilation_rate: Any = (1, 1)) -> torch.Tensor:
    """2D convolution of `x` by `kernel` (rows, cols, in, out); `padding` 'valid' or 'same'."""
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 2)


def conv3d(x: Any, kernel: Any, strides: Any = (1, 1, 1), padding: str = "valid",
           data_format: str | None = None, dilation_rate: Any = (1, 1, 1)) -> torch.Tensor:
    """3D convolution of `x` by `kernel` (depth, rows, cols, in, out)."""
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 3)


def conv2d_transpose(x: Any, kernel: Any, output_shape: Any, strides: Any = (1, 1), padding: str = "valid",
                     data_format: str | None = None, dilation_rate: Any = (1, 1)) -> torch.Tensor:
    """2D deconvolution (transposed convolution) of `x` by `kernel` (rows, cols, out, in) to
    `output_shape` (in `data_format`; a None batch is x's)."""
    data_format = _check_data_format(data_format)
    x = _to_last(_t(x), data_format)
    output_shape = list(output_shape)
    if data_format == "channels_first":
        output_shape = [output_shape[0], output_shape[2], output_shape[3], output_shape[1]]
    if output_shape[0] is None:
        output_shape[0] = x.shape[0]
    padding = _preprocess_padding(padding)
    dilation_rate = _tuple(dilation_rate, 2)
    if dilation_rate != (1, 1) and dilation_rate[0] != dilation_rate[1]:
        raise ValueError(
            "Expected the 2 dimensions of the `dilation_rate` argument to be equal to each "
            f"other. Received: dilation_rate={dilation_rate}"
        )
    strides = (1,) + _tuple(strides, 2) + (1,)
    out = _tf.nn.conv2d_transpose(x, _t(kernel), output_shape, strides, padding=padding,
                                  data_format="NHWC", dilations=list(dilation_rate))
    return _from_last(out, data_format)


def depthwise_conv2d(x: Any, depthwise_kernel: Any, strides: Any = (1, 1), padding: str = "valid",
                     data_format: str | None = None, dilation_rate: Any = (1, 1)) -> torch.Tensor:
    """2D convolution with a depthwise kernel (rows, cols, in, multiplier)."""
    data_format = _check_data_format(data_format)
    x = _to_last(_t(x), data_format)
    padding = _preprocess_padding(padding)
    strides = (1,) + _tuple(strides, 2) + (1,)
    out = _tf.nn.depthwise_conv2d(x, _t(depthwise_kernel), strides=list(strides), padding=padding,
                                  data_format="NHWC", dilations=list(_tuple(dilation_rate, 2)))
    return _from_last(out, data_format)


def separable_conv2d(x: Any, depthwise_kernel: Any, pointwise_kernel: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str | None = None,
                     dilation_rate: Any = (1, 1)) -> torch.Tensor:
    """2D convolution with separable filters: a depthwise kernel then a 1x1 pointwise kernel."""
    data_format = _check_data_format(data_format)
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    x = _to_last(_t(x), data_format)
    padding = _preprocess_padding(padding)
    strides = (1,) + tuple(strides) + (1,)
    out = _tf.nn.separable_conv2d(x, _t(depthwise_kernel), _t(pointwise_kernel), strides=list(strides),
                                  padding=padding, data_format="NHWC",
                                  dilations=list(_tuple(dilation_rate, 2)))
    return _from_last(out, data_format)


def pool2d(x: Any, pool_size: Any, strides: Any = (1, 1), padding: str = "valid", data_format: str | None = None,
           pool_mode: str = "max") -> torch.Tensor:
    """2D pooling ('max' or 'avg' `pool_mode`) with `pool_size` and `strides` 2-tuples."""
    data_format = _check_data_format(data_format)
    if len(pool_size) != 2:
        raise ValueError("`pool_size` must be a tuple of 2 integers.")
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 2)


def pool3d(x: Any, pool_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
           data_format: str | None = None, pool_mode: str = "max") -> torch.Tensor:
    """3D pooling ('max' or 'avg' `pool_mode`) with `pool_size` and `strides` 3-tuples."""
    data_format = _check_data_format(data_format)
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 3)


def _pool(x: Any, pool_size: Any, strides: Any, padding: str, data_format: str, pool_mode: str,
          n: int) -> torch.Tensor:
    padding = _preprocess_padding(padding)
    if pool_mode not in ("max", "avg"):
        raise ValueError("Invalid pooling mode: " + str(pool_mode))
    x = _to_last(_t(x), data_format)
    ksize = [1] + list(pool_size) + [1]
    strides = [1] + list(strides) + [1]
    op = {("max", 2): _tf.nn.max_pool2d, ("avg", 2): _tf.nn.avg_pool2d,
          ("max", 3): _tf.nn.max_pool3d, ("avg", 3): _tf.nn.avg_pool3d}[(pool_mode, n)]
    out = op(x, ksize, strides, padding, data_format=_nd_format(n))
    return _from_last(out, data_format)


def local_conv(inputs: Any, kernel: Any, kernel_size: Any, strides: Any, output_shape: Any,
               data_format: str | None = None) -> torch.Tensor:
    """Locally connected (unshared weights) convolution of `inputs`, N-D."""
    data_format = _check_data_format(data_format)
    inputs, kernel = _t(inputs), _t(kernel)
    feature_dim = kernel.shape[1]
    channels_out = kernel.shape[-1]
    output_shape = tuple(output_shape)
    ndims = len(output_shape)
    spatial = list(range(ndims))
    xs = []
    for position in itertools.product(*[range(m) for m in output_shape]):
        slices: list = [slice(None)]
        if data_format == "channels_first":
            slices.append(slice(None))
        slices.extend(slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d])
                      for d in spatial)
        if data_format == "channels_last":
            slices.append(slice(None))
        xs.append(reshape(inputs[tuple(slices)], (1, -1, feature_dim)))
    x_aggregate = concatenate(xs, axis=0)
    output = batch_dot(x_aggregate, kernel)
    output = reshape(output, output_shape + (-1, channels_out))
    if data_format == "channels_first":
        permutation = [ndims, ndims + 1] + spatial
    else:
        permutation = [ndims] + spatial + [ndims + 1]
    return permute_dimensions(output, permutation)


def local_conv1d(inputs: Any, kernel: Any, kernel_size: Any, strides: Any,
                 data_format: str | None = None) -> torch.Tensor:
    """Apply 1D conv with un-shared weights: kernel (output_length, feature_dim, filters);
    returns (batch_size, output_length, filters) (channels_last)."""
    output_shape = (_t(kernel).shape[0],)
    return local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


def local_conv2d(inputs: Any, kernel: Any, kernel_size: Any, strides: Any, output_shape: Any,
                 data_format: str | None = None) -> torch.Tensor:
    """Apply 2D conv with un-shared weights: kernel (output_items, feature_dim, filters)."""
    return local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


# --------------------------------------------------------------------- resizing
_INTERPOLATIONS = {
    "area": "area", "bicubic": "bicubic", "bilinear": "bilinear", "gaussian": "gaussian",
    "lanczos3": "lanczos3", "lanczos5": "lanczos5", "mitchellcubic": "mitchellcubic",
    "nearest": "nearest",
}


def resize_images(x: Any, height_factor: int, width_factor: int, data_format: str,
                  interpolation: str = "nearest") -> torch.Tensor:
    """Resizes the images contained in a 4D tensor by (height_factor, width_factor)."""
    if data_format == "channels_first":
        rows, cols = 2, 3
    elif data_format == "channels_last":
        rows, cols = 1, 2
    else:
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    x = _t(x)
    new_shape = [int(x.shape[rows]) * int(height_factor), int(x.shape[cols]) * int(width_factor)]
    if interpolation not in _INTERPOLATIONS:
        names = '"' + '", "'.join(_INTERPOLATIONS) + '"'
        raise ValueError(
            f"`interpolation` argument should be one of: {names}. Received: \"{interpolation}\"."
        )
    if data_format == "channels_first":
        x = x.permute(0, 2, 3, 1)
    x = _tf.image.resize(x, new_shape, method=_INTERPOLATIONS[interpolation])
    if data_format == "channels_first":
        x = x.permute(0, 3, 1, 2)
    return x


def resize_volumes(x: Any, depth_factor: int, height_factor: int, width_factor: int,
                   data_format: str) -> torch.Tensor:
    """Resizes the volume contained in a 5D tensor (nearest: each voxel repeated)."""
    if data_format == "channels_first":
        first = 2
    elif data_format == "channels_last":
        first = 1
    else:
        raise ValueError("Invalid data_format: " + str(data_format))
    out = repeat_elements(x, depth_factor, axis=first)
    out = repeat_elements(out, height_factor, axis=first + 1)
    return repeat_elements(out, width_factor, axis=first + 2)


# --------------------------------------------------------------------- normalization
def batch_normalization(x: Any, mean: Any, var: Any, beta: Any, gamma: Any, axis: int = -1,
                        epsilon: float = 1e-3) -> torch.Tensor:
    """Applies batch normalization on x given mean, var, beta and gamma:
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`."""
    x = _t(x)
    if x.dim() == 4 and axis in (1, -3, 3, -1):
        mean, var = _t(mean).reshape(-1), _t(var).reshape(-1)
        beta = torch.zeros_like(mean) if beta is None else _t(beta).reshape(-1)
        gamma = torch.ones_like(mean) if gamma is None else _t(gamma).reshape(-1)
        if axis in (1, -3):
            mean, var, beta, gamma = (t.reshape(1, -1, 1, 1) for t in (mean, var, beta, gamma))
    return _tf.nn.batch_normalization(x, mean, var, beta, gamma, epsilon)


def normalize_batch_in_training(x: Any, gamma: Any, beta: Any, reduction_axes: Any,
                                epsilon: float = 1e-3) -> tuple:
    """Computes mean and std for batch then apply batch_normalization on batch; returns
    `(normalized_tensor, mean, variance)`."""
    x = _t(x)
    reduction_axes = list(reduction_axes)
    mean, variance = _tf.nn.moments(x, reduction_axes)
    target_shape = [1 if a in reduction_axes else x.shape[a] for a in range(x.dim())]
    if x.dim() == 4 and reduction_axes == [0, 1, 2]:
        # TF's fused kernel (NHWC): normalizes with the biased variance and returns the
        # unbiased (Bessel-corrected) one
        gamma = torch.ones_like(mean) if gamma is None else _t(gamma)
        beta = torch.zeros_like(mean) if beta is None else _t(beta)
        normed = _tf.nn.batch_normalization(x, mean, variance, beta, gamma, epsilon)
        n = x.numel() // x.shape[3]
        return normed, mean, variance * (n / max(n - 1, 1))
    if sorted(reduction_axes) == list(range(ndim(x)))[:-1]:
        normed = _tf.nn.batch_normalization(x, mean, variance, beta, gamma, epsilon)
        return normed, mean, variance

    def b(t: Any) -> Any:
        return None if t is None else _t(t).reshape(target_shape)

    normed = _tf.nn.batch_normalization(x, b(mean), b(variance), b(beta), b(gamma), epsilon)
    return normed, mean, variance
