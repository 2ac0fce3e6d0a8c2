"""Keras layers: regularization (GaussianNoise, GaussianDropout, SpatialDropout1D/2D,
ActivityRegularization; `Dropout` lives in core)."""

from torchestimator.keras.layers.regularization.activity_regularization import (
    ActivityRegularization,
)
from torchestimator.keras.layers.regularization.alpha_dropout import AlphaDropout
from torchestimator.keras.layers.regularization.gaussian_dropout import GaussianDropout
from torchestimator.keras.layers.regularization.gaussian_noise import GaussianNoise
from torchestimator.keras.layers.regularization.spatial_dropout import (
    SpatialDropout1D,
    SpatialDropout2D,
)
from torchestimator.keras.layers.regularization.spatial_dropout3d import SpatialDropout3D

__all__ = [
    "ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise",
    "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D",
]
