"""Keras layers: reshaping (ZeroPadding1D/2D, UpSampling1D/2D, Cropping1D/2D)."""

from torchestimator.keras.layers.reshaping.cropping import Cropping1D, Cropping2D
from torchestimator.keras.layers.reshaping.cropping3d import Cropping3D
from torchestimator.keras.layers.reshaping.up_sampling import UpSampling1D, UpSampling2D
from torchestimator.keras.layers.reshaping.up_sampling3d import UpSampling3D
from torchestimator.keras.layers.reshaping.zero_padding import ZeroPadding1D, ZeroPadding2D
from torchestimator.keras.layers.reshaping.zero_padding3d import ZeroPadding3D

__all__ = [
    "Cropping1D", "Cropping2D", "Cropping3D", "UpSampling1D", "UpSampling2D", "UpSampling3D",
    "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D",
]
