"""InceptionV3 (Szegedy et al., 2015) with Keras 2.15's layer names and weight order."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils

WEIGHTS_PATH = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels.h5")
WEIGHTS_PATH_NO_TOP = ("https://storage.googleapis.com/tensorflow/keras-applications/"
                       "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5")
_HASHES = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")


def conv2d_bn(x: Any, filters: int, num_row: int, num_col: int, padding: str = "same",
              strides: tuple = (1, 1), name: str | None = None) -> Any:
    """Conv2D (no bias) + BatchNormalization (no scale) + ReLU; with `name`, the layers are
    `name + '_conv'`, `name + '_bn'` and `name`."""

    bn_axis = 1 if _common.data_format() == "channels_first" else 3
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding,
                      use_bias=False, name=None if name is None else name + "_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, scale=False,
                                  name=None if name is None else name + "_bn")(x)
    return layers.Activation("relu", name=name)(x)


def head(x: Any, include_top: bool, pooling: str | None, classes: int,
         classifier_activation: Any, weights: Any) -> Any:
    """Keras' head of InceptionV3/Xception/InceptionResNetV2: 'avg_pool' + 'predictions'
    with `include_top`, else an unnamed global pooling per `pooling`."""

    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D()(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D()(x)
    return x


def InceptionV3(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: tuple | None = None, pooling: str | None = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Instantiates the Inception v3 architecture.

    Call `tf.keras.applications.inception_v3.preprocess_input` on the inputs (pixels scaled
    between -1 and 1).

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

    Returns:
        A `keras.Model` instance named 'inception_v3'.
    """
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 125 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=75, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    axis = 1 if _common.data_format() == "channels_first" else 3

    def pool3(t: Any) -> Any:
        return layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(t)

    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    # mixed 0, 1, 2: 35 x 35 x 256/288
    for i, pool_filters in enumerate((32, 64, 64)):
        branch1x1 = conv2d_bn(x, 64, 1, 1)
        branch5x5 = conv2d_bn(x, 48, 1, 1)
        branch5x5 = conv2d_bn(branch5x5, 64, 5, 5)
        branch3x3dbl = conv2d_bn(x, 64, 1, 1)
        branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
        branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
        branch_pool = conv2d_bn(pool3(x), pool_filters, 1, 1)
        x = layers.concatenate([branch1x1, branch5x5, branch3x3dbl, branch_pool], axis=axis,
                               name=f"mixed{i}")
    # mixed 3: 17 x 17 x 768
    branch3x3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch3x3dbl, branch_pool], axis=axis, name="mixed3")
    # mixed 4, 5, 6, 7: 17 x 17 x 768
    for i, filters in enumerate((128, 160, 160, 192)):
        branch1x1 = conv2d_bn(x, 192, 1, 1)
        branch7x7 = conv2d_bn(x, filters, 1, 1)
        branch7x7 = conv2d_bn(branch7x7, filters, 1, 7)
        branch7x7 = conv2d_bn(branch7x7, 192, 7, 1)
        branch7x7dbl = conv2d_bn(x, filters, 1, 1)
        branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 7, 1)
        branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 1, 7)
        branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 7, 1)
        branch7x7dbl = conv2d_bn(branch7x7dbl, 192, 1, 7)
        branch_pool = conv2d_bn(pool3(x), 192, 1, 1)
        x = layers.concatenate([branch1x1, branch7x7, branch7x7dbl, branch_pool], axis=axis,
                               name=f"mixed{4 + i}")
    # mixed 8: 8 x 8 x 1280
    branch3x3 = conv2d_bn(x, 192, 1, 1)
    branch3x3 = conv2d_bn(branch3x3, 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = conv2d_bn(x, 192, 1, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 1, 7)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 7, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch7x7x3, branch_pool], axis=axis, name="mixed8")
    # mixed 9, 10: 8 x 8 x 2048
    for i in range(2):
        branch1x1 = conv2d_bn(x, 320, 1, 1)
        branch3x3 = conv2d_bn(x, 384, 1, 1)
        branch3x3_1 = conv2d_bn(branch3x3, 384, 1, 3)
        branch3x3_2 = conv2d_bn(branch3x3, 384, 3, 1)
        branch3x3 = layers.concatenate([branch3x3_1, branch3x3_2], axis=axis,
                                       name=f"mixed9_{i}")
        branch3x3dbl = conv2d_bn(x, 448, 1, 1)
        branch3x3dbl = conv2d_bn(branch3x3dbl, 384, 3, 3)
        branch3x3dbl_1 = conv2d_bn(branch3x3dbl, 384, 1, 3)
        branch3x3dbl_2 = conv2d_bn(branch3x3dbl, 384, 3, 1)
        branch3x3dbl = layers.concatenate([branch3x3dbl_1, branch3x3dbl_2], axis=axis)
        branch_pool = conv2d_bn(pool3(x), 192, 1, 1)
        x = layers.concatenate([branch1x1, branch3x3, branch3x3dbl, branch_pool], axis=axis,
                               name=f"mixed{9 + i}")
    x = head(x, include_top, pooling, classes, classifier_activation, weights)
    model = Model(_common.model_inputs(input_tensor, img_input), x, name="inception_v3")
    if include_top:
        imagenet = ("inception_v3_weights_tf_dim_ordering_tf_kernels.h5", WEIGHTS_PATH,
                    _HASHES[0])
    else:
        imagenet = ("inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
                    WEIGHTS_PATH_NO_TOP, _HASHES[1])
    return _common.load_weights(model, weights, imagenet)


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Preprocesses a batch of images for InceptionV3: pixels scaled between -1 and 1,
    sample-wise (`imagenet_utils.preprocess_input` with mode "tf"); returns float32 values."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
