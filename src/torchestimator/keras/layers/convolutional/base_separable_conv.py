"""`SeparableConv`: the depthwise separable convolution of `SeparableConv1D` and
`SeparableConv2D`, for any rank: a depthwise convolution (each input channel with its own
`depth_multiplier` filters) then a pointwise one (kernel size 1) mixing the channels into
`filters` outputs, with Keras' weight layouts."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import positive_int
from torchestimator.keras.layers.convolutional.base_conv import Conv

_CONVOLUTIONS = {1: F.conv1d, 2: F.conv2d}


class SeparableConv(Conv):
    """The depthwise separable convolution of rank `rank` (1 or 2); the subclasses give the
    arguments and defaults of `SeparableConv1D` and `SeparableConv2D`."""

    def __init__(
        self,
        rank: int,
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
            rank=rank, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
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
        self.input_spec = InputSpec(ndim=rank + 2)

    def build(self, input_shape: Any) -> None:
        """Creates `depthwise_kernel`, `pointwise_kernel` and `bias`."""
        input_shape = tuple(input_shape)
        if len(input_shape) != self.rank + 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim={self.rank + 2}, found ndim={len(input_shape)}. Full shape received: "
                f"{input_shape}"
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
            shape=(1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            trainable=True,
        )
        self._add_bias(self.filters)
        self._channels = channels
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._layout.channel_axis: channels})
        self.built = True

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(pointwise(depthwise(inputs)) + bias)`."""
        layout = self._layout
        x = inputs.permute(layout.to_torch) if layout.channels_last else inputs
        padding, explicit = self._torch_padding(tuple(x.shape[2:]))
        if explicit is not None:
            x = F.pad(x, explicit)
        dk, r = self.depthwise_kernel, self.rank
        depthwise = dk.permute(r, r + 1, *range(r)).reshape(-1, 1, *dk.shape[:r])
        pointwise = self.pointwise_kernel.permute(r + 1, r, *range(r))
        bias = self.bias
        if x.dtype != dk.dtype:
            x, depthwise, bias = self._match_dtypes(x, depthwise, bias)
            pointwise = pointwise.to(depthwise.dtype)
        conv = _CONVOLUTIONS[r]
        y = conv(x, depthwise, None, self.strides, padding, self.dilation_rate, self._channels)
        y = conv(y, pointwise, bias)
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

