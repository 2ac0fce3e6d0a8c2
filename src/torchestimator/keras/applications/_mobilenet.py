"""MobileNet (Howard et al., 2017) with Keras 2.15's layer names and weight order."""

from __future__ import annotations

import logging
from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
_SIZES = (128, 160, 192, 224)
_ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0", 0.25: "2_5"}
# (pointwise filters, strides) of blocks 1..13
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))


def _conv_block(inputs: Any, filters: int, alpha: float, kernel: tuple = (3, 3),
                strides: tuple = (1, 1)) -> Any:
    x = layers.Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False,
                      strides=strides, name="conv1")(inputs)
    x = layers.BatchNormalization(axis=_common.channel_axis(), name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs: Any, pointwise_conv_filters: int, alpha: float,
                          depth_multiplier: int = 1, strides: int = 1, block_id: int = 1) -> Any:
    axis = _common.channel_axis()
    if strides == 1:
        x = inputs
    else:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(inputs)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == 1 else "valid",
                               depth_multiplier=depth_multiplier, strides=(strides, strides),
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=axis, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(pointwise_conv_filters * alpha), (1, 1), padding="same",
                      use_bias=False, strides=(1, 1), name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=axis, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(input_shape: tuple | None = None, alpha: float = 1.0, depth_multiplier: int = 1,
              dropout: float = 1e-3, include_top: bool = True, weights: Any = "imagenet",
              input_tensor: Any = None, pooling: str | None = None, classes: int = 1000,
              classifier_activation: Any = "softmax", **kwargs: Any) -> Any:
    """Instantiates the MobileNet architecture.

    Args:
        input_shape: optional shape tuple, e.g. `(160, 160, 3)`; (224, 224, 3) by default.
        alpha: width multiplier (< 1.0 fewer, > 1.0 more filters per layer); ImageNet weights
            exist for 0.25, 0.5, 0.75, 1.0.
        depth_multiplier: depth multiplier for the depthwise convolutions (1 with ImageNet
            weights).
        dropout: dropout rate before the classifier.
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.

    Returns:
        A `keras.Model` instance named `mobilenet_{alpha:0.2f}_{rows}`.
    """
    kwargs.pop("layers", None)
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 129 ms)
        Model,
    )

    channels_first = _common.data_format() == "channels_first"
    default_size = 224
    if input_shape is not None:
        rows, cols = (input_shape[1], input_shape[2]) if channels_first else input_shape[:2]
        default_size = rows if rows == cols and rows in _SIZES else 224
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32,
        data_format=_common.data_format(), require_flatten=include_top, weights=weights)
    rows, cols = (input_shape[1], input_shape[2]) if channels_first else input_shape[:2]
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be "
                             f"1.  Received depth_multiplier={depth_multiplier}")
        if alpha not in _ALPHA_TEXT:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, "
                             f"`0.50`, `0.75` or `1.0` only.  Received alpha={alpha}")
        if rows != cols or rows not in _SIZES:
            rows = 224
            logging.warning("`input_shape` is undefined or non-square, or `rows` is not in "
                            "[128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                            "loaded as the default.")
    img_input = _common.make_input(input_tensor, input_shape)
    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    for block_id, (filters, strides) in enumerate(_BLOCKS, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, strides=strides,
                                  block_id=block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.top(x, False, pooling, classes, classifier_activation, weights)
    model = Model(_common.model_inputs(input_tensor, img_input), x,
                  name=f"mobilenet_{alpha:0.2f}_{rows}")
    imagenet = None
    if alpha in _ALPHA_TEXT:
        file_name = f"mobilenet_{_ALPHA_TEXT[alpha]}_{rows}_tf{'' if include_top else '_no_top'}.h5"
        imagenet = (file_name, BASE_WEIGHT_PATH + file_name, None)
    return _common.load_weights(model, weights, imagenet)


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for MobileNet: pixels scaled between -1 and 1,
    sample-wise (mode "tf")."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
