"""DenseNet121/169/201 (Huang et al., 2017) with Keras 2.15's layer names and weight order."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"
_NAMES = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169",
          (6, 12, 48, 32): "densenet201"}
_HASHES = {
    "densenet121": ("9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
    "densenet169": ("d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
    "densenet201": ("1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1"),
}
_EPS = 1.001e-5


def _bn(name: str) -> Any:
    return layers.BatchNormalization(axis=_common.channel_axis(), epsilon=_EPS, name=name)


def dense_block(x: Any, blocks: int, name: str) -> Any:
    """`blocks` densely connected conv blocks."""
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x: Any, reduction: float, name: str) -> Any:
    """Batch norm, ReLU, a 1x1 convolution keeping `reduction` of the channels, 2x2 average
    pooling."""

    x = _bn(name + "_bn")(x)
    x = layers.Activation("relu", name=name + "_relu")(x)
    channels = tuple(x.shape)[_common.channel_axis()]
    x = layers.Conv2D(int(channels * reduction), 1, use_bias=False, name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def conv_block(x: Any, growth_rate: int, name: str) -> Any:
    """A building block: its `growth_rate` new channels are concatenated to its input."""

    x1 = _bn(name + "_0_bn")(x)
    x1 = layers.Activation("relu", name=name + "_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = _bn(name + "_1_bn")(x1)
    x1 = layers.Activation("relu", name=name + "_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=name + "_2_conv")(x1)
    axis = 1 if _common.data_format() == "channels_first" else 3
    return layers.Concatenate(axis=axis, name=name + "_concat")([x, x1])


def DenseNet(blocks: Any, include_top: bool = True, weights: Any = "imagenet",
             input_tensor: Any = None, input_shape: tuple | None = None,
             pooling: str | None = None, classes: int = 1000,
             classifier_activation: Any = "softmax") -> Any:
    """Instantiates the DenseNet architecture with `blocks` (4 ints) conv blocks per dense
    block; returns a `keras.Model` (named densenet121/169/201 for their block counts)."""
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 180 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = _bn("conv1/bn")(x)
    x = layers.Activation("relu", name="conv1/relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for i, count in enumerate(blocks):
        x = dense_block(x, count, name=f"conv{i + 2}")
        if i < 3:
            x = transition_block(x, 0.5, name=f"pool{i + 2}")
    x = _bn("bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights,
                    pool_names=("avg_pool", "max_pool"))
    name = _NAMES.get(tuple(blocks), "densenet")
    model = Model(_common.model_inputs(input_tensor, img_input), x, name=name)
    imagenet = None
    if name in _HASHES:
        file_name = f"{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
        imagenet = (file_name, BASE_WEIGHTS_PATH + file_name,
                    _HASHES[name][0 if include_top else 1])
    return _common.load_weights(model, weights, imagenet)


_DOC = """

    Args:
        include_top: whether to include the fully-connected layer at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        input_shape: optional shape tuple, only with `include_top=False` (else (224, 224, 3));
            3 channels, width and height no smaller than 32.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.

    Returns:
        A Keras model instance.
"""


def DenseNet121(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: tuple | None = None, pooling: str | None = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates the Densenet121 architecture (inputs: `densenet.preprocess_input`)."""
    return DenseNet([6, 12, 24, 16], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation)


def DenseNet169(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: tuple | None = None, pooling: str | None = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates the Densenet169 architecture (inputs: `densenet.preprocess_input`)."""
    return DenseNet([6, 12, 32, 32], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation)


def DenseNet201(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: tuple | None = None, pooling: str | None = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates the Densenet201 architecture (inputs: `densenet.preprocess_input`)."""
    return DenseNet([6, 12, 48, 32], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation)


for _fn in (DenseNet121, DenseNet169, DenseNet201):
    _fn.__doc__ += _DOC


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for DenseNet: pixels scaled between 0 and 1, then each
    channel normalized with respect to the ImageNet dataset (mode "torch")."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
