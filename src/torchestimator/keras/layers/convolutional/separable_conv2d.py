"""`SeparableConv2D`: a depthwise 2D convolution followed by a pointwise (1x1) one."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.convolutional.base_separable_conv import SeparableConv


class SeparableConv2D(SeparableConv):
    """Depthwise separable 2D convolution.

    First a depthwise spatial convolution (which acts on each input channel
    separately, `depth_multiplier` filters each), then a pointwise 1x1
    convolution that mixes the resulting channels into `filters` outputs.
    Weights (Keras' layout): `depthwise_kernel` `kernel_size + (in_channels,
    depth_multiplier)`, `pointwise_kernel` `(1, 1, in_channels * depth_multiplier,
    filters)`, `bias` `(filters,)`.

    Args:
        filters: Integer, the dimensionality of the output space.
        kernel_size, strides, padding ("valid" or "same"), data_format,
        dilation_rate: as for `Conv2D`.
        depth_multiplier: The number of depthwise output channels for each input channel.
        activation, use_bias: as for `Conv2D`.
        depthwise_initializer / pointwise_initializer / bias_initializer: Initializers
            ('glorot_uniform', 'glorot_uniform', 'zeros').
        depthwise_regularizer / pointwise_regularizer / bias_regularizer /
        activity_regularizer: Regularizers.
        depthwise_constraint / pointwise_constraint / bias_constraint: Constraints.

    Returns (when called): a 4D tensor with `filters` channels.
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(
            2, filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, depth_multiplier=depth_multiplier, activation=activation,
            use_bias=use_bias, depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer, pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint, **kwargs,
        )


SeparableConvolution2D = SeparableConv2D
