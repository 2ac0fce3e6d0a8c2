"""InceptionResNetV2 (Szegedy et al., 2016) with Keras 2.15's layer names and weight order."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import layers
from torchestimator.keras._registry import register_keras_serializable
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils
from torchestimator.keras.applications._inception_v3 import head
from torchestimator.keras.engine.base_layer import Layer

BASE_WEIGHT_URL = ("https://storage.googleapis.com/tensorflow/"
                   "keras-applications/inception_resnet_v2/")
_FILES = (("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5",
           "e693bd0210a403b3192acc6073ad2e96"),
          ("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
           "d19885ff4a710c122648d3b5c3b684e4"))


def _channel_axis() -> int:
    return 1 if _common.data_format() == "channels_first" else 3


def conv2d_bn(x: Any, filters: int, kernel_size: Any, strides: int = 1, padding: str = "same",
              activation: Any = "relu", use_bias: bool = False,
              name: str | None = None) -> Any:
    """Conv2D, then BatchNormalization (no scale) unless `use_bias`, then `activation`; with
    `name`, the layers are `name`, `name + '_bn'` and `name + '_ac'`."""

    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding,
                      use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=_channel_axis(), scale=False,
                                      name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


@register_keras_serializable(package="Custom")
class CustomScaleLayer(Layer):
    """Returns `inputs[0] + inputs[1] * scale` (the scaled residual of Inception-ResNet)."""

    def __init__(self, scale: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self) -> dict:
        """The layer's config, with `scale`."""
        config = super().get_config()
        config.update({"scale": self.scale})
        return config

    def call(self, inputs: Any) -> Any:
        """Returns `inputs[0] + inputs[1] * scale`."""
        return inputs[0] + inputs[1] * self.scale


def inception_resnet_block(x: Any, scale: float, block_type: str, block_idx: int,
                           activation: Any = "relu") -> Any:
    """An Inception-ResNet block ('block35', 'block17' or 'block8'): its branches are
    concatenated, projected and added to `x` scaled by `scale`; layers named
    `{block_type}_{block_idx}_*`."""

    if block_type == "block35":
        branch_0 = conv2d_bn(x, 32, 1)
        branch_1 = conv2d_bn(x, 32, 1)
        branch_1 = conv2d_bn(branch_1, 32, 3)
        branch_2 = conv2d_bn(x, 32, 1)
        branch_2 = conv2d_bn(branch_2, 48, 3)
        branch_2 = conv2d_bn(branch_2, 64, 3)
        branches = [branch_0, branch_1, branch_2]
    elif block_type == "block17":
        branch_0 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(x, 128, 1)
        branch_1 = conv2d_bn(branch_1, 160, [1, 7])
        branch_1 = conv2d_bn(branch_1, 192, [7, 1])
        branches = [branch_0, branch_1]
    elif block_type == "block8":
        branch_0 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(branch_1, 224, [1, 3])
        branch_1 = conv2d_bn(branch_1, 256, [3, 1])
        branches = [branch_0, branch_1]
    else:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" or '
                         f'"block8", but got: {block_type}')
    block_name = f"{block_type}_{block_idx}"
    axis = _channel_axis()
    mixed = layers.Concatenate(axis=axis, name=block_name + "_mixed")(branches)
    up = conv2d_bn(mixed, tuple(x.shape)[axis], 1, activation=None, use_bias=True,
                   name=block_name + "_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=block_name + "_ac")(x)
    return x


def InceptionResNetV2(include_top: bool = True, weights: Any = "imagenet",
                      input_tensor: Any = None, input_shape: tuple | None = None,
                      pooling: str | None = None, classes: int = 1000,
                      classifier_activation: Any = "softmax", **kwargs: Any) -> Any:
    """Instantiates the Inception-ResNet v2 architecture.

    Call `tf.keras.applications.inception_resnet_v2.preprocess_input` on the inputs (pixels
    scaled between -1 and 1).

    Args:
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        input_shape: optional shape tuple, only with `include_top=False` (else (299, 299, 3));
            3 channels, width and height no smaller than 75.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.
        **kwargs: for backwards compatibility only (`layers` is ignored).

    Returns:
        A `keras.Model` instance named 'inception_resnet_v2'.
    """
    kwargs.pop("layers", None)
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 204 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=75, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    axis = _channel_axis()
    x = conv2d_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    # mixed 5b (Inception-A block): 35 x 35 x 320
    branch_0 = conv2d_bn(x, 96, 1)
    branch_1 = conv2d_bn(x, 48, 1)
    branch_1 = conv2d_bn(branch_1, 64, 5)
    branch_2 = conv2d_bn(x, 64, 1)
    branch_2 = conv2d_bn(branch_2, 96, 3)
    branch_2 = conv2d_bn(branch_2, 96, 3)
    branch_pool = layers.AveragePooling2D(3, strides=1, padding="same")(x)
    branch_pool = conv2d_bn(branch_pool, 64, 1)
    x = layers.Concatenate(axis=axis, name="mixed_5b")([branch_0, branch_1, branch_2,
                                                         branch_pool])
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)
    # mixed 6a (Reduction-A block): 17 x 17 x 1088
    branch_0 = conv2d_bn(x, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 256, 3)
    branch_1 = conv2d_bn(branch_1, 384, 3, strides=2, padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=axis, name="mixed_6a")([branch_0, branch_1, branch_pool])
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)
    # mixed 7a (Reduction-B block): 8 x 8 x 2080
    branch_0 = conv2d_bn(x, 256, 1)
    branch_0 = conv2d_bn(branch_0, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 288, 3, strides=2, padding="valid")
    branch_2 = conv2d_bn(x, 256, 1)
    branch_2 = conv2d_bn(branch_2, 288, 3)
    branch_2 = conv2d_bn(branch_2, 320, 3, strides=2, padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=axis, name="mixed_7a")([branch_0, branch_1, branch_2,
                                                         branch_pool])
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8",
                               block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    x = head(x, include_top, pooling, classes, classifier_activation, weights)
    model = Model(_common.model_inputs(input_tensor, img_input), x, name="inception_resnet_v2")
    fname, file_hash = _FILES[0 if include_top else 1]
    return _common.load_weights(model, weights, (fname, BASE_WEIGHT_URL + fname, file_hash))


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for InceptionResNetV2: pixels scaled between -1 and 1,
    sample-wise (`imagenet_utils.preprocess_input` with mode "tf"); returns float32 values."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
