"""`SeparableConv1D`: a depthwise 1D convolution followed by a pointwise one."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.layers.convolutional.base_separable_conv import SeparableConv


class SeparableConv1D(SeparableConv):
    """Depthwise separable 1D convolution.

    First a depthwise convolution over the steps (each input channel separately,
    `depth_multiplier` filters each), then a pointwise convolution (kernel size 1)
    that mixes the resulting channels into `filters` outputs. Weights (Keras'
    layout): `depthwise_kernel` `(kernel_size, in_channels, depth_multiplier)`,
    `pointwise_kernel` `(1, in_channels * depth_multiplier, filters)`, `bias` `(filters,)`.

    Args:
        filters: Integer, the dimensionality of the output space.
        kernel_size: An integer or tuple of 1 integer, the length of the window.
        strides: An integer or tuple of 1 integer, the stride of the convolution.
        padding: "valid", "same" or "causal" (left padding, for temporal models).
        data_format: 'channels_last' (default) or 'channels_first'.
        dilation_rate: An integer or tuple of 1 integer.
        depth_multiplier: The number of depthwise output channels for each input channel.
        activation, use_bias: as for `Conv1D`.
        depthwise_initializer / pointwise_initializer / bias_initializer: Initializers
            ('glorot_uniform', 'glorot_uniform', 'zeros').
        depthwise_regularizer / pointwise_regularizer / bias_regularizer /
        activity_regularizer: Regularizers.
        depthwise_constraint / pointwise_constraint / bias_constraint: Constraints.

    Returns (when called): a 3D tensor with `filters` channels.
    """

    _allowed_padding = ("valid", "same", "causal")

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
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
            1, filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, depth_multiplier=depth_multiplier, activation=activation,
            use_bias=use_bias, depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer, pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint, **kwargs,
        )


SeparableConvolution1D = SeparableConv1D
