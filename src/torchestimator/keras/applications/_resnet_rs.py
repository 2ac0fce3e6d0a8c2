"""ResNet-RS 50/101/152/200/270/350/420 (Bello et al., 2021) with Keras 2.15's layer names and
weight order.

As in Keras, the model rescales and normalizes its inputs itself
(`include_preprocessing=True`), so `preprocess_input` is the identity."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from torchestimator.keras import backend, layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils
from torchestimator.keras.applications._efficientnet import CONV_KERNEL_INITIALIZER

BASE_WEIGHTS_URL = "https://storage.googleapis.com/tensorflow/keras-applications/resnet_rs/"
WEIGHT_HASHES = {
    "resnet-rs-101-i160.h5": "544b3434d00efc199d66e9058c7f3379",
    "resnet-rs-101-i160_notop.h5": "82d5b90c5ce9d710da639d6216d0f979",
    "resnet-rs-101-i192.h5": "eb285be29ab42cf4835ff20a5e3b5d23",
    "resnet-rs-101-i192_notop.h5": "f9a0f6b85faa9c3db2b6e233c4eebb5b",
    "resnet-rs-152-i192.h5": "8d72a301ed8a6f11a47c4ced4396e338",
    "resnet-rs-152-i192_notop.h5": "5fbf7ac2155cb4d5a6180ee9e3aa8704",
    "resnet-rs-152-i224.h5": "31a46a92ab21b84193d0d71dd8c3d03b",
    "resnet-rs-152-i224_notop.h5": "dc8b2cba2005552eafa3167f00dc2133",
    "resnet-rs-152-i256.h5": "ba6271b99bdeb4e7a9b15c05964ef4ad",
    "resnet-rs-152-i256_notop.h5": "fa79794252dbe47c89130f65349d654a",
    "resnet-rs-200-i256.h5": "a76930b741884e09ce90fa7450747d5f",
    "resnet-rs-200-i256_notop.h5": "bbdb3994718dfc0d1cd45d7eff3f3d9c",
    "resnet-rs-270-i256.h5": "20d575825ba26176b03cb51012a367a8",
    "resnet-rs-270-i256_notop.h5": "2c42ecb22e35f3e23d2f70babce0a2aa",
    "resnet-rs-350-i256.h5": "f4a039dc3c421321b7fc240494574a68",
    "resnet-rs-350-i256_notop.h5": "6e44b55025bbdff8f51692a023143d66",
    "resnet-rs-350-i320.h5": "7ccb858cc738305e8ceb3c0140bee393",
    "resnet-rs-350-i320_notop.h5": "ab0c1f9079d2f85a9facbd2c88aa6079",
    "resnet-rs-420-i320.h5": "ae0eb9bed39e64fc8d7e0db4018dc7e8",
    "resnet-rs-420-i320_notop.h5": "fe6217c32be8305b1889657172b98884",
    "resnet-rs-50-i160.h5": "69d9d925319f00a8bdd4af23c04e4102",
    "resnet-rs-50-i160_notop.h5": "90daa68cd26c95aa6c5d25451e095529",
}
DEPTH_TO_WEIGHT_VARIANTS = {50: [160], 101: [160, 192], 152: [192, 224, 256], 200: [256],
                            270: [256], 350: [256, 320], 420: [320]}
_REPEATS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3), 200: (3, 24, 36, 3),
            270: (4, 29, 53, 4), 350: (4, 36, 72, 4), 420: (4, 44, 87, 4)}
BLOCK_ARGS = {depth: [{"input_filters": f, "num_repeats": r}
                      for f, r in zip((64, 128, 256, 512), repeats)]
              for depth, repeats in _REPEATS.items()}


def _bn_axis() -> int:
    return 3 if _common.data_format() == "channels_last" else 1


def fixed_padding(inputs: Any, kernel_size: int) -> Any:
    """Pads the spatial dimensions by `kernel_size - 1` in all (independently of the input
    size), so that strided 'valid' convolutions are independent of it."""

    pad_total = kernel_size - 1
    pad_beg = pad_total // 2
    pad_end = pad_total - pad_beg
    return layers.ZeroPadding2D(padding=((pad_beg, pad_end), (pad_beg, pad_end)))(inputs)


def Conv2DFixedPadding(filters: int, kernel_size: int, strides: int,
                       name: str | None = None) -> Callable[[Any], Any]:
    """A Conv2D (no bias) with fixed padding when strided; returns a function applying it."""

    if name is None:
        name = f"conv_{backend.get_uid('conv_')}"

    def apply(inputs: Any) -> Any:
        if strides > 1:
            inputs = fixed_padding(inputs, kernel_size)
        return layers.Conv2D(filters=filters, kernel_size=kernel_size, strides=strides,
                             padding="same" if strides == 1 else "valid", use_bias=False,
                             kernel_initializer=CONV_KERNEL_INITIALIZER, name=name)(inputs)

    return apply


def _bn(name: str, momentum: float, epsilon: float) -> Any:
    return layers.BatchNormalization(axis=_bn_axis(), momentum=momentum, epsilon=epsilon,
                                     name=name)


def STEM(bn_momentum: float = 0.0, bn_epsilon: float = 1e-5, activation: str = "relu",
         name: str | None = None) -> Callable[[Any], Any]:
    """The ResNet-D stem (four 3x3 convolutions); returns a function applying it."""

    if name is None:
        name = f"stem_{backend.get_uid('stem_')}"

    def apply(x: Any) -> Any:
        for i, (filters, strides) in enumerate(((32, 2), (32, 1), (64, 1), (64, 2)), 1):
            x = Conv2DFixedPadding(filters=filters, kernel_size=3, strides=strides,
                                   name=f"{name}_stem_conv_{i}")(x)
            x = _bn(f"{name}_stem_batch_norm_{i}", bn_momentum, bn_epsilon)(x)
            x = layers.Activation(activation, name=f"{name}_stem_act_{i}")(x)
        return x

    return apply


def SE(in_filters: int, se_ratio: float = 0.25, expand_ratio: int = 1,
       name: str | None = None) -> Callable[[Any], Any]:
    """Squeeze-and-excitation; returns a function applying it."""

    bn_axis = _bn_axis()
    if name is None:
        name = f"se_{backend.get_uid('se_')}"

    def apply(inputs: Any) -> Any:
        x = layers.GlobalAveragePooling2D(name=name + "_se_squeeze")(inputs)
        channels = tuple(x.shape)[-1]
        se_shape = (channels, 1, 1) if bn_axis == 1 else (1, 1, channels)
        x = layers.Reshape(se_shape, name=name + "_se_reshape")(x)
        x = layers.Conv2D(filters=max(1, int(in_filters * 4 * se_ratio)), kernel_size=[1, 1],
                          strides=[1, 1], kernel_initializer=CONV_KERNEL_INITIALIZER,
                          padding="same", use_bias=True, activation="relu",
                          name=name + "_se_reduce")(x)
        x = layers.Conv2D(filters=4 * in_filters * expand_ratio, kernel_size=[1, 1],
                          strides=[1, 1], kernel_initializer=CONV_KERNEL_INITIALIZER,
                          padding="same", use_bias=True, activation="sigmoid",
                          name=name + "_se_expand")(x)
        return layers.multiply([inputs, x], name=name + "_se_excite")

    return apply


def BottleneckBlock(filters: int, strides: int, use_projection: bool, bn_momentum: float = 0.0,
                    bn_epsilon: float = 1e-5, activation: str = "relu", se_ratio: float = 0.25,
                    survival_probability: float = 0.8,
                    name: str | None = None) -> Callable[[Any], Any]:
    """A bottleneck residual block with squeeze-and-excitation; returns a function applying
    it."""

    if name is None:
        name = f"block_0_{backend.get_uid('block_0_')}"

    def apply(inputs: Any) -> Any:
        shortcut = inputs
        if use_projection:
            filters_out = filters * 4
            if strides == 2:
                shortcut = layers.AveragePooling2D(pool_size=(2, 2), strides=(2, 2),
                                                   padding="same",
                                                   name=name + "_projection_pooling")(inputs)
                shortcut = Conv2DFixedPadding(filters=filters_out, kernel_size=1, strides=1,
                                              name=name + "_projection_conv")(shortcut)
            else:
                shortcut = Conv2DFixedPadding(filters=filters_out, kernel_size=1,
                                              strides=strides,
                                              name=name + "_projection_conv")(inputs)
            shortcut = _bn(name + "_projection_batch_norm", bn_momentum, bn_epsilon)(shortcut)
        x = Conv2DFixedPadding(filters=filters, kernel_size=1, strides=1,
                               name=name + "_conv_1")(inputs)
        x = _bn(name + "batch_norm_1", bn_momentum, bn_epsilon)(x)
        x = layers.Activation(activation, name=name + "_act_1")(x)
        x = Conv2DFixedPadding(filters=filters, kernel_size=3, strides=strides,
                               name=name + "_conv_2")(x)
        x = _bn(name + "_batch_norm_2", bn_momentum, bn_epsilon)(x)
        x = layers.Activation(activation, name=name + "_act_2")(x)
        x = Conv2DFixedPadding(filters=filters * 4, kernel_size=1, strides=1,
                               name=name + "_conv_3")(x)
        x = _bn(name + "_batch_norm_3", bn_momentum, bn_epsilon)(x)
        if 0 < se_ratio < 1:
            x = SE(filters, se_ratio=se_ratio, name=name + "_se")(x)
        if survival_probability:  # Keras uses it as the dropout rate
            x = layers.Dropout(survival_probability, noise_shape=(None, 1, 1, 1),
                               name=name + "_drop")(x)
        x = layers.Add()([x, shortcut])
        return layers.Activation(activation, name=name + "_output_act")(x)

    return apply


def BlockGroup(filters: int, strides: int, num_repeats: int, se_ratio: float = 0.25,
               bn_epsilon: float = 1e-5, bn_momentum: float = 0.0, activation: str = "relu",
               survival_probability: float = 0.8,
               name: str | None = None) -> Callable[[Any], Any]:
    """`num_repeats` bottleneck blocks, the first one with a projection shortcut; returns a
    function applying them."""

    if name is None:
        name = f"block_group_{backend.get_uid('block_group_')}"

    def apply(inputs: Any) -> Any:
        x = BottleneckBlock(filters=filters, strides=strides, use_projection=True,
                            se_ratio=se_ratio, bn_epsilon=bn_epsilon, bn_momentum=bn_momentum,
                            activation=activation, survival_probability=survival_probability,
                            name=name + "_block_0_")(inputs)
        for i in range(1, num_repeats):
            x = BottleneckBlock(filters=filters, strides=1, use_projection=False,
                                se_ratio=se_ratio, activation=activation,
                                bn_epsilon=bn_epsilon, bn_momentum=bn_momentum,
                                survival_probability=survival_probability,
                                name=name + f"_block_{i}_")(x)
        return x

    return apply


def get_survival_probability(init_rate: float, block_num: int, total_blocks: int) -> float:
    """The drop-connect rate of block `block_num` of `total_blocks` (linear in the depth)."""
    return init_rate * float(block_num) / total_blocks


def allow_bigger_recursion(target_limit: int) -> None:
    """Raises Python's recursion limit to `target_limit` if it is lower (the deepest models'
    graphs are traversed recursively)."""
    if sys.getrecursionlimit() < target_limit:
        sys.setrecursionlimit(target_limit)


def ResNetRS(depth: int, input_shape: tuple | None = None, bn_momentum: float = 0.0,
             bn_epsilon: float = 1e-5, activation: str = "relu", se_ratio: float = 0.25,
             dropout_rate: float = 0.25, drop_connect_rate: float = 0.2,
             include_top: bool = True, block_args: list | None = None,
             model_name: str = "resnet-rs", pooling: str | None = None,
             weights: Any = "imagenet", input_tensor: Any = None, classes: int = 1000,
             classifier_activation: Any = "softmax", include_preprocessing: bool = True) -> Any:
    """Builds a ResNet-RS of the given depth; returns a `keras.Model` named `model_name`.

    `weights` may be 'imagenet' (the weights for the largest input size), one of
    `imagenet-i{size}` for the sizes of `DEPTH_TO_WEIGHT_VARIANTS[depth]`, `None`, or the path
    to a weights file."""
    available_weight_variants = DEPTH_TO_WEIGHT_VARIANTS[depth]
    if weights == "imagenet":
        weights = f"imagenet-i{max(available_weight_variants)}"
    weights_allow_list = [f"imagenet-i{x}" for x in available_weight_variants]
    if not (weights in {*weights_allow_list, None}
            or (isinstance(weights, (str, os.PathLike)) and os.path.exists(weights))):
        raise ValueError(
            "The `weights` argument should be either `None` (random initialization), "
            "`'imagenet'` (pre-training on ImageNet, with highest available input shape), or "
            f"the path to the weights file to be loaded. For ResNetRS{depth} the following "
            f"weight variants are available {weights_allow_list} (default=highest). Received "
            f"weights={weights}")
    if weights in weights_allow_list and include_top and classes != 1000:
        raise ValueError(f"If using `weights` as `'imagenet'` or any of {weights_allow_list} "
                         "with `include_top` as true, `classes` should be 1000. Received "
                         f"classes={classes}")
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 177 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    bn_axis = _bn_axis()
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 255)(x)
        if input_shape[bn_axis - 1] == 3:
            x = layers.Normalization(mean=[0.485, 0.456, 0.406],
                                     variance=[0.229**2, 0.224**2, 0.225**2], axis=bn_axis)(x)
    x = STEM(bn_momentum=bn_momentum, bn_epsilon=bn_epsilon, activation=activation)(x)
    if block_args is None:
        block_args = BLOCK_ARGS[depth]
    for i, args in enumerate(block_args):
        survival_probability = get_survival_probability(
            init_rate=drop_connect_rate, block_num=i + 2, total_blocks=len(block_args) + 1)
        x = BlockGroup(filters=args["input_filters"], activation=activation,
                       strides=(1 if i == 0 else 2), num_repeats=args["num_repeats"],
                       se_ratio=se_ratio, bn_momentum=bn_momentum, bn_epsilon=bn_epsilon,
                       survival_probability=survival_probability,
                       name=f"BlockGroup{i + 2}_")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.top(x, False, pooling, classes, classifier_activation, weights,
                        pool_names=("avg_pool", "max_pool"))
    model = Model(_common.model_inputs(input_tensor, img_input), x, name=model_name)
    if weights in weights_allow_list:
        filename = f"{model_name}-{weights.split('-')[-1]}{'' if include_top else '_notop'}.h5"
        return _common.load_weights(model, "imagenet", (
            filename, BASE_WEIGHTS_URL + filename, WEIGHT_HASHES.get(filename)))
    return _common.load_weights(model, weights, None)


_DOC = """

    The model rescales and normalizes its inputs itself (with `include_preprocessing=True`):
    it expects float pixels in [0, 255] (`resnet_rs.preprocess_input` is the identity).

    Args:
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet with
            the largest available input size, downloaded with `tf.keras.utils.get_file`),
            `'imagenet-i{size}'` for another available size, or the path to a weights file.
        classes: number of classes, only with `include_top=True` and no `weights`.
        input_shape: optional shape tuple, only with `include_top=False`; width and height no
            smaller than 32.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classifier_activation: activation of the "top" layer; `None` returns logits.
        include_preprocessing: whether to include the input rescaling and normalization.

    Returns:
        A `keras.Model` instance.
"""
# depth: (drop_connect_rate, dropout_rate, recursion limit (as Keras sets it) or None)
_RATES = {50: (0.0, 0.25, None), 101: (0.0, 0.25, None), 152: (0.0, 0.25, None),
          200: (0.1, 0.25, None), 270: (0.1, 0.25, 1300), 350: (0.1, 0.4, 1500),
          420: (0.1, 0.4, 1800)}


def _variant(depth: int) -> Any:
    drop_connect_rate, dropout_rate, recursion_limit = _RATES[depth]

    def model_fn(include_top: bool = True, weights: Any = "imagenet", classes: int = 1000,
                 input_shape: tuple | None = None, input_tensor: Any = None,
                 pooling: str | None = None, classifier_activation: Any = "softmax",
                 include_preprocessing: bool = True) -> Any:
        if recursion_limit:
            allow_bigger_recursion(recursion_limit)
        return ResNetRS(depth=depth, include_top=include_top,
                        drop_connect_rate=drop_connect_rate, dropout_rate=dropout_rate,
                        weights=weights, classes=classes, input_shape=input_shape,
                        input_tensor=input_tensor, pooling=pooling,
                        classifier_activation=classifier_activation,
                        model_name=f"resnet-rs-{depth}",
                        include_preprocessing=include_preprocessing)

    model_fn.__name__ = model_fn.__qualname__ = f"ResNetRS{depth}"
    model_fn.__doc__ = f"Instantiates the ResNetRS{depth} architecture." + _DOC
    return model_fn


ResNetRS50 = _variant(50)
ResNetRS101 = _variant(101)
ResNetRS152 = _variant(152)
ResNetRS200 = _variant(200)
ResNetRS270 = _variant(270)
ResNetRS350 = _variant(350)
ResNetRS420 = _variant(420)


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder kept for API consistency: ResNet-RS models preprocess their inputs
    themselves. Returns `x` unchanged."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
