"""MobileNetV2 (Sandler et al., 2018) with Keras 2.15's layer names and weight order."""

from __future__ import annotations

import logging
from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
_SIZES = (96, 128, 160, 192, 224)
# (filters, stride, expansion) of blocks 0..16
_BLOCKS = ([(16, 1, 1)] + [(24, 2, 6), (24, 1, 6)] + [(32, 2, 6)] + [(32, 1, 6)] * 2
           + [(64, 2, 6)] + [(64, 1, 6)] * 3 + [(96, 1, 6)] * 3 + [(160, 2, 6)]
           + [(160, 1, 6)] * 2 + [(320, 1, 6)])


def make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """Rounds `v` to a multiple of `divisor` (at least `min_value`), never below 90% of `v`."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _default_size(input_shape: Any, input_tensor: Any) -> int:
    if input_shape is None and input_tensor is not None:
        shape = tuple(input_tensor.shape)
        if _common.data_format() == "channels_first":
            rows, cols = shape[2], shape[3]
        else:
            rows, cols = shape[1], shape[2]
    elif input_shape is None:
        return 224
    elif _common.data_format() == "channels_first":
        rows, cols = input_shape[1], input_shape[2]
    else:
        rows, cols = input_shape[0], input_shape[1]
    return rows if rows == cols and rows in _SIZES else 224


def _bn(name: str) -> Any:
    return layers.BatchNormalization(axis=_common.channel_axis(), epsilon=1e-3, momentum=0.999,
                                     name=name)


def _inverted_res_block(inputs: Any, expansion: int, stride: int, alpha: float, filters: int,
                        block_id: int) -> Any:
    in_channels = tuple(inputs.shape)[_common.channel_axis()]
    pointwise_filters = make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
                          activation=None, name=prefix + "expand")(x)
        x = _bn(prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=prefix + "depthwise")(x)
    x = _bn(prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=prefix + "project")(x)
    x = _bn(prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def MobileNetV2(input_shape: tuple | None = None, alpha: float = 1.0, include_top: bool = True,
                weights: Any = "imagenet", input_tensor: Any = None, pooling: str | None = None,
                classes: int = 1000, classifier_activation: Any = "softmax",
                **kwargs: Any) -> Any:
    """Instantiates the MobileNetV2 architecture.

    Args:
        input_shape: optional shape tuple, e.g. `(160, 160, 3)`; inferred from `input_tensor`
            when omitted, else (224, 224, 3) with `include_top`.
        alpha: width multiplier: < 1.0 proportionally decreases the number of filters in each
            layer, > 1.0 increases it. ImageNet weights exist for 0.35, 0.5, 0.75, 1.0, 1.3,
            1.4.
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file to be
            loaded.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        pooling: with `include_top=False`: `None` (4D output of the last convolutional block),
            'avg' or 'max' (global pooling, 2D output).
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer (`None` returns logits); only
            `None` or "softmax" with pretrained weights.

    Returns:
        A `keras.Model` instance named `mobilenetv2_{alpha:0.2f}_{rows}`.
    """
    kwargs.pop("layers", None)
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 246 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=_default_size(input_shape, input_tensor), min_size=32,
        data_format=_common.data_format(), require_flatten=include_top, weights=weights)
    row_axis, col_axis = (1, 2) if _common.data_format() == "channels_first" else (0, 1)
    rows, cols = input_shape[row_axis], input_shape[col_axis]
    if weights == "imagenet":
        if alpha not in _ALPHAS:
            raise ValueError("If imagenet weights are being loaded, alpha must be one of `0.35`, "
                             "`0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; "
                             f"Received `alpha={alpha}`")
        if rows != cols or rows not in _SIZES:
            rows = 224
            logging.warning("`input_shape` is undefined or non-square, or `rows` is not in "
                            "[96, 128, 160, 192, 224]. Weights for input shape (224, 224) will "
                            "be loaded as the default.")
    img_input = _common.make_input(input_tensor, input_shape)
    x = layers.Conv2D(make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(img_input)
    x = _bn("bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id)
    last_block_filters = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_block_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = _bn("Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights)
    model = Model(_common.model_inputs(input_tensor, img_input), x,
                  name=f"mobilenetv2_{alpha:0.2f}_{rows}")
    suffix = "" if include_top else "_no_top"
    file_name = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}{suffix}.h5"
    return _common.load_weights(model, weights, (file_name, BASE_WEIGHT_PATH + file_name, None))


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for MobileNetV2: pixels scaled between -1 and 1,
    sample-wise (`imagenet_utils.preprocess_input` with mode "tf"); returns float32 values."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
