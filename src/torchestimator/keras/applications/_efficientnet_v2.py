"""EfficientNetV2 B0-B3, S, M, L (Tan & Le, 2021) with Keras 2.15's layer names and weight
order.

As in Keras, the model rescales its inputs itself (`include_preprocessing=True`), so
`preprocess_input` is the identity."""

from __future__ import annotations

import copy
import math
from typing import Any

from torchestimator.keras import backend, layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils
from torchestimator.keras.applications._efficientnet import (
    CONV_KERNEL_INITIALIZER,
    DENSE_KERNEL_INITIALIZER,
)

BASE_WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                     "efficientnet_v2/")
WEIGHTS_HASHES = {
    "b0": ("21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"),
    "b1": ("069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"),
    "b2": ("424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"),
    "b3": ("1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"),
    "-s": ("e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"),
    "-m": ("a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"),
    "-l": ("27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615"),
}
_KEYS = ("kernel_size", "num_repeat", "input_filters", "output_filters", "expand_ratio",
         "se_ratio", "strides", "conv_type")
# (kernel_size, num_repeat, input_filters, output_filters, expand_ratio, se_ratio, strides,
#  conv_type: 0 MBConv, 1 FusedMBConv)
_B = ((3, 1, 32, 16, 1, 0, 1, 1), (3, 2, 16, 32, 4, 0, 2, 1), (3, 2, 32, 48, 4, 0, 2, 1),
      (3, 3, 48, 96, 4, 0.25, 2, 0), (3, 5, 96, 112, 6, 0.25, 1, 0),
      (3, 8, 112, 192, 6, 0.25, 2, 0))
_TABLES = {
    "efficientnetv2-s": ((3, 2, 24, 24, 1, 0.0, 1, 1), (3, 4, 24, 48, 4, 0.0, 2, 1),
                         (3, 4, 48, 64, 4, 0, 2, 1), (3, 6, 64, 128, 4, 0.25, 2, 0),
                         (3, 9, 128, 160, 6, 0.25, 1, 0), (3, 15, 160, 256, 6, 0.25, 2, 0)),
    "efficientnetv2-m": ((3, 3, 24, 24, 1, 0, 1, 1), (3, 5, 24, 48, 4, 0, 2, 1),
                         (3, 5, 48, 80, 4, 0, 2, 1), (3, 7, 80, 160, 4, 0.25, 2, 0),
                         (3, 14, 160, 176, 6, 0.25, 1, 0), (3, 18, 176, 304, 6, 0.25, 2, 0),
                         (3, 5, 304, 512, 6, 0.25, 1, 0)),
    "efficientnetv2-l": ((3, 4, 32, 32, 1, 0, 1, 1), (3, 7, 32, 64, 4, 0, 2, 1),
                         (3, 7, 64, 96, 4, 0, 2, 1), (3, 10, 96, 192, 4, 0.25, 2, 0),
                         (3, 19, 192, 224, 6, 0.25, 1, 0), (3, 25, 224, 384, 6, 0.25, 2, 0),
                         (3, 7, 384, 640, 6, 0.25, 1, 0)),
    "efficientnetv2-b0": _B, "efficientnetv2-b1": _B, "efficientnetv2-b2": _B,
    "efficientnetv2-b3": _B,
}
DEFAULT_BLOCKS_ARGS = {name: [dict(zip(_KEYS, row)) for row in rows]
                       for name, rows in _TABLES.items()}


def round_filters(filters: float, width_coefficient: float, min_depth: int | None,
                  depth_divisor: int) -> int:
    """Rounds the number of filters scaled by `width_coefficient` to a multiple of
    `depth_divisor` (at least `min_depth`)."""
    filters *= width_coefficient
    minimum_depth = min_depth or depth_divisor
    return int(max(minimum_depth, int(filters + depth_divisor / 2) // depth_divisor
                   * depth_divisor))


def round_repeats(repeats: int, depth_coefficient: float) -> int:
    """Rounds the number of block repeats scaled by `depth_coefficient` (up)."""
    return int(math.ceil(depth_coefficient * repeats))


def _bn_axis() -> int:
    return 3 if _common.data_format() == "channels_last" else 1


def _se(x: Any, input_filters: int, filters: int, se_ratio: float, activation: Any,
        name: str) -> Any:
    filters_se = max(1, int(input_filters * se_ratio))
    se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    se_shape = (filters, 1, 1) if _bn_axis() == 1 else (1, 1, filters)
    se = layers.Reshape(se_shape, name=name + "se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "se_expand")(se)
    return layers.multiply([x, se], name=name + "se_excite")


def _residual(x: Any, inputs: Any, survival_probability: float, name: str) -> Any:
    if survival_probability:  # Keras uses it as the dropout rate
        x = layers.Dropout(survival_probability, noise_shape=(None, 1, 1, 1),
                           name=name + "drop")(x)
    return layers.add([x, inputs], name=name + "add")


def MBConvBlock(input_filters: int, output_filters: int, expand_ratio: float = 1,
                kernel_size: int = 3, strides: int = 1, se_ratio: float = 0.0,
                bn_momentum: float = 0.9, activation: Any = "swish",
                survival_probability: float = 0.8, name: str | None = None) -> Any:
    """MBConv block (expansion, depthwise conv, squeeze-and-excite, projection, residual);
    returns a function applying it to a tensor."""

    bn_axis = _bn_axis()
    if name is None:
        name = str(backend.get_uid("block0"))

    def apply(inputs: Any) -> Any:
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = layers.Conv2D(filters=filters, kernel_size=1, strides=1,
                              kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                              data_format="channels_last", use_bias=False,
                              name=name + "expand_conv")(x)
            x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum,
                                          name=name + "expand_bn")(x)
            x = layers.Activation(activation, name=name + "expand_activation")(x)
        x = layers.DepthwiseConv2D(kernel_size=kernel_size, strides=strides,
                                   depthwise_initializer=CONV_KERNEL_INITIALIZER,
                                   padding="same", data_format="channels_last", use_bias=False,
                                   name=name + "dwconv2")(x)
        x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name=name + "bn")(x)
        x = layers.Activation(activation, name=name + "activation")(x)
        if 0 < se_ratio <= 1:
            x = _se(x, input_filters, filters, se_ratio, activation, name)
        x = layers.Conv2D(filters=output_filters, kernel_size=1, strides=1,
                          kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                          data_format="channels_last", use_bias=False,
                          name=name + "project_conv")(x)
        x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum,
                                      name=name + "project_bn")(x)
        if strides == 1 and input_filters == output_filters:
            x = _residual(x, inputs, survival_probability, name)
        return x

    return apply


def FusedMBConvBlock(input_filters: int, output_filters: int, expand_ratio: float = 1,
                     kernel_size: int = 3, strides: int = 1, se_ratio: float = 0.0,
                     bn_momentum: float = 0.9, activation: Any = "swish",
                     survival_probability: float = 0.8, name: str | None = None) -> Any:
    """Fused-MBConv block (a regular conv instead of expansion + depthwise conv); returns a
    function applying it to a tensor."""

    bn_axis = _bn_axis()
    if name is None:
        name = str(backend.get_uid("block0"))

    def apply(inputs: Any) -> Any:
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = layers.Conv2D(filters, kernel_size=kernel_size, strides=strides,
                              kernel_initializer=CONV_KERNEL_INITIALIZER,
                              data_format="channels_last", padding="same", use_bias=False,
                              name=name + "expand_conv")(x)
            x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum,
                                          name=name + "expand_bn")(x)
            x = layers.Activation(activation=activation, name=name + "expand_activation")(x)
        if 0 < se_ratio <= 1:
            x = _se(x, input_filters, filters, se_ratio, activation, name)
        x = layers.Conv2D(output_filters, kernel_size=1 if expand_ratio != 1 else kernel_size,
                          strides=1 if expand_ratio != 1 else strides,
                          kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                          use_bias=False, name=name + "project_conv")(x)
        x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum,
                                      name=name + "project_bn")(x)
        if expand_ratio == 1:
            x = layers.Activation(activation=activation, name=name + "project_activation")(x)
        if strides == 1 and input_filters == output_filters:
            x = _residual(x, inputs, survival_probability, name)
        return x

    return apply


def EfficientNetV2(width_coefficient: float, depth_coefficient: float, default_size: int,
                   dropout_rate: float = 0.2, drop_connect_rate: float = 0.2,
                   depth_divisor: int = 8, min_depth: int = 8, bn_momentum: float = 0.9,
                   activation: Any = "swish", blocks_args: Any = "default",
                   model_name: str = "efficientnetv2", include_top: bool = True,
                   weights: Any = "imagenet", input_tensor: Any = None,
                   input_shape: tuple | None = None, pooling: str | None = None,
                   classes: int = 1000, classifier_activation: Any = "softmax",
                   include_preprocessing: bool = True) -> Any:
    """Builds an EfficientNetV2 scaled by `width_coefficient` / `depth_coefficient`; returns a
    `keras.Model` named `model_name`."""
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS[model_name]
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 119 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    bn_axis = _bn_axis()
    x = img_input
    if include_preprocessing:
        num_channels = input_shape[bn_axis - 1]
        if model_name.split("-")[-1].startswith("b") and num_channels == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            x = layers.Normalization(mean=[0.485, 0.456, 0.406],
                                     variance=[0.229**2, 0.224**2, 0.225**2], axis=bn_axis)(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)

    def rf(filters: float) -> int:
        return round_filters(filters=filters, width_coefficient=width_coefficient,
                             min_depth=min_depth, depth_divisor=depth_divisor)

    x = layers.Conv2D(filters=rf(blocks_args[0]["input_filters"]), kernel_size=3, strides=2,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                      use_bias=False, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)
    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(args["num_repeat"] for args in blocks_args))
    for i, args in enumerate(blocks_args):
        args["input_filters"] = rf(args["input_filters"])
        args["output_filters"] = rf(args["output_filters"])
        block = {0: MBConvBlock, 1: FusedMBConvBlock}[args.pop("conv_type")]
        repeats = round_repeats(repeats=args.pop("num_repeat"),
                                depth_coefficient=depth_coefficient)
        for j in range(repeats):
            if j > 0:
                args["strides"] = 1
                args["input_filters"] = args["output_filters"]
            x = block(activation=activation, bn_momentum=bn_momentum,
                      survival_probability=drop_connect_rate * b / blocks,
                      name=f"block{i + 1}{chr(j + 97)}_", **args)(x)
            b += 1
    x = layers.Conv2D(filters=rf(1280), kernel_size=1, strides=1,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                      data_format="channels_last", use_bias=False, name="top_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=bn_momentum, name="top_bn")(x)
    x = layers.Activation(activation=activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, bias_initializer="zeros",
                         name="predictions")(x)
    else:
        x = _common.top(x, False, pooling, classes, classifier_activation, weights,
                        pool_names=("avg_pool", "max_pool"))
    model = Model(_common.model_inputs(input_tensor, img_input), x, name=model_name)
    imagenet = None
    if model_name[-2:] in WEIGHTS_HASHES:
        file_name = model_name + (".h5" if include_top else "_notop.h5")
        imagenet = (file_name, BASE_WEIGHTS_PATH + file_name,
                    WEIGHTS_HASHES[model_name[-2:]][0 if include_top else 1])
    return _common.load_weights(model, weights, imagenet)


_DOC = """

    The model rescales its inputs itself (with `include_preprocessing=True`): it expects
    float pixels in [0, 255] (`efficientnet_v2.preprocess_input` is the identity).

    Args:
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        input_shape: optional shape tuple, only with `include_top=False`; width and height no
            smaller than 32.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.
        include_preprocessing: whether to include the input rescaling (and normalization
            for the B variants).

    Returns:
        A `keras.Model` instance.
"""

_SCALING = {"B0": (1.0, 1.0, 224), "B1": (1.0, 1.1, 240), "B2": (1.1, 1.2, 260),
            "B3": (1.2, 1.4, 300), "S": (1.0, 1.0, 384), "M": (1.0, 1.0, 480),
            "L": (1.0, 1.0, 480)}


def _variant(suffix: str) -> Any:
    width, depth, size = _SCALING[suffix]

    def model_fn(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                 input_shape: tuple | None = None, pooling: str | None = None,
                 classes: int = 1000, classifier_activation: Any = "softmax",
                 include_preprocessing: bool = True) -> Any:
        return EfficientNetV2(width_coefficient=width, depth_coefficient=depth,
                              default_size=size, model_name=f"efficientnetv2-{suffix.lower()}",
                              include_top=include_top, weights=weights,
                              input_tensor=input_tensor, input_shape=input_shape,
                              pooling=pooling, classes=classes,
                              classifier_activation=classifier_activation,
                              include_preprocessing=include_preprocessing)

    model_fn.__name__ = model_fn.__qualname__ = f"EfficientNetV2{suffix}"
    model_fn.__doc__ = (f"Instantiates the EfficientNetV2{suffix} architecture (default input "
                        f"{size}x{size}).") + _DOC
    return model_fn


EfficientNetV2B0 = _variant("B0")
EfficientNetV2B1 = _variant("B1")
EfficientNetV2B2 = _variant("B2")
EfficientNetV2B3 = _variant("B3")
EfficientNetV2S = _variant("S")
EfficientNetV2M = _variant("M")
EfficientNetV2L = _variant("L")


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder kept for API consistency: EfficientNetV2 models preprocess their inputs
    themselves. Returns `x` unchanged."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
