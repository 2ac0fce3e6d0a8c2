"""EfficientNetB0-B7 (Tan & Le, 2019) with Keras 2.15's layer names and weight order.

As in Keras, the model rescales its inputs itself (`Rescaling(1/255)` then a `Normalization`
layer holding the ImageNet statistics in the weight files), so `preprocess_input` is the
identity."""

from __future__ import annotations

import copy
import math
from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
WEIGHTS_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}
# (kernel_size, repeats, filters_in, filters_out, expand_ratio, strides); id_skip True and
# se_ratio 0.25 for all
_BLOCKS = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
           (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1))
DEFAULT_BLOCKS_ARGS = [
    {"kernel_size": k, "repeats": r, "filters_in": fi, "filters_out": fo, "expand_ratio": e,
     "id_skip": True, "strides": s, "se_ratio": 0.25} for k, r, fi, fo, e, s in _BLOCKS]
CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling", "config": {
    "scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling", "config": {
    "scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"}}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def _bn_axis() -> int:
    return 1 if _common.data_format() == "channels_first" else 3


def block(inputs: Any, activation: Any = "swish", drop_rate: float = 0.0, name: str = "",
          filters_in: int = 32, filters_out: int = 16, kernel_size: int = 3, strides: int = 1,
          expand_ratio: int = 1, se_ratio: float = 0.0, id_skip: bool = True) -> Any:
    """An inverted residual block (expansion, depthwise convolution, squeeze-and-excitation,
    projection, skip connection with drop-connect)."""

    bn_axis = _bn_axis()
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False,
                          kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "expand_conv")(
            inputs)
        x = layers.BatchNormalization(axis=bn_axis, name=name + "expand_bn")(x)
        x = layers.Activation(activation, name=name + "expand_activation")(x)
    else:
        x = inputs
    if strides == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=name + "dwconv_pad")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding=conv_pad, use_bias=False,
                               depthwise_initializer=CONV_KERNEL_INITIALIZER,
                               name=name + "dwconv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name=name + "bn")(x)
    x = layers.Activation(activation, name=name + "activation")(x)
    if 0 < se_ratio <= 1:
        filters_se = max(1, int(filters_in * se_ratio))
        se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
        se_shape = (filters, 1, 1) if bn_axis == 1 else (1, 1, filters)
        se = layers.Reshape(se_shape, name=name + "se_reshape")(se)
        se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                           kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "se_reduce")(se)
        se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                           kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "se_expand")(se)
        x = layers.multiply([x, se], name=name + "se_excite")
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "project_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name=name + "project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.add([x, inputs], name=name + "add")
    return x


def EfficientNet(width_coefficient: float, depth_coefficient: float, default_size: int,
                 dropout_rate: float = 0.2, drop_connect_rate: float = 0.2,
                 depth_divisor: int = 8, activation: Any = "swish", blocks_args: Any = "default",
                 model_name: str = "efficientnet", include_top: bool = True,
                 weights: Any = "imagenet", input_tensor: Any = None,
                 input_shape: tuple | None = None, pooling: str | None = None,
                 classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates an EfficientNet scaled by `width_coefficient` / `depth_coefficient`;
    returns a `keras.Model` named `model_name`."""
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 292 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    bn_axis = _bn_axis()

    def round_filters(filters: float, divisor: int = depth_divisor) -> int:
        filters *= width_coefficient
        new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
        if new_filters < 0.9 * filters:
            new_filters += divisor
        return int(new_filters)

    def round_repeats(repeats: int) -> int:
        return int(math.ceil(depth_coefficient * repeats))

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=bn_axis)(x)
    if weights == "imagenet":
        # Keras 2.15 divides by the square root of the standard deviation (what its ImageNet
        # weights were calibrated with)
        x = layers.Rescaling([1.0 / math.sqrt(stddev) for stddev in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)
    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = block(x, activation, drop_connect_rate * b / blocks,
                      name=f"block{i + 1}{chr(j + 97)}_", **args)
            b += 1
    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name="top_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, name="predictions")(x)
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

    The model rescales and normalizes its inputs itself: it expects float pixels in [0, 255]
    (`efficientnet.preprocess_input` is the identity).

    Args:
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        input_shape: optional shape tuple, only with `include_top=False`; 3 channels, width and
            height no smaller than 32.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.
        **kwargs: passed to `EfficientNet` (e.g. `drop_connect_rate`, `activation`).

    Returns:
        A `keras.Model` instance.
"""

_SCALING = {"B0": (1.0, 1.0, 224, 0.2), "B1": (1.0, 1.1, 240, 0.2), "B2": (1.1, 1.2, 260, 0.3),
            "B3": (1.2, 1.4, 300, 0.3), "B4": (1.4, 1.8, 380, 0.4), "B5": (1.6, 2.2, 456, 0.4),
            "B6": (1.8, 2.6, 528, 0.5), "B7": (2.0, 3.1, 600, 0.5)}


def _variant(suffix: str) -> Any:
    width, depth, size, dropout = _SCALING[suffix]

    def model_fn(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                 input_shape: tuple | None = None, pooling: str | None = None,
                 classes: int = 1000, classifier_activation: Any = "softmax",
                 **kwargs: Any) -> Any:
        return EfficientNet(width, depth, size, dropout, model_name=f"efficientnet{suffix.lower()}",
                            include_top=include_top, weights=weights, input_tensor=input_tensor,
                            input_shape=input_shape, pooling=pooling, classes=classes,
                            classifier_activation=classifier_activation, **kwargs)

    model_fn.__name__ = model_fn.__qualname__ = f"EfficientNet{suffix}"
    model_fn.__doc__ = (f"Instantiates the EfficientNet{suffix} architecture (default input "
                        f"{size}x{size}).") + _DOC
    return model_fn


EfficientNetB0 = _variant("B0")
EfficientNetB1 = _variant("B1")
EfficientNetB2 = _variant("B2")
EfficientNetB3 = _variant("B3")
EfficientNetB4 = _variant("B4")
EfficientNetB5 = _variant("B5")
EfficientNetB6 = _variant("B6")
EfficientNetB7 = _variant("B7")


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder kept for API consistency: EfficientNet models preprocess their inputs
    themselves. Returns `x` unchanged."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
