"""`tf.keras.layers`: the layer library, each layer a `torch.nn.Module` that builds lazily.

The layers load on first use, a family (`core`, `rnn`, `convolutional`, ...) at a time: a
premade estimator's `model_fn` needs `Dense` and `DenseFeatures`, not the 90 modules of every
layer (`_import_all()` loads them all, as deserialising a model of unknown layers does).
"""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

from torchestimator.keras._registry import (
    deserialize_keras_object as _deserialize_keras_object,
)
from torchestimator.keras._registry import legacy_form as _legacy_form
from torchestimator.keras._registry import serialize_keras_object as _serialize_keras_object
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_layer import Input, InputLayer
from torchestimator.keras.engine.input_spec import InputSpec

#: The layers of each family (sub-package), as its `__all__` lists them (a test keeps this
#: table and the sub-packages in step).
_FAMILIES: dict[str, tuple[str, ...]] = {
    "activation": (
        "ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax",
        "ThresholdedReLU",
    ),
    "attention": (
        "AdditiveAttention", "Attention", "MultiHeadAttention",
    ),
    "convolutional": (
        "Conv1D", "Conv2D", "Conv2DTranspose", "Conv3D", "Convolution1D", "Convolution2D",
        "Convolution2DTranspose", "Convolution3D", "DepthwiseConv2D", "SeparableConv2D",
        "SeparableConvolution2D",
        "Conv1DTranspose", "Conv3DTranspose", "Convolution1DTranspose", "Convolution3DTranspose",
        "DepthwiseConv1D", "SeparableConv1D", "SeparableConvolution1D",
    ),
    "core": (
        "Activation", "Dense", "Dropout", "Embedding", "Flatten", "Lambda", "Masking", "Permute",
        "RepeatVector", "Reshape",
        "EinsumDense", "Identity",
    ),
    "image_preprocessing": (
        "CenterCrop", "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip",
        "RandomHeight", "RandomRotation", "RandomTranslation", "RandomWidth", "RandomZoom",
        "Resizing",
    ),
    "merging": (
        "Add", "Average", "Concatenate", "Dot", "Maximum", "Minimum", "Multiply", "Subtract", "add",
        "average", "concatenate", "dot", "maximum", "minimum", "multiply", "subtract",
    ),
    "normalization": (
        "BatchNormalization", "GroupNormalization", "LayerNormalization", "UnitNormalization",
        "SpectralNormalization",
    ),
    "locally_connected": (
        "LocallyConnected1D", "LocallyConnected2D",
    ),
    "pooling": (
        "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D", "AvgPool2D",
        "AvgPool3D", "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D",
        "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
        "GlobalMaxPool3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D",
        "MaxPool1D", "MaxPool2D", "MaxPool3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
    ),
    "preprocessing": (
        "CategoryEncoding", "Hashing", "IntegerLookup", "Normalization", "Rescaling", "StringLookup",
        "Discretization", "HashedCrossing", "TextVectorization",
    ),
    "regularization": (
        "ActivityRegularization", "GaussianDropout", "GaussianNoise", "SpatialDropout1D",
        "SpatialDropout2D",
        "AlphaDropout", "SpatialDropout3D",
    ),
    "reshaping": (
        "Cropping1D", "Cropping2D", "UpSampling1D", "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D",
        "Cropping3D", "UpSampling3D", "ZeroPadding3D",
    ),
    "rnn": (
        "Bidirectional", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "GRU", "GRUCell", "LSTM", "LSTMCell",
        "RNN", "SimpleRNN", "SimpleRNNCell", "StackedRNNCells", "TimeDistributed",
        "AbstractRNNCell", "Wrapper",
    ),
}
_FAMILY_OF = {name: family for family, names in _FAMILIES.items() for name in names}

__all__ = sorted([
    "Layer", "Input", "InputLayer", "InputSpec", "DenseFeatures", "serialize", "deserialize", *_FAMILY_OF,
])


def serialize(layer: Layer, use_legacy_format: bool = False) -> dict:
    """Returns the layer's config as `{"class_name": ..., "config": ..., "registered_name": ...}`
    (`tf.keras.layers.serialize`); with `use_legacy_format=True`, as Keras 2.15's legacy
    format, only `{"class_name": ..., "config": ...}`."""
    serialized = _serialize_keras_object(layer)
    return _legacy_form(serialized) if use_legacy_format else serialized


def deserialize(config: dict, custom_objects: dict | None = None,
                use_legacy_format: bool = False) -> Layer:
    """Returns the layer `serialize` described (`tf.keras.layers.deserialize`); `custom_objects`
    maps the names of layers not built in to their classes. Both formats are read whatever
    `use_legacy_format` says (the legacy one is the same dict without `registered_name`)."""
    del use_legacy_format
    return _deserialize_keras_object(config, custom_objects=custom_objects)


def __getattr__(name: str) -> _Any:
    family = _FAMILY_OF.get(name)
    if family is not None:
        value = getattr(_importlib.import_module(f"torchestimator.keras.layers.{family}"), name)
    elif name == "DenseFeatures":  # the feature-column layers: keras/feature_column/
        from torchestimator.keras.feature_column._dense_features import (  # lazy: heavy (loads the feature columns), loaded when used
            DenseFeatures as value,
        )
    elif name == "experimental":  # tf.keras.layers.experimental.SyncBatchNormalization
        value = _importlib.import_module("torchestimator.keras.layers.experimental")
    else:
        raise AttributeError(f"module 'torchestimator.keras.layers' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _import_all() -> None:
    """Imports every layer family (each layer registers itself for deserialisation)."""
    for family in _FAMILIES:
        _importlib.import_module(f"torchestimator.keras.layers.{family}")
