"""`tf.keras.layers.experimental.preprocessing`: TF 2.x's older home of the preprocessing
layers (`preprocessing.Normalization()`, `preprocessing.RandomFlip(...)`), the same classes as
`tf.keras.layers`, and `PreprocessingLayer`, the base class of layers with `adapt`."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import layers as _layers
from torchestimator.keras.layers.experimental.preprocessing._base import PreprocessingLayer

_ALIASES = (
    "CategoryEncoding", "CenterCrop", "Discretization", "HashedCrossing", "Hashing",
    "IntegerLookup", "Normalization", "RandomContrast", "RandomCrop", "RandomFlip",
    "RandomHeight", "RandomRotation", "RandomTranslation", "RandomWidth", "RandomZoom",
    "Rescaling", "Resizing", "StringLookup", "TextVectorization",
)

__all__ = sorted(("PreprocessingLayer", *_ALIASES))


def __getattr__(name: str) -> Any:
    if name in _ALIASES:
        value = getattr(_layers, name)
        globals()[name] = value
        return value
    raise AttributeError(
        f"module 'torchestimator.keras.layers.experimental.preprocessing' has no attribute {name!r}"
    )


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
