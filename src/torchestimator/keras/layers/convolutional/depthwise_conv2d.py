"""`DepthwiseConv2D`: a 2D convolution applied to each input channel separately."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.convolutional.base_depthwise_conv import DepthwiseConv


class DepthwiseConv2D(DepthwiseConv):
    """Depthwise 2D convolution.

    Each input channel is convolved with its own set of `depth_multiplier`
    filters (a grouped convolution with `groups = in_channels`); the outputs are
    concatenated, giving `in_channels * depth_multiplier` channels (channel
    `c * depth_multiplier + m` comes from input channel `c`'s filter `m`).
    `depthwise_kernel` has Keras' layout `kernel_size + (in_channels, depth_multiplier)`.

    Args:
        kernel_size: An integer or tuple of 2 integers, the size of the window.
        strides: An integer or tuple of 2 integers.
        padding: "valid" or "same".
        depth_multiplier: The number of depthwise convolution output channels for
            each input channel.
        data_format: 'channels_last' (default) or 'channels_first'.
        dilation_rate: An integer or tuple of 2 integers.
        activation: Activation function (None: linear).
        use_bias: Boolean, whether the layer uses a bias vector.
        depthwise_initializer: Initializer for the depthwise kernel ('glorot_uniform').
        bias_initializer: Initializer for the bias ('zeros').
        depthwise_regularizer / bias_regularizer / activity_regularizer: Regularizers.
        depthwise_constraint / bias_constraint: Constraints.

    Returns (when called): a 4D tensor with `in_channels * depth_multiplier` channels.
    """

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(
            2, kernel_size, strides=strides, padding=padding, depth_multiplier=depth_multiplier,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            use_bias=use_bias, depthwise_initializer=depthwise_initializer,
            bias_initializer=bias_initializer, depthwise_regularizer=depthwise_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint, bias_constraint=bias_constraint, **kwargs,
        )
