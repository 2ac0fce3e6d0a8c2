"""Xception (Chollet, 2017) with Keras 2.15's layer names and weight order."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils
from torchestimator.keras.applications._inception_v3 import head

TF_WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                   "xception/xception_weights_tf_dim_ordering_tf_kernels.h5")
TF_WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                          "xception/xception_weights_tf_dim_ordering_tf_kernels_notop.h5")
_HASHES = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")


def Xception(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
             input_shape: tuple | None = None, pooling: str | None = None, classes: int = 1000,
             classifier_activation: Any = "softmax") -> Any:
    """Instantiates the Xception architecture.

    Call `tf.keras.applications.xception.preprocess_input` on the inputs (pixels scaled
    between -1 and 1).

    Args:
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        input_shape: optional shape tuple, only with `include_top=False` (else (299, 299, 3));
            3 channels, width and height no smaller than 71.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.

    Returns:
        A `keras.Model` instance named 'xception'.
    """
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 289 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=71, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    axis = _common.channel_axis()

    def bn(name: str | None = None) -> Any:
        return layers.BatchNormalization(axis=axis, name=name)

    def sep(t: Any, filters: int, name: str) -> Any:
        t = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False,
                                   name=name)(t)
        return bn(name + "_bn")(t)

    def shortcut(t: Any, filters: int) -> Any:
        t = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(t)
        return bn()(t)

    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(
        img_input)
    x = bn("block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = bn("block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    for block, filters in ((2, 128), (3, 256), (4, 728)):
        residual = shortcut(x, filters)
        if block > 2:
            x = layers.Activation("relu", name=f"block{block}_sepconv1_act")(x)
        x = sep(x, filters, f"block{block}_sepconv1")
        x = layers.Activation("relu", name=f"block{block}_sepconv2_act")(x)
        x = sep(x, filters, f"block{block}_sepconv2")
        x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same",
                                name=f"block{block}_pool")(x)
        x = layers.add([x, residual])
    for i in range(8):
        residual = x
        prefix = f"block{i + 5}"
        for j in (1, 2, 3):
            x = layers.Activation("relu", name=f"{prefix}_sepconv{j}_act")(x)
            x = sep(x, 728, f"{prefix}_sepconv{j}")
        x = layers.add([x, residual])
    residual = shortcut(x, 1024)
    x = layers.Activation("relu", name="block13_sepconv1_act")(x)
    x = sep(x, 728, "block13_sepconv1")
    x = layers.Activation("relu", name="block13_sepconv2_act")(x)
    x = sep(x, 1024, "block13_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block13_pool")(x)
    x = layers.add([x, residual])
    x = sep(x, 1536, "block14_sepconv1")
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = sep(x, 2048, "block14_sepconv2")
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    x = head(x, include_top, pooling, classes, classifier_activation, weights)
    model = Model(_common.model_inputs(input_tensor, img_input), x, name="xception")
    if include_top:
        imagenet = ("xception_weights_tf_dim_ordering_tf_kernels.h5", TF_WEIGHTS_PATH,
                    _HASHES[0])
    else:
        imagenet = ("xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
                    TF_WEIGHTS_PATH_NO_TOP, _HASHES[1])
    return _common.load_weights(model, weights, imagenet)


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for Xception: pixels scaled between -1 and 1,
    sample-wise (`imagenet_utils.preprocess_input` with mode "tf"); returns float32 values."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
