"""ConvNeXt Tiny/Small/Base/Large/XLarge (Liu et al., 2022) with Keras 2.15's layer names and
weight order.

As in Keras, the model normalizes its inputs itself (`include_preprocessing=True`: a
`Normalization` layer with the ImageNet mean and variance), so `preprocess_input` is the
identity."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.keras import backend, initializers, layers
from torchestimator.keras.applications import _common
from torchestimator.keras.applications import _imagenet_utils as imagenet_utils
from torchestimator.keras.engine.base_layer import Layer

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/convnext/"
WEIGHTS_HASHES = {
    "convnext_tiny": ("8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
                      "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    "convnext_small": ("ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
                       "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"),
    "convnext_base": ("52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
                      "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"),
    "convnext_large": ("070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
                       "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"),
    "convnext_xlarge": ("c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
                        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"),
}
MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768],
             "default_size": 224},
    "small": {"depths": [3, 3, 27, 3], "projection_dims": [96, 192, 384, 768],
              "default_size": 224},
    "base": {"depths": [3, 3, 27, 3], "projection_dims": [128, 256, 512, 1024],
             "default_size": 224},
    "large": {"depths": [3, 3, 27, 3], "projection_dims": [192, 384, 768, 1536],
              "default_size": 224},
    "xlarge": {"depths": [3, 3, 27, 3], "projection_dims": [256, 512, 1024, 2048],
               "default_size": 224},
}


class StochasticDepth(Layer):
    """Drops the whole residual branch of a sample with probability `drop_path_rate` during
    training (scaling the kept ones by 1 / keep probability); the identity at inference."""

    def __init__(self, drop_path_rate: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x: Any, training: Any = None) -> Any:
        """Returns `x`, or `x` with whole samples dropped when training."""
        if training:
            keep_prob = 1 - self.drop_path_rate
            shape = (x.shape[0],) + (1,) * (x.dim() - 1)
            random_tensor = torch.floor(keep_prob + torch.rand(shape, dtype=x.dtype,
                                                               device=x.device))
            return (x / keep_prob) * random_tensor
        return x

    def get_config(self) -> dict:
        """The layer's config, with `drop_path_rate`."""
        config = super().get_config()
        config.update({"drop_path_rate": self.drop_path_rate})
        return config


class LayerScale(Layer):
    """Multiplies its input by a learned per-channel `gamma` (initialized to `init_values`)."""

    def __init__(self, init_values: float, projection_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape: Any) -> None:
        """Creates `gamma`, shape `(projection_dim,)`."""

        self.gamma = self.add_weight(name="gamma", shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values),
                                     trainable=True)
        super().build(input_shape)

    def call(self, x: Any) -> Any:
        """Returns `x * gamma`."""
        return x * self.gamma

    def get_config(self) -> dict:
        """The layer's config, with `init_values` and `projection_dim`."""
        config = super().get_config()
        config.update({"init_values": self.init_values, "projection_dim": self.projection_dim})
        return config


def ConvNeXtBlock(projection_dim: int, drop_path_rate: float = 0.0,
                  layer_scale_init_value: float | None = 1e-6, name: str | None = None) -> Any:
    """The ConvNeXt block (depthwise 7x7 conv, LayerNorm, two pointwise Dense layers with GELU,
    layer scale, residual); returns a function applying it to a tensor."""

    if name is None:
        name = "prestem" + str(backend.get_uid("prestem"))

    def apply(inputs: Any) -> Any:
        x = layers.Conv2D(filters=projection_dim, kernel_size=7, padding="same",
                          groups=projection_dim, name=name + "_depthwise_conv")(inputs)
        x = layers.LayerNormalization(epsilon=1e-6, name=name + "_layernorm")(x)
        x = layers.Dense(4 * projection_dim, name=name + "_pointwise_conv_1")(x)
        x = layers.Activation("gelu", name=name + "_gelu")(x)
        x = layers.Dense(projection_dim, name=name + "_pointwise_conv_2")(x)
        if layer_scale_init_value is not None:
            x = LayerScale(layer_scale_init_value, projection_dim,
                           name=name + "_layer_scale")(x)
        if drop_path_rate:
            layer = StochasticDepth(drop_path_rate, name=name + "_stochastic_depth")
        else:
            layer = layers.Activation("linear", name=name + "_identity")
        return inputs + layer(x)

    return apply


def _sequential(x: Any, stack: list, name: str) -> Any:
    """Applies the layers `stack` as one nested `Sequential` layer named `name` (as Keras'
    ConvNeXt does; built on `x`'s shape first so that it stays one layer of the model)."""
    from torchestimator.keras.engine.sequential import (  # lazy: heavy (torchestimator.keras.engine.sequential, 324 ms)
        Sequential,
    )

    model = Sequential([layers.InputLayer(input_shape=tuple(x.shape)[1:])] + stack, name=name)
    return model(x)


def ConvNeXt(depths: list, projection_dims: list, drop_path_rate: float = 0.0,
             layer_scale_init_value: float = 1e-6, default_size: int = 224,
             model_name: str = "convnext", include_preprocessing: bool = True,
             include_top: bool = True, weights: Any = None, input_tensor: Any = None,
             input_shape: tuple | None = None, pooling: str | None = None,
             classes: int = 1000, classifier_activation: Any = "softmax") -> Any:
    """Builds a ConvNeXt of the given depths and widths; returns a `keras.Model` named
    `model_name`."""
    _common.check_weights(weights, include_top, classes)
    from torchestimator.keras.engine.model import (  # lazy: heavy (torchestimator.keras.engine.model, 262 ms)
        Model,
    )

    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=_common.data_format(),
        require_flatten=include_top, weights=weights)
    img_input = _common.make_input(input_tensor, input_shape)
    inputs = img_input if input_tensor is None else _common.model_inputs(input_tensor,
                                                                         img_input)[0]
    x = inputs
    if include_preprocessing:
        channel_axis = 3 if _common.data_format() == "channels_last" else 1
        if input_shape[channel_axis - 1] == 3:
            x = layers.Normalization(
                mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
                name=model_name + "_prestem_normalization")(x)
    x = _sequential(x, [
        layers.Conv2D(projection_dims[0], kernel_size=4, strides=4,
                      name=model_name + "_stem_conv"),
        layers.LayerNormalization(epsilon=1e-6, name=model_name + "_stem_layernorm"),
    ], model_name + "_stem")
    depth_drop_rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i in range(4):
        if i:
            x = _sequential(x, [
                layers.LayerNormalization(epsilon=1e-6,
                                          name=f"{model_name}_downsampling_layernorm_{i - 1}"),
                layers.Conv2D(projection_dims[i], kernel_size=2, strides=2,
                              name=f"{model_name}_downsampling_conv_{i - 1}"),
            ], f"{model_name}_downsampling_block_{i - 1}")
        for j in range(depths[i]):
            x = ConvNeXtBlock(projection_dim=projection_dims[i],
                              drop_path_rate=depth_drop_rates[cur + j],
                              layer_scale_init_value=layer_scale_init_value,
                              name=f"{model_name}_stage_{i}_block_{j}")(x)
        cur += depths[i]
    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.GlobalAveragePooling2D(name=model_name + "_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=model_name + "_head_layernorm")(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         name=model_name + "_head_dense")(x)
    else:
        if pooling == "avg":
            x = layers.GlobalAveragePooling2D()(x)
        elif pooling == "max":
            x = layers.GlobalMaxPooling2D()(x)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    model = Model(inputs=inputs, outputs=x, name=model_name)
    imagenet = None
    if model_name in WEIGHTS_HASHES:
        file_name = model_name + (".h5" if include_top else "_notop.h5")
        imagenet = (file_name, BASE_WEIGHTS_PATH + file_name,
                    WEIGHTS_HASHES[model_name][0 if include_top else 1])
    return _common.load_weights(model, weights, imagenet)


_DOC = """

    The model normalizes its inputs itself (with `include_preprocessing=True`): it expects
    float pixels in [0, 255] (`convnext.preprocess_input` is the identity).

    Args:
        model_name: the model's name.
        include_top: whether to include the fully-connected layer at the top of the network.
        include_preprocessing: whether to include the input normalization layer.
        weights: `None` (random initialization), 'imagenet' (pre-training on ImageNet-1k,
            downloaded with `tf.keras.utils.get_file`), or the path to the weights file.
        input_tensor: optional Keras tensor (output of `layers.Input()`) to use as image input.
        input_shape: optional shape tuple, only with `include_top=False`; width and height no
            smaller than 32.
        pooling: with `include_top=False`: `None` (4D output), 'avg' or 'max' (each followed
            by a LayerNormalization).
        classes: number of classes, only with `include_top=True` and no `weights`.
        classifier_activation: activation of the "top" layer; `None` returns logits.

    Returns:
        A `keras.Model` instance.
"""


def _variant(size: str, suffix: str) -> Any:
    config = MODEL_CONFIGS[size]

    def model_fn(model_name: str = f"convnext_{size}", include_top: bool = True,
                 include_preprocessing: bool = True, weights: Any = "imagenet",
                 input_tensor: Any = None, input_shape: tuple | None = None,
                 pooling: str | None = None, classes: int = 1000,
                 classifier_activation: Any = "softmax") -> Any:
        return ConvNeXt(depths=config["depths"], projection_dims=config["projection_dims"],
                        drop_path_rate=0.0, layer_scale_init_value=1e-6,
                        default_size=config["default_size"], model_name=model_name,
                        include_top=include_top, include_preprocessing=include_preprocessing,
                        weights=weights, input_tensor=input_tensor, input_shape=input_shape,
                        pooling=pooling, classes=classes,
                        classifier_activation=classifier_activation)

    model_fn.__name__ = model_fn.__qualname__ = f"ConvNeXt{suffix}"
    model_fn.__doc__ = f"Instantiates the ConvNeXt{suffix} architecture." + _DOC
    return model_fn


ConvNeXtTiny = _variant("tiny", "Tiny")
ConvNeXtSmall = _variant("small", "Small")
ConvNeXtBase = _variant("base", "Base")
ConvNeXtLarge = _variant("large", "Large")
ConvNeXtXLarge = _variant("xlarge", "XLarge")


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """A placeholder kept for API consistency: ConvNeXt models normalize their inputs
    themselves. Returns `x` unchanged."""
    return x


def decode_predictions(preds: Any, top: int = 5) -> list:
    """Decodes ImageNet predictions: one list of `(class_name, class_description, score)`
    per sample (see `imagenet_utils.decode_predictions`)."""
    return imagenet_utils.decode_predictions(preds, top=top)
