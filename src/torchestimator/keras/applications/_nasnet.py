"""NASNetMobile / NASNetLarge (Zoph et al., 2018; NASNet-A) with Keras 2.15's layer names and
weight order. Only the "channels_last" data format exists (as in Keras)."""

from __future__ import annotations

import logging
from typing import Any

from torchestimator.keras import backend, layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"
NASNET_MOBILE_WEIGHT_PATH = BASE_WEIGHTS_PATH + "NASNet-mobile.h5"
NASNET_MOBILE_WEIGHT_PATH_NO_TOP = BASE_WEIGHTS_PATH + "NASNet-mobile-no-top.h5"
NASNET_LARGE_WEIGHT_PATH = BASE_WEIGHTS_PATH + "NASNet-large.h5"
NASNET_LARGE_WEIGHT_PATH_NO_TOP = BASE_WEIGHTS_PATH + "NASNet-large-no-top.h5"
_IMAGENET = {
    (224, True): ("nasnet_mobile.h5", NASNET_MOBILE_WEIGHT_PATH,
                  "020fb642bf7360b370c678b08e0adf61"),
    (224, False): ("nasnet_mobile_no_top.h5", NASNET_MOBILE_WEIGHT_PATH_NO_TOP,
                   "1ed92395b5b598bdda52abe5c0dbfd63"),
    (331, True): ("nasnet_large.h5", NASNET_LARGE_WEIGHT_PATH,
                  "11577c9a518f0070763c2b964a382f17"),
    (331, False): ("nasnet_large_no_top.h5", NASNET_LARGE_WEIGHT_PATH_NO_TOP,
                   "d81d89dc07e6e56530c4e77faddd61b5"),
}


def _bn(name: str | None = None) -> Any:
    return layers.BatchNormalization(axis=_common.channel_axis(), momentum=0.9997,
                                     epsilon=1e-3, name=name)


def _conv1x1(filters: int, name: str) -> Any:
    return layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same", use_bias=False,
                         name=name, kernel_initializer="he_normal")


def _separable_conv_block(ip: Any, filters: int, kernel_size: tuple = (3, 3),
                          strides: tuple = (1, 1), block_id: str | None = None) -> Any:
    x = layers.Activation("relu")(ip)
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides,
                               name=f"separable_conv_1_{block_id}", padding=conv_pad,
                               use_bias=False, kernel_initializer="he_normal")(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}",
                               padding="same", use_bias=False,
                               kernel_initializer="he_normal")(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust_block(p: Any, ip: Any, filters: int, block_id: str | None = None) -> Any:
    """Matches the previous cell's output `p` to `ip`'s spatial size and `filters`."""

    channel_dim = _common.channel_axis()
    img_dim = 2 if _common.data_format() == "channels_first" else -2
    if p is None:
        return ip
    ip_shape, p_shape = tuple(ip.shape), tuple(p.shape)
    if p_shape[img_dim] != ip_shape[img_dim]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_1_{block_id}", kernel_initializer="he_normal")(p1)
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_2_{block_id}", kernel_initializer="he_normal")(p2)
        p = layers.concatenate([p1, p2], axis=channel_dim)
        p = _bn(f"adjust_bn_{block_id}")(p)
    elif p_shape[channel_dim] != filters:
        p = layers.Activation("relu")(p)
        p = _conv1x1(filters, f"adjust_conv_projection_{block_id}")(p)
        p = _bn(f"adjust_bn_{block_id}")(p)
    return p


def _normal_a_cell(ip: Any, p: Any, filters: int, block_id: str | None = None) -> tuple:
    """A NASNet-A normal cell; returns (its output, `ip`)."""

    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _conv1x1(filters, f"normal_conv_1_{block_id}")(h)
    h = _bn(f"normal_bn_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, kernel_size=(5, 5),
                                 block_id=f"normal_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"normal_add_1_{block_id}")
    x2_1 = _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}")
    x2_2 = _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"normal_add_2_{block_id}")
    x3 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"normal_left3_{block_id}")(h)
    x3 = layers.add([x3, p], name=f"normal_add_3_{block_id}")
    x4_1 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_left4_{block_id}")(p)
    x4_2 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_right4_{block_id}")(p)
    x4 = layers.add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = layers.add([x5, h], name=f"normal_add_5_{block_id}")
    x = layers.concatenate([p, x1, x2, x3, x4, x5], axis=_common.channel_axis(),
                           name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip: Any, p: Any, filters: int, block_id: str | None = None) -> tuple:
    """A NASNet-A reduction cell (halves the spatial size); returns (its output, `ip`)."""

    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _conv1x1(filters, f"reduction_conv_1_{block_id}")(h)
    h = _bn(f"reduction_bn_1_{block_id}")(h)
    h3 = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(h, 3),
                              name=f"reduction_pad_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"reduction_add_1_{block_id}")
    x2_1 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_left2_{block_id}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
    x3_1 = layers.AveragePooling2D((3, 3), strides=(2, 2), padding="valid",
                                   name=f"reduction_left3_{block_id}")(h3)
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_right3_{block_id}")
    x3 = layers.add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
    x4 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"reduction_left4_{block_id}")(x1)
    x4 = layers.add([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_right5_{block_id}")(h3)
    x5 = layers.add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    x = layers.concatenate([x2, x3, x4, x5], axis=_common.channel_axis(),
                           name=f"reduction_concat_{block_id}")
    return x, ip


def NASNet(input_shape: tuple | None = None, penultimate_filters: int = 4032,
           num_blocks: int = 6, stem_block_filters: int = 96, skip_reduction: bool = True,
           filter_multiplier: int = 2, include_top: bool = True, weights: Any = "imagenet",
           input_tensor: Any = None, pooling: str | None = None, classes: int = 1000,
           default_size: int | None = None, classifier_activation: Any = "softmax") -> Any:
    """Builds a NASNet-A model; returns a `keras.Model` named 'NASNet'."""
    _common.check_weights(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` "
                         "weights, the input_shape argument must be static (no None entries). "
                         f"Got: `input_shape={input_shape}`.")
    if default_size is None:
        default_size = 331
    if weights == "imagenet" and default_size not in (224, 331):
        raise ValueError("ImageNet weights can only be loaded with NASNetLarge or NASNetMobile")
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 53 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    old_data_format = None
    if _common.data_format() != "channels_last":
        logging.warning('The NASNet family of models is only available for the input data '
                        'format "channels_last" (width, height, channels). However your '
                        'settings specify the default data format "channels_first" (channels, '
                        'width, height). The model being returned right now will expect '
                        'inputs to follow the "channels_last" data format.')
        backend.set_image_data_format("channels_last")
        old_data_format = "channels_first"
    try:
        img_input = _common.make_input(input_tensor, input_shape)
        if penultimate_filters % (24 * (filter_multiplier**2)) != 0:
            raise ValueError("For NASNet-A models, the `penultimate_filters` must be a "
                             "multiple of 24 * (`filter_multiplier` ** 2). Current value: "
                             f"{penultimate_filters}")
        filters = penultimate_filters // 24
        x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid",
                          use_bias=False, name="stem_conv1",
                          kernel_initializer="he_normal")(img_input)
        x = _bn("stem_bn1")(x)
        p = None
        x, p = _reduction_a_cell(x, p, filters // (filter_multiplier**2), block_id="stem_1")
        x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters, block_id=f"{i}")
        x, p0 = _reduction_a_cell(x, p, filters * filter_multiplier,
                                  block_id=f"reduce_{num_blocks}")
        p = p0 if not skip_reduction else p
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters * filter_multiplier,
                                  block_id=f"{num_blocks + i + 1}")
        x, p0 = _reduction_a_cell(x, p, filters * filter_multiplier**2,
                                  block_id=f"reduce_{2 * num_blocks}")
        p = p0 if not skip_reduction else p
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters * filter_multiplier**2,
                                  block_id=f"{2 * num_blocks + i + 1}")
        x = layers.Activation("relu")(x)
        if include_top:
            x = layers.GlobalAveragePooling2D()(x)
            imagenet_utils.validate_activation(classifier_activation, weights)
            x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
        elif pooling == "avg":
            x = layers.GlobalAveragePooling2D()(x)
        elif pooling == "max":
            x = layers.GlobalMaxPooling2D()(x)
        model = Model(_common.model_inputs(input_tensor, img_input), x, name="NASNet")
        return _common.load_weights(model, weights, _IMAGENET.get((default_size, include_top)))
    finally:
        if old_data_format:
            backend.set_image_data_format(old_data_format)


_DOC = """

    Call `tf.keras.applications.nasnet.preprocess_input` on the inputs (pixels scaled between
    -1 and 1). Only the "channels_last" data format is available.

    Args:
        input_shape: optional shape tuple, only with `include_top=False` (else the default
            size); width and height no smaller than 32.
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.

    Returns:
        A `keras.Model` instance named 'NASNet'.
"""


def NASNetMobile(input_shape: tuple | None = None, include_top: bool = True,
                 weights: Any = "imagenet", input_tensor: Any = None,
                 pooling: str | None = None, classes: int = 1000,
                 classifier_activation: Any = "softmax") -> Any:
    return NASNet(input_shape, penultimate_filters=1056, num_blocks=4, stem_block_filters=32,
                  skip_reduction=False, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling, classes=classes,
                  default_size=224, classifier_activation=classifier_activation)


def NASNetLarge(input_shape: tuple | None = None, include_top: bool = True,
                weights: Any = "imagenet", input_tensor: Any = None,
                pooling: str | None = None, classes: int = 1000,
                classifier_activation: Any = "softmax") -> Any:
    return NASNet(input_shape, penultimate_filters=4032, num_blocks=6, stem_block_filters=96,
                  skip_reduction=True, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling, classes=classes,
                  default_size=331, classifier_activation=classifier_activation)


NASNetMobile.__doc__ = "Instantiates a Mobile NASNet model in ImageNet mode (224x224)." + _DOC
NASNetLarge.__doc__ = "Instantiates a NASNet model in ImageNet mode (331x331)." + _DOC


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for NASNet: pixels scaled between -1 and 1, sample-wise
    (`imagenet_utils.preprocess_input` with mode "tf"); returns float32 values."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
