"""ResNet (He et al., 2015) and ResNetV2 (pre-activation, 2016) with Keras 2.15's layer names
and weight order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}
_EPS = 1.001e-5


def _bn(name: str) -> Any:
    return layers.BatchNormalization(axis=_common.channel_axis(), epsilon=_EPS, name=name)


def ResNet(stack_fn: Callable[[Any], Any], preact: bool, use_bias: bool,
           model_name: str = "resnet", include_top: bool = True, weights: Any = "imagenet",
           input_tensor: Any = None, input_shape: tuple | None = None,
           pooling: str | None = None, classes: int = 1000,
           classifier_activation: Any = "softmax", **kwargs: Any) -> Any:
    """Builds a ResNet/ResNetV2 from `stack_fn` (the residual stacks); `preact` selects the
    pre-activation (V2) variant. Returns a `keras.Model` named `model_name`."""
    kwargs.pop("layers", None)
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 197 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = _bn("conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = _bn("post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights,
                    pool_names=("avg_pool", "max_pool"))
    model = Model(_common.model_inputs(input_tensor, img_input), x, name=model_name)
    imagenet = None
    if model_name in WEIGHTS_HASHES:
        suffix = "" if include_top else "_notop"
        file_name = f"{model_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
        imagenet = (file_name, BASE_WEIGHTS_PATH + file_name,
                    WEIGHTS_HASHES[model_name][0 if include_top else 1])
    return _common.load_weights(model, weights, imagenet)


def block1(x: Any, filters: int, kernel_size: int = 3, stride: int = 1,
           conv_shortcut: bool = True, name: str | None = None) -> Any:
    """A residual block (ResNet V1: convolution, batch norm, ReLU; ReLU after the add)."""

    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = _bn(name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = _bn(name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = _bn(name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def stack1(x: Any, filters: int, blocks: int, stride1: int = 2, name: str | None = None) -> Any:
    """A set of stacked V1 residual blocks; the first one strides by `stride1`."""
    x = block1(x, filters, stride=stride1, name=name + "_block1")
    for i in range(2, blocks + 1):
        x = block1(x, filters, conv_shortcut=False, name=name + "_block" + str(i))
    return x


def block2(x: Any, filters: int, kernel_size: int = 3, stride: int = 1,
           conv_shortcut: bool = False, name: str | None = None) -> Any:
    """A pre-activation residual block (ResNet V2: batch norm and ReLU before convolutions)."""

    preact = _bn(name + "_preact_bn")(x)
    preact = layers.Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = _bn(name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def stack2(x: Any, filters: int, blocks: int, stride1: int = 2, name: str | None = None) -> Any:
    """A set of stacked V2 residual blocks; the last one strides by `stride1`."""
    x = block2(x, filters, conv_shortcut=True, name=name + "_block1")
    for i in range(2, blocks):
        x = block2(x, filters, name=name + "_block" + str(i))
    return block2(x, filters, stride=stride1, name=name + "_block" + str(blocks))


def _v1(blocks: tuple[int, int, int, int]) -> Callable[[Any], Any]:
    def stack_fn(x: Any) -> Any:
        x = stack1(x, 64, blocks[0], stride1=1, name="conv2")
        x = stack1(x, 128, blocks[1], name="conv3")
        x = stack1(x, 256, blocks[2], name="conv4")
        return stack1(x, 512, blocks[3], name="conv5")
    return stack_fn


def _v2(blocks: tuple[int, int, int, int]) -> Callable[[Any], Any]:
    def stack_fn(x: Any) -> Any:
        x = stack2(x, 64, blocks[0], name="conv2")
        x = stack2(x, 128, blocks[1], name="conv3")
        x = stack2(x, 256, blocks[2], name="conv4")
        return stack2(x, 512, blocks[3], stride1=1, name="conv5")
    return stack_fn


_ARGS_DOC = """

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


def ResNet50(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
             input_shape: tuple | None = None, pooling: str | None = None, classes: int = 1000,
             **kwargs: Any) -> Any:
    """Instantiates the ResNet50 architecture (inputs: `resnet.preprocess_input`)."""
    return ResNet(_v1((3, 4, 6, 3)), False, True, "resnet50", include_top, weights,
                  input_tensor, input_shape, pooling, classes, **kwargs)


def ResNet101(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: tuple | None = None, pooling: str | None = None, classes: int = 1000,
              **kwargs: Any) -> Any:
    """Instantiates the ResNet101 architecture (inputs: `resnet.preprocess_input`)."""
    return ResNet(_v1((3, 4, 23, 3)), False, True, "resnet101", include_top, weights,
                  input_tensor, input_shape, pooling, classes, **kwargs)


def ResNet152(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: tuple | None = None, pooling: str | None = None, classes: int = 1000,
              **kwargs: Any) -> Any:
    """Instantiates the ResNet152 architecture (inputs: `resnet.preprocess_input`)."""
    return ResNet(_v1((3, 8, 36, 3)), False, True, "resnet152", include_top, weights,
                  input_tensor, input_shape, pooling, classes, **kwargs)


def ResNet50V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
               input_shape: tuple | None = None, pooling: str | None = None,
               classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates the ResNet50V2 architecture (inputs: `resnet_v2.preprocess_input`)."""
    return ResNet(_v2((3, 4, 6, 3)), True, True, "resnet50v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes,
                  classifier_activation=classifier_activation)


def ResNet101V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: tuple | None = None, pooling: str | None = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates the ResNet101V2 architecture (inputs: `resnet_v2.preprocess_input`)."""
    return ResNet(_v2((3, 4, 23, 3)), True, True, "resnet101v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes,
                  classifier_activation=classifier_activation)


def ResNet152V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: tuple | None = None, pooling: str | None = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates the ResNet152V2 architecture (inputs: `resnet_v2.preprocess_input`)."""
    return ResNet(_v2((3, 8, 36, 3)), True, True, "resnet152v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes,
                  classifier_activation=classifier_activation)


for _fn in (ResNet50, ResNet101, ResNet152, ResNet50V2, ResNet101V2, ResNet152V2):
    _fn.__doc__ += _ARGS_DOC


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for ResNet: RGB to BGR, then each color channel
    zero-centered with respect to the ImageNet dataset, without scaling (mode "caffe")."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def preprocess_input_v2(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for ResNetV2: pixels scaled between -1 and 1,
    sample-wise (mode "tf")."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
