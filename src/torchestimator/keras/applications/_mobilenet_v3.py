"""MobileNetV3Small / MobileNetV3Large (Howard et al., 2019) with Keras 2.15's layer names and
weight order.

As in Keras, the model rescales its inputs itself (`include_preprocessing=True`: a
`Rescaling(1/127.5, offset=-1)` layer), so `preprocess_input` is the identity."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils
from torchestimator.keras.applications._mobilenet_v2 import make_divisible

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"
WEIGHTS_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb",
                             "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7",
                            "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c",
                                         "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7",
                             "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862",
                            "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37",
                                         "cde8136e733e811080d9fcd8a252f7e4"),
}
# (expansion, filters, kernel ('k': 5, or 3 when minimalistic), stride, se, activation) per
# block; se/activation: True = the model's (SE 0.25 / hard-swish unless minimalistic)
_SMALL = ((1, 16, 3, 2, True, "relu"), (72.0 / 16, 24, 3, 2, False, "relu"),
          (88.0 / 24, 24, 3, 1, False, "relu"), (4, 40, "k", 2, True, True),
          (6, 40, "k", 1, True, True), (6, 40, "k", 1, True, True), (3, 48, "k", 1, True, True),
          (3, 48, "k", 1, True, True), (6, 96, "k", 2, True, True), (6, 96, "k", 1, True, True),
          (6, 96, "k", 1, True, True))
_LARGE = ((1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"),
          (3, 24, 3, 1, False, "relu"), (3, 40, "k", 2, True, "relu"),
          (3, 40, "k", 1, True, "relu"), (3, 40, "k", 1, True, "relu"),
          (6, 80, 3, 2, False, True), (2.5, 80, 3, 1, False, True), (2.3, 80, 3, 1, False, True),
          (2.3, 80, 3, 1, False, True), (6, 112, 3, 1, True, True), (6, 112, 3, 1, True, True),
          (6, 160, "k", 2, True, True), (6, 160, "k", 1, True, True),
          (6, 160, "k", 1, True, True))


def _depth(v: float, divisor: int = 8, min_value: int | None = None) -> int:
    return make_divisible(v, divisor, min_value)


def relu(x: Any) -> Any:
    """An (unnamed) ReLU layer applied to `x`."""

    return layers.ReLU()(x)


def hard_sigmoid(x: Any) -> Any:
    """`ReLU(6)(x + 3) / 6`, as Keras writes it (operator layers around a ReLU)."""

    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x: Any) -> Any:
    """`x * hard_sigmoid(x)` (a Multiply layer)."""

    return layers.Multiply()([x, hard_sigmoid(x)])


def _bn(name: str) -> Any:
    return layers.BatchNormalization(axis=_common.channel_axis(), epsilon=1e-3, momentum=0.999,
                                     name=name)


def _se_block(inputs: Any, filters: int, se_ratio: float, prefix: str) -> Any:
    x = layers.GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite/AvgPool")(
        inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
                      name=prefix + "squeeze_excite/Conv")(x)
    x = layers.ReLU(name=prefix + "squeeze_excite/Relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same",
                      name=prefix + "squeeze_excite/Conv_1")(x)
    x = hard_sigmoid(x)
    return layers.Multiply(name=prefix + "squeeze_excite/Mul")([inputs, x])


def _inverted_res_block(x: Any, expansion: float, filters: int, kernel_size: int, stride: int,
                        se_ratio: float | None, activation: Callable[[Any], Any],
                        block_id: int) -> Any:
    shortcut = x
    prefix = "expanded_conv/"
    infilters = tuple(x.shape)[_common.channel_axis()]
    if block_id:
        prefix = f"expanded_conv_{block_id}/"
        x = layers.Conv2D(_depth(infilters * expansion), kernel_size=1, padding="same",
                          use_bias=False, name=prefix + "expand")(x)
        x = _bn(prefix + "expand/BatchNorm")(x)
        x = activation(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=prefix + "depthwise/pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride,
                               padding="same" if stride == 1 else "valid", use_bias=False,
                               name=prefix + "depthwise")(x)
    x = _bn(prefix + "depthwise/BatchNorm")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
                      name=prefix + "project")(x)
    x = _bn(prefix + "project/BatchNorm")(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=prefix + "Add")([shortcut, x])
    return x


def MobileNetV3(blocks: tuple, last_point_ch: int, input_shape: tuple | None = None,
                alpha: float = 1.0, model_type: str = "large", minimalistic: bool = False,
                include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                classes: int = 1000, pooling: str | None = None, dropout_rate: float = 0.2,
                classifier_activation: Any = "softmax",
                include_preprocessing: bool = True) -> Any:
    """Builds a MobileNetV3 from its block table; returns a `keras.Model` named
    `'MobilenetV3' + model_type`."""
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 200 ms)
        Model,
    )

    channels_first = _common.data_format() == "channels_first"
    if input_tensor is not None:
        _common.make_input(input_tensor, ())  # checks it is a Keras tensor
        shape = tuple(input_tensor.shape)
        if input_shape is not None:
            if shape[2] != input_shape[1]:
                raise ValueError(
                    f"input_shape[1] must equal input_tensor.shape[2].  Received "
                    f"input_shape={input_shape}, input_tensor.shape={shape}")
        else:
            rows, cols = (shape[2], shape[3]) if channels_first else (shape[1], shape[2])
            input_shape = (3, cols, rows) if channels_first else (cols, rows, 3)
    if input_shape is None:
        input_shape = (None, None, 3)
    row_axis, col_axis = (1, 2) if channels_first else (0, 1)
    rows, cols = input_shape[row_axis], input_shape[col_axis]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape="
                         f"{input_shape}`")
    if weights == "imagenet":
        if (not minimalistic and alpha not in [0.75, 1.0]) or (minimalistic and alpha != 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.75`, "
                             "`1.0` for non minimalistic or `1.0` for minimalistic only.")
        if rows != cols or rows != 224:
            logging.warning("`input_shape` is undefined or non-square, or `rows` is not 224. "
                            "Weights for input shape (224, 224) will be loaded as the default.")
    img_input = _common.make_input(input_tensor, tuple(input_shape))
    channel_axis = _common.channel_axis()
    if minimalistic:
        kernel, activation, se_ratio = 3, relu, None
    else:
        kernel, activation, se_ratio = 5, hard_swish, 0.25
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                      name="Conv")(x)
    x = _bn("Conv/BatchNorm")(x)
    x = activation(x)
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(x, expansion, _depth(filters * alpha),
                                kernel if k == "k" else k, stride,
                                se_ratio if se else None,
                                relu if act == "relu" else activation, block_id)
    last_conv_ch = _depth(tuple(x.shape)[channel_axis] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False,
                      name="Conv_1")(x)
    x = _bn("Conv_1/BatchNorm")(x)
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True,
                          name="Conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="Logits")(x)
        x = layers.Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="Predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    model = Model(_common.model_inputs(input_tensor, img_input), x,
                  name="MobilenetV3" + model_type)
    model_name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    imagenet = None
    if model_name in WEIGHTS_HASHES:
        file_name = "weights_mobilenet_v3_" + model_name + (
            ".h5" if include_top else "_no_top_v2.h5")
        imagenet = (file_name, BASE_WEIGHT_PATH + file_name,
                    WEIGHTS_HASHES[model_name][0 if include_top else 1])
    return _common.load_weights(model, weights, imagenet)


_DOC = """

    The model rescales its inputs itself (with `include_preprocessing=True`): it expects
    float pixels in [0, 255] (`mobilenet_v3.preprocess_input` is the identity).

    Args:
        input_shape: optional shape tuple, e.g. `(160, 160, 3)`; inferred from `input_tensor`
            when omitted, else `(None, None, 3)`. Width and height no smaller than 32.
        alpha: width multiplier of every layer's filters (ImageNet weights: 0.75 or 1.0, and
            1.0 only when minimalistic).
        minimalistic: use 3x3 kernels and ReLU everywhere, without squeeze-and-excite.
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        classes: number of classes, only with `include_top=True` and no `weights`.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        dropout_rate: fraction of the input units to drop on the last layer.
        classifier_activation: activation of the "top" layer; `None` returns logits.
        include_preprocessing: whether to include the input scaling to [-1, 1].

    Returns:
        A `keras.Model` instance.
"""


def MobileNetV3Small(input_shape: tuple | None = None, alpha: float = 1.0,
                     minimalistic: bool = False, include_top: bool = True,
                     weights: Any = "imagenet", input_tensor: Any = None, classes: int = 1000,
                     pooling: str | None = None, dropout_rate: float = 0.2,
                     classifier_activation: Any = "softmax",
                     include_preprocessing: bool = True) -> Any:
    return MobileNetV3(_SMALL, 1024, input_shape, alpha, "small", minimalistic, include_top,
                       weights, input_tensor, classes, pooling, dropout_rate,
                       classifier_activation, include_preprocessing)


def MobileNetV3Large(input_shape: tuple | None = None, alpha: float = 1.0,
                     minimalistic: bool = False, include_top: bool = True,
                     weights: Any = "imagenet", input_tensor: Any = None, classes: int = 1000,
                     pooling: str | None = None, dropout_rate: float = 0.2,
                     classifier_activation: Any = "softmax",
                     include_preprocessing: bool = True) -> Any:
    return MobileNetV3(_LARGE, 1280, input_shape, alpha, "large", minimalistic, include_top,
                       weights, input_tensor, classes, pooling, dropout_rate,
                       classifier_activation, include_preprocessing)


MobileNetV3Small.__doc__ = "Instantiates the MobileNetV3Small architecture." + _DOC
MobileNetV3Large.__doc__ = "Instantiates the MobileNetV3Large architecture." + _DOC


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder kept for API consistency: MobileNetV3 models preprocess their inputs
    themselves. Returns `x` unchanged."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
