"""VGG16 and VGG19 (Simonyan & Zisserman, 2014) with Keras 2.15's layer names."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/"
_HASHES = {
    "vgg16": ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc"),
    "vgg19": ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6"),
}
_CONVS = {"vgg16": (2, 2, 3, 3, 3), "vgg19": (2, 2, 4, 4, 4)}
_FILTERS = (64, 128, 256, 512, 512)


def _vgg(name: str, include_top: bool, weights: Any, input_tensor: Any, input_shape: Any,
         pooling: str | None, classes: int, classifier_activation: Any) -> Any:
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 133 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    x = img_input
    for block, (convs, filters) in enumerate(zip(_CONVS[name], _FILTERS), start=1):
        for conv in range(1, convs + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{conv}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.top(x, False, pooling, classes, classifier_activation, weights)
    model = Model(_common.model_inputs(input_tensor, img_input), x, name=name)
    file_name = f"{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return _common.load_weights(model, weights, (
        file_name, f"{_BASE}{name}/{file_name}", _HASHES[name][0 if include_top else 1]))


_DOC = """

    Args:
        include_top: whether to include the 3 fully-connected layers at the top of the network.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        input_shape: optional shape tuple, only with `include_top=False` (else (224, 224, 3));
            3 channels, width and height no smaller than 32.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max'.
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.

    Returns:
        A `keras.Model` instance.
"""


def VGG16(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
          input_shape: tuple | None = None, pooling: str | None = None, classes: int = 1000,
          classifier_activation: Any = "softmax") -> Any:
    """Instantiates the VGG16 model (inputs: `vgg16.preprocess_input`)."""
    return _vgg("vgg16", include_top, weights, input_tensor, input_shape, pooling, classes,
                classifier_activation)


def VGG19(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
          input_shape: tuple | None = None, pooling: str | None = None, classes: int = 1000,
          classifier_activation: Any = "softmax") -> Any:
    """Instantiates the VGG19 architecture (inputs: `vgg19.preprocess_input`)."""
    return _vgg("vgg19", include_top, weights, input_tensor, input_shape, pooling, classes,
                classifier_activation)


VGG16.__doc__ += _DOC
VGG19.__doc__ += _DOC


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for VGG: RGB to BGR, then each color channel
    zero-centered with respect to the ImageNet dataset, without scaling (mode "caffe")."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
