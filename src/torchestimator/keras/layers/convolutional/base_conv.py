"""`Conv`: the N-D convolution behind Conv1D/2D/3D — Keras' weights and data layout,
torch's fused convolution kernels."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras import activations, constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import (
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    same_padding,
)
from torchestimator.keras.layers.core._fast_activation import fast_activation

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def check_filters(filters: Any) -> int:
    """Returns `filters` as a positive int, else raises ValueError naming it."""
    if isinstance(filters, bool) or not isinstance(filters, (int, float)) or int(filters) != filters:
        raise ValueError(
            "Invalid value for argument `filters`. Expected a strictly positive integer. "
            f"Received filters={filters!r}."
        )
    if filters <= 0:
        raise ValueError(
            "Invalid value for argument `filters`. Expected a strictly positive value. "
            f"Received filters={filters}."
        )
    return int(filters)


class SpatialLayout:
    """Moves the channel axis of an N-D input to where torch wants it (dim 1) and back.

    For `channels_last` this is one `permute` each way, which costs no copy:
    the NHWC tensor viewed as NCHW is a `channels_last`-strided tensor, which
    torch's convolution and pooling kernels consume directly.
    """

    def __init__(self, rank: int, data_format: str):
        self.rank = rank
        self.channels_last = data_format == "channels_last"
        self.to_torch = (0, rank + 1) + tuple(range(1, rank + 1))
        self.from_torch = (0,) + tuple(range(2, rank + 2)) + (1,)
        self.channel_axis = -1 if self.channels_last else 1

    def spatial(self, shape: tuple) -> tuple:
        """The spatial dimensions of a Keras-layout shape."""
        return tuple(shape[1:-1]) if self.channels_last else tuple(shape[2:])

    def with_spatial(self, shape: tuple, spatial: tuple, channels: Any) -> tuple:
        """A Keras-layout shape with new spatial dimensions and channel count."""
        if self.channels_last:
            return (shape[0],) + tuple(spatial) + (channels,)
        return (shape[0], channels) + tuple(spatial)


class Conv(Layer):
    """Abstract N-D convolution layer (private, used as implementation base).

    Creates a convolution kernel of shape `kernel_size + (in_channels // groups,
    filters)` (Keras' layout) that is convolved with the input to produce a
    tensor of outputs; adds `bias` and applies `activation` if given.

    Args: see `Conv2D`.
    """

    rank = 2
    _allowed_padding: tuple = ("valid", "same")

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = None if filters is None else check_filters(filters)
        self.groups = groups or 1  # Keras 2: groups=None or 0 means 1
        if isinstance(self.groups, bool) or not isinstance(self.groups, int) or self.groups <= 0:
            raise ValueError(
                f"The `groups` argument must be a positive integer. Received: groups={groups!r}"
            )
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding, self._allowed_padding)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activations.get(activation)
        self._act = fast_activation(self.activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)
        self._layout = SpatialLayout(rank, self.data_format)
        self._conv = _CONV[rank]
        self._pad_cache: dict[tuple, tuple] = {}
        if self.filters is not None and self.filters % self.groups != 0:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={self.groups}, filters={self.filters}."
            )
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )

    # ------------------------------------------------------------------ build
    def _input_channel(self, input_shape: tuple) -> int:
        channels = input_shape[self._layout.channel_axis]
        if channels is None:
            raise ValueError(
                f'Layer "{self.name}": the channel dimension of the inputs should be defined. '
                f"The input_shape received is {input_shape}, where axis "
                f"{self._layout.channel_axis} (0-based) is the channel dimension, which found "
                "to be `None`."
            )
        return int(channels)

    def _check_rank(self, input_shape: tuple) -> None:
        if len(input_shape) < self.rank + 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"min_ndim={self.rank + 2}, found ndim={len(input_shape)}. Full shape received: "
                f"{input_shape}"
            )

    def build(self, input_shape: Any) -> None:
        """Creates `kernel` (kernel_size + (in_channels // groups, filters)) and `bias`."""
        input_shape = tuple(input_shape)
        self._check_rank(input_shape)
        channels = self._input_channel(input_shape)
        if channels % self.groups != 0:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of groups. "
                f"Received groups={self.groups}, but the input has {channels} channels (full "
                f"input shape is {input_shape})."
            )
        self.compute_output_shape(input_shape)  # raises for non-positive output sizes
        self.kernel = self.add_weight(
            "kernel",
            shape=self.kernel_size + (channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
        )
        self._add_bias(self.filters)
        self.input_spec = InputSpec(
            min_ndim=self.rank + 2, axes={self._layout.channel_axis: channels}
        )
        self.built = True

    def _add_bias(self, size: int) -> None:
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=(size,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                trainable=True,
            )
        else:
            self.bias = None

    # ------------------------------------------------------------------ call
    def _torch_padding(self, spatial: tuple) -> tuple:
        """(padding argument for torch, explicit F.pad list or None) for these input sizes."""
        cached = self._pad_cache.get(spatial)
        if cached is not None:
            return cached
        if self.padding == "valid":
            result: tuple = (0, None)
        elif self.padding == "causal":
            result = (0, [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0])
        else:
            pads = [
                same_padding(n, k, s, d)
                for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
            ]
            if all(a == b for a, b in pads):
                result = (tuple(a for a, _ in pads), None)
            else:
                explicit: list[int] = []
                for before, after in reversed(pads):  # F.pad lists the last dimension first
                    explicit += [before, after]
                result = (0, explicit)
        self._pad_cache[spatial] = result
        return result

    def _torch_kernel(self) -> torch.Tensor:
        """The kernel in torch's (out, in // groups, *kernel_size) layout (a view)."""
        r = self.rank
        return self.kernel.permute((r + 1, r) + tuple(range(r)))

    def _flatten_batch(self, inputs: torch.Tensor) -> tuple[torch.Tensor, tuple | None]:
        extra = inputs.dim() - (self.rank + 2)
        if extra <= 0:
            return inputs, None
        lead = tuple(inputs.shape[: extra + 1])
        return inputs.reshape((-1,) + tuple(inputs.shape[extra + 1 :])), lead

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(conv(inputs, kernel) + bias)` in the layer's data format."""
        inputs, lead = self._flatten_batch(inputs)
        layout = self._layout
        x = inputs.permute(layout.to_torch) if layout.channels_last else inputs
        padding, explicit = self._torch_padding(tuple(x.shape[2:]))
        if explicit is not None:
            x = F.pad(x, explicit)
        weight, bias = self._torch_kernel(), self.bias
        if x.dtype != weight.dtype:
            x, weight, bias = self._match_dtypes(x, weight, bias)
        y = self._conv(x, weight, bias, self.strides, padding, self.dilation_rate, self.groups)
        if layout.channels_last:
            y = y.permute(layout.from_torch)
        if lead is not None:
            y = y.reshape(lead + tuple(y.shape[1:]))
        act = self._act
        return y if act is None else act(y)

    def convolution_op(self, inputs: Any, kernel: Any) -> torch.Tensor:
        """The layer's convolution of `inputs` with `kernel` (Keras' layout: `kernel_size +
        (in_channels // groups, filters)`), without bias or activation: TF's
        `tf.nn.convolution` with the layer's strides, dilation rate and data format, 'same'
        padding as TF pads it and 'valid' for 'causal' (whose padding `call` adds). The groups
        follow from the kernel's input channels, as in TF. Subclasses override it to change
        the convolution (weight standardization, ...)."""
        x = inputs if isinstance(inputs, torch.Tensor) else torch.as_tensor(inputs)
        kernel = kernel if isinstance(kernel, torch.Tensor) else torch.as_tensor(kernel)
        r = self.rank
        x, lead = self._flatten_batch(x)
        layout = self._layout
        if layout.channels_last:
            x = x.permute(layout.to_torch)
        weight = kernel.permute((r + 1, r) + tuple(range(r)))
        if self.padding == "same":
            spatial = tuple(x.shape[2:])
            pads = [same_padding(n, k, s, d) for n, k, s, d in
                    zip(spatial, tuple(kernel.shape[:r]), self.strides, self.dilation_rate)]
            explicit: list[int] = []
            for before, after in reversed(pads):  # F.pad lists the last dimension first
                explicit += [before, after]
            if any(explicit):
                x = F.pad(x, explicit)
        groups = max(1, int(x.shape[1]) // int(kernel.shape[r]))
        y = self._conv(x, weight, None, self.strides, 0, self.dilation_rate, groups)
        if layout.channels_last:
            y = y.permute(layout.from_torch)
        if lead is not None:
            y = y.reshape(lead + tuple(y.shape[1:]))
        return y

    def _match_dtypes(self, x: torch.Tensor, weight: torch.Tensor, bias: Any) -> tuple:
        """Casts the weights to a mixed-precision compute dtype, or integer inputs to float."""
        if self._compute_dtype != self._variable_dtype:
            weight = weight.to(self._compute_dtype)
            bias = None if bias is None else bias.to(self._compute_dtype)
        return x.to(weight.dtype), weight, bias

    # ------------------------------------------------------------------ shapes & config
    def _spatial_output(self, spatial: tuple) -> tuple:
        return tuple(
            conv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )

    def _output_channels(self, input_shape: tuple) -> Any:
        return self.filters

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns the output shape; raises ValueError if a spatial output size is <= 0."""
        input_shape = tuple(input_shape)
        self._check_rank(input_shape)
        lead = input_shape[: len(input_shape) - self.rank - 1]
        core = (lead[0] if len(lead) == 1 else None,) + input_shape[len(lead):]
        spatial = self._spatial_output(self._layout.spatial(core))
        if any(n is not None and n <= 0 for n in spatial):
            raise ValueError(
                f'One of the dimensions in the output is <= 0 due to downsampling in layer "'
                f'{self.name}". Consider increasing the input size. Received input shape '
                f"{input_shape} which would produce output shape with a zero or negative value "
                "in a dimension."
            )
        out = self._layout.with_spatial(core, spatial, self._output_channels(input_shape))
        return tuple(lead) + out[1:]

    def get_config(self) -> dict:
        """Returns the layer's arguments with the base layer's config."""
        config = super().get_config()
        config.update(
            {
                "filters": self.filters,
                "kernel_size": self.kernel_size,
                "strides": self.strides,
                "padding": self.padding,
                "data_format": self.data_format,
                "dilation_rate": self.dilation_rate,
                "groups": self.groups,
                "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
            }
        )
        return config
