"""What every application function does around its architecture: check `weights`, make the
input, add the classifier head or pooling, and load weights (ImageNet ones through
`tf.keras.utils.get_file` with Keras' URL and hash, or a local file)."""

from __future__ import annotations

import os
from typing import Any

from torchestimator.keras import backend, layers
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.utils import _data_utils  # get_file looked up per call
from torchestimator.keras.utils._layer_utils import get_source_inputs


def check_weights(weights: Any, include_top: bool, classes: int) -> None:
    """Keras' checks of the `weights` and `classes` arguments."""
    if not (weights in {"imagenet", None} or (isinstance(weights, (str, os.PathLike))
                                              and os.path.exists(weights))):
        raise ValueError(
            "The `weights` argument should be either `None` (random initialization), "
            "`imagenet` (pre-training on ImageNet), or the path to the weights file to be "
            f"loaded.  Received: weights={weights}"
        )
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            'If using `weights` as `"imagenet"` with `include_top` as true, `classes` should '
            f"be 1000.  Received: classes={classes}"
        )


def data_format() -> str:
    """The global image data format ('channels_last' unless changed)."""

    return backend.image_data_format()


def channel_axis() -> int:
    """The channel axis of the global image data format (-1 or 1)."""
    return 1 if data_format() == "channels_first" else -1


def make_input(input_tensor: Any, input_shape: tuple) -> Any:
    """The model's image input: `Input(shape=input_shape)`, or `input_tensor` when given."""

    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if not isinstance(input_tensor, KerasTensor):
        raise ValueError(
            "input_tensor must be a Keras tensor (the output of `tf.keras.Input()` or of a "
            f"layer); Received {input_tensor!r} of type {type(input_tensor).__name__}. Pass "
            "`input_shape` instead, or wrap the data in `tf.keras.Input`."
        )
    return input_tensor


def model_inputs(input_tensor: Any, img_input: Any) -> Any:
    """The inputs the model is built from: `input_tensor`'s source inputs when given."""
    if input_tensor is None:
        return img_input

    return get_source_inputs(input_tensor)


def top(x: Any, include_top: bool, pooling: str | None, classes: int,
        classifier_activation: Any, weights: Any, pool_names: tuple[str | None, str | None] =
        (None, None)) -> Any:
    """The usual head: GlobalAveragePooling2D + Dense 'predictions' with `include_top`, else
    the optional 'avg' / 'max' pooling."""

    if include_top:
        x = layers.GlobalAveragePooling2D(name=pool_names[0])(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=pool_names[0])(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=pool_names[1])(x)
    return x


def fetch_weights(file_name: str, origin: str, file_hash: str | None) -> str:
    """Downloads (or finds in `~/.keras/models`) a pretrained weight file; returns its path."""

    return _data_utils.get_file(file_name, origin, cache_subdir="models", file_hash=file_hash)


def load_weights(model: Any, weights: Any, imagenet: tuple[str, str, str | None] | None) -> Any:
    """Loads `weights` into `model`: 'imagenet' fetches `imagenet` = (file name, URL, hash);
    a path is loaded as it is (Keras' HDF5 weight files load by layer name/order)."""
    if weights == "imagenet":
        if imagenet is None:
            raise ValueError(f"No ImageNet weights exist for {model.name}; use weights=None.")
        model.load_weights(fetch_weights(*imagenet))
    elif weights is not None:
        model.load_weights(os.fspath(weights))
    return model
