"""Keras layers: locally connected (LocallyConnected1D/2D: convolutions with unshared weights)."""

from torchestimator.keras.layers.locally_connected.locally_connected1d import LocallyConnected1D
from torchestimator.keras.layers.locally_connected.locally_connected2d import LocallyConnected2D

__all__ = ["LocallyConnected1D", "LocallyConnected2D"]
