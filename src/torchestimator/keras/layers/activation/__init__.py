"""Keras layers: activation (Softmax, ReLU, LeakyReLU, PReLU, ELU)."""

from torchestimator.keras.layers.activation.elu import ELU
from torchestimator.keras.layers.activation.leaky_relu import LeakyReLU
from torchestimator.keras.layers.activation.prelu import PReLU
from torchestimator.keras.layers.activation.relu import ReLU
from torchestimator.keras.layers.activation.softmax import Softmax
from torchestimator.keras.layers.activation.thresholded_relu import ThresholdedReLU

__all__ = [
    "ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax", "ThresholdedReLU",
]
