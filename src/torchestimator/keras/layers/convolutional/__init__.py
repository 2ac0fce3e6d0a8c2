"""Keras layers: convolutional (Conv1D/2D/3D, Conv2DTranspose, DepthwiseConv2D,
SeparableConv2D, and Keras' `Convolution*` aliases)."""

from torchestimator.keras.layers.convolutional.conv1d import Conv1D, Convolution1D
from torchestimator.keras.layers.convolutional.conv1d_transpose import (
    Conv1DTranspose,
    Convolution1DTranspose,
)
from torchestimator.keras.layers.convolutional.conv2d import Conv2D, Convolution2D
from torchestimator.keras.layers.convolutional.conv2d_transpose import (
    Conv2DTranspose,
    Convolution2DTranspose,
)
from torchestimator.keras.layers.convolutional.conv3d import Conv3D, Convolution3D
from torchestimator.keras.layers.convolutional.conv3d_transpose import (
    Conv3DTranspose,
    Convolution3DTranspose,
)
from torchestimator.keras.layers.convolutional.depthwise_conv1d import DepthwiseConv1D
from torchestimator.keras.layers.convolutional.depthwise_conv2d import DepthwiseConv2D
from torchestimator.keras.layers.convolutional.separable_conv1d import (
    SeparableConv1D,
    SeparableConvolution1D,
)
from torchestimator.keras.layers.convolutional.separable_conv2d import (
    SeparableConv2D,
    SeparableConvolution2D,
)

__all__ = [
    "Conv1D", "Conv1DTranspose", "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose",
    "Convolution1D", "Convolution1DTranspose", "Convolution2D", "Convolution2DTranspose",
    "Convolution3D", "Convolution3DTranspose", "DepthwiseConv1D", "DepthwiseConv2D",
    "SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D", "SeparableConvolution2D",
]
