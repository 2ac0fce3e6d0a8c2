"""`DepthwiseConv`: the depthwise convolution of `DepthwiseConv1D` and `DepthwiseConv2D`, for
any rank: each input channel convolved with its own `depth_multiplier` filters (a grouped
convolution with `groups = in_channels`), Keras' kernel layout `kernel_size + (in_channels,
depth_multiplier)`."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import positive_int
from torchestimator.keras.layers.convolutional.base_conv import Conv

_CONVOLUTIONS = {1: F.conv1d, 2: F.conv2d}


class DepthwiseConv(Conv):
    """The depthwise convolution of rank `rank` (1 or 2); the subclasses give the arguments
    and defaults of `DepthwiseConv1D` and `DepthwiseConv2D`."""

    def __init__(
        self,
        rank: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = 1,
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
        kwargs.pop("groups", None)  # Keras 2 configs carry Conv's groups=1
        kwargs.pop("filters", None)
        super().__init__(
            rank=rank, filters=None, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            use_bias=use_bias, bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint, **kwargs,
        )
        self.depth_multiplier = positive_int(depth_multiplier, "depth_multiplier")
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.input_spec = InputSpec(ndim=rank + 2)

    def _wrong_rank(self, input_shape: tuple) -> str:
        """The error message for an input of another rank (Keras' wording)."""
        return (f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim={self.rank + 2}, found ndim={len(input_shape)}. Full shape received: "
                f"{input_shape}")

    def build(self, input_shape: Any) -> None:
        """Creates `depthwise_kernel` (`kernel_size + (in_channels, depth_multiplier)`) and
        `bias`."""
        input_shape = tuple(input_shape)
        if len(input_shape) != self.rank + 2:
            raise ValueError(self._wrong_rank(input_shape))
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
        self._add_bias(channels * self.depth_multiplier)
        self._channels = channels
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._layout.channel_axis: channels})
        self.built = True

    def _torch_kernel(self) -> torch.Tensor:
        """The depthwise kernel as torch's grouped weight `(in * multiplier, 1, *kernel_size)`."""
        k, r = self.depthwise_kernel, self.rank
        return k.permute(r, r + 1, *range(r)).reshape(-1, 1, *k.shape[:r])

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(depthwise_conv(inputs) + bias)`."""
        layout = self._layout
        x = inputs.permute(layout.to_torch) if layout.channels_last else inputs
        padding, explicit = self._torch_padding(tuple(x.shape[2:]))
        if explicit is not None:
            x = F.pad(x, explicit)
        weight, bias = self._torch_kernel(), self.bias
        if x.dtype != weight.dtype:
            x, weight, bias = self._match_dtypes(x, weight, bias)
        y = _CONVOLUTIONS[self.rank](x, weight, bias, self.strides, padding, self.dilation_rate, self._channels)
        if layout.channels_last:
            y = y.permute(layout.from_torch)
        act = self._act
        return y if act is None else act(y)

    def _output_channels(self, input_shape: tuple) -> Any:
        channels = input_shape[self._layout.channel_axis]
        return None if channels is None else channels * self.depth_multiplier

    def get_config(self) -> dict:
        """Returns the layer's arguments with the base layer's config."""
        config = super().get_config()
        for key in ("filters", "groups", "kernel_initializer", "kernel_regularizer",
                    "kernel_constraint"):
            config.pop(key)
        config.update(
            {
                "depth_multiplier": self.depth_multiplier,
                "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
                "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
                "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
            }
        )
        return config
