"""Keras layers: normalization (BatchNormalization, LayerNormalization,
GroupNormalization, UnitNormalization)."""

from torchestimator.keras.layers.normalization.batch_normalization import BatchNormalization
from torchestimator.keras.layers.normalization.group_normalization import GroupNormalization
from torchestimator.keras.layers.normalization.layer_normalization import LayerNormalization
from torchestimator.keras.layers.normalization.spectral_normalization import SpectralNormalization
from torchestimator.keras.layers.normalization.unit_normalization import UnitNormalization

__all__ = [
    "BatchNormalization", "GroupNormalization", "LayerNormalization", "SpectralNormalization",
    "UnitNormalization",
]
