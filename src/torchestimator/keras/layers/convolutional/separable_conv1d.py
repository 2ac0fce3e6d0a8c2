"""`SeparableConv1D`: a depthwise 1D convolution followed by a pointwise one."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import positive_int
from torchestimator.keras.layers.convolutional.base_conv import Conv


class SeparableConv1D(Conv):
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
        kwargs.pop("groups", None)
        super().__init__(
            rank=1, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            use_bias=use_bias, bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint, **kwargs,
        )
        self.depth_multiplier = positive_int(depth_multiplier, "depth_multiplier")
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape: Any) -> None:
        """Creates `depthwise_kernel`, `pointwise_kernel` and `bias`."""
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim=3, found ndim={len(input_shape)}. Full shape received: {input_shape}"
            )
        channels = self._input_channel(input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            trainable=True,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=(1, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            trainable=True,
        )
        self._add_bias(self.filters)
        self._channels = channels
        self.input_spec = InputSpec(ndim=3, axes={self._layout.channel_axis: channels})
        self.built = True

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(pointwise(depthwise(inputs)) + bias)`."""
        layout = self._layout
        x = inputs.permute(layout.to_torch) if layout.channels_last else inputs
        padding, explicit = self._torch_padding(tuple(x.shape[2:]))
        if explicit is not None:
            x = F.pad(x, explicit)
        dk = self.depthwise_kernel
        depthwise = dk.permute(1, 2, 0).reshape(-1, 1, dk.shape[0])
        pointwise = self.pointwise_kernel.permute(2, 1, 0)
        bias = self.bias
        if x.dtype != dk.dtype:
            x, depthwise, bias = self._match_dtypes(x, depthwise, bias)
            pointwise = pointwise.to(depthwise.dtype)
        y = F.conv1d(x, depthwise, None, self.strides, padding, self.dilation_rate, self._channels)
        y = F.conv1d(y, pointwise, bias)
        if layout.channels_last:
            y = y.permute(layout.from_torch)
        act = self._act
        return y if act is None else act(y)

    def get_config(self) -> dict:
        """Returns the layer's arguments with the base layer's config."""
        config = super().get_config()
        for key in ("groups", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key)
        config.update(
            {
                "depth_multiplier": self.depth_multiplier,
                "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
                "pointwise_initializer": initializers.serialize(self.pointwise_initializer),
                "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
                "pointwise_regularizer": regularizers.serialize(self.pointwise_regularizer),
                "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
                "pointwise_constraint": constraints.serialize(self.pointwise_constraint),
            }
        )
        return config


SeparableConvolution1D = SeparableConv1D
