"""`LocallyConnected`: the N-D locally connected layer behind LocallyConnected1D/2D
(unshared weights; Keras' three `implementation` weight layouts)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import torch

from torchestimator.keras import activations, constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import (
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
)


def connected_inputs(
    input_shape: tuple, kernel: tuple, position: tuple, strides: tuple, padding: str
) -> list[range]:
    """The input ranges connected to output `position` (Keras' `conv_connected_inputs`)."""
    ranges = []
    for d in range(len(input_shape)):
        left = kernel[d] // 2
        center = position[d] * strides[d] + (left if padding == "valid" else 0)
        ranges.append(range(max(0, center - left), min(input_shape[d], center + kernel[d] - left)))
    return ranges


class LocallyConnected(Layer):
    """Abstract locally-connected layer (private): a convolution whose weights are not shared.

    `implementation=1` keeps a kernel `(positions, prod(kernel_size) * in_channels,
    filters)`; `2` a dense masked kernel `input_shape + output_shape` (in the data
    format's order); `3` only the connected entries, a vector in the order of Keras'
    sorted `(output index, input index)` pairs. The bias is `output_spatial + (filters,)`.
    """

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        implementation: int = 1,
        **kwargs: Any,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = filters
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = normalize_padding(padding)
        name = type(self).__name__
        if implementation not in (1, 2, 3):
            raise ValueError(
                f"Unrecognized implementation mode: {implementation!r}. {name} takes "
                "implementation 1, 2 or 3."
            )
        if self.padding != "valid" and implementation == 1:
            raise ValueError(
                f'Invalid border mode for {name} (only "valid" is supported if '
                f"implementation is 1): {padding}"
            )
        self.data_format = normalize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.implementation = implementation
        self.input_spec = InputSpec(ndim=rank + 2)

    # ------------------------------------------------------------------ shapes
    def _split(self, input_shape: tuple) -> tuple[tuple, Any]:
        """(spatial sizes, channels) of a Keras-layout shape."""
        if self.data_format == "channels_first":
            return tuple(input_shape[2:]), input_shape[1]
        return tuple(input_shape[1:-1]), input_shape[-1]

    def _output_spatial(self, spatial: tuple) -> tuple:
        return tuple(
            conv_output_length(n, k, self.padding, s)
            for n, k, s in zip(spatial, self.kernel_size, self.strides)
        )

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns `(batch, *output_spatial, filters)` (channels_last) or the channels_first one."""
        spatial, _ = self._split(tuple(input_shape))
        out = self._output_spatial(spatial)
        if self.data_format == "channels_first":
            return (input_shape[0], self.filters) + out
        return (input_shape[0],) + out + (self.filters,)

    # ------------------------------------------------------------------ build
    def build(self, input_shape: Any) -> None:
        """Creates `kernel` (in the layout of `implementation`) and `bias`."""
        input_shape = tuple(input_shape)
        spatial, channels = self._split(input_shape)
        if channels is None or any(n is None for n in spatial):
            raise ValueError(
                f'Layer "{self.name}": {type(self).__name__} needs fully defined spatial and '
                f"channel dimensions. Found shape: {input_shape}"
            )
        out = self._output_spatial(spatial)
        if any(n <= 0 for n in out):
            raise ValueError(
                "One of the dimensions in the output is <= 0 due to downsampling in "
                f"{self.name}. Consider increasing the input size. Received input shape "
                f"{input_shape} which would produce output shape with a zero or negative value "
                "in a dimension."
            )
        self._spatial, self._channels, self._out = spatial, int(channels), out
        first = self.data_format == "channels_first"
        if self.implementation == 1:
            shape: tuple = (math.prod(out), math.prod(self.kernel_size) * channels, self.filters)
        elif self.implementation == 2:
            if first:
                shape = (channels,) + spatial + (self.filters,) + out
            else:
                shape = spatial + (channels,) + out + (self.filters,)
            self._mask = torch.as_tensor(self._kernel_mask(spatial, out, first))
        else:
            idxs = sorted(self._kernel_idxs(spatial, out, int(channels), first))
            self._idxs = torch.as_tensor(np.asarray(idxs, dtype=np.int64).reshape(-1, 2))
            shape = (len(idxs),)
        self.kernel = self.add_weight(
            "kernel", shape=shape, initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
            trainable=True,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=out + (self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                trainable=True,
            )
        else:
            self.bias = None
        axis = 1 if first else -1
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={axis: int(channels)})
        self.built = True

    def _kernel_mask(self, spatial: tuple, out: tuple, first: bool) -> np.ndarray:
        mask = np.zeros(spatial + out, dtype=np.float32)
        for position in itertools.product(*(range(n) for n in out)):
            ranges = connected_inputs(spatial, self.kernel_size, position, self.strides,
                                      self.padding)
            for inp in itertools.product(*ranges):
                mask[inp + position] = 1.0
        if first:
            return mask.reshape((1,) + spatial + (1,) + out)
        return mask.reshape(spatial + (1,) + out + (1,))

    def _kernel_idxs(self, spatial: tuple, out: tuple, channels: int, first: bool) -> list:
        def flat(pos: tuple, f: int, dims: tuple, n: int) -> int:
            if first:
                return int(np.ravel_multi_index((f,) + pos, (n,) + dims))
            return int(np.ravel_multi_index(pos + (f,), dims + (n,)))

        idxs = []
        for position in itertools.product(*(range(n) for n in out)):
            ranges = connected_inputs(spatial, self.kernel_size, position, self.strides,
                                      self.padding)
            for inp in itertools.product(*ranges):
                for f_in in range(channels):
                    for f_out in range(self.filters):
                        idxs.append((flat(position, f_out, out, self.filters),
                                     flat(inp, f_in, spatial, channels)))
        return idxs

    # ------------------------------------------------------------------ call
    def _windows(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, positions, prod(kernel) * channels) patches in Keras' flattening order."""
        r, first = self.rank, self.data_format == "channels_first"
        start = 2 if first else 1
        for d in range(r):
            x = x.unfold(start + d, self.kernel_size[d], self.strides[d])
        # now (B, C, *out, *k) for channels_first, (B, *out, C, *k) for channels_last
        if first:
            order = (0,) + tuple(range(2, 2 + r)) + (1,) + tuple(range(2 + r, 2 + 2 * r))
        else:
            order = (0,) + tuple(range(1, 1 + r)) + tuple(range(2 + r, 2 + 2 * r)) + (1 + r,)
        x = x.permute(order)
        return x.reshape(x.shape[0], math.prod(self._out), -1)

    def _dense_kernel(self, kernel: torch.Tensor) -> torch.Tensor:
        """The (flat input, flat output) matrix of implementations 2 and 3."""
        n_in = math.prod(self._spatial) * self._channels
        n_out = math.prod(self._out) * self.filters
        if self.implementation == 2:
            if self._mask.device != kernel.device or self._mask.dtype != kernel.dtype:
                self._mask = self._mask.to(kernel.device, kernel.dtype)  # moved once, kept
            return (kernel * self._mask).reshape(n_in, n_out)
        if self._idxs.device != kernel.device:
            self._idxs = self._idxs.to(kernel.device)
        idxs = self._idxs
        dense = kernel.new_zeros((n_out, n_in))
        dense = dense.index_put((idxs[:, 0], idxs[:, 1]), kernel)
        return dense.t()

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `activation(local_conv(inputs, kernel) + bias)`."""
        kernel, bias = self.kernel, self.bias
        if self._compute_dtype != self._variable_dtype:
            kernel = kernel.to(self._compute_dtype)
            bias = None if bias is None else bias.to(self._compute_dtype)
        x = inputs.to(kernel.dtype) if inputs.dtype != kernel.dtype else inputs
        first = self.data_format == "channels_first"
        batch = x.shape[0]
        if self.implementation == 1:
            y = torch.einsum("bpf,pfo->bpo", self._windows(x), kernel)
            if first:
                y = y.permute(0, 2, 1).reshape((batch, self.filters) + self._out)
            else:
                y = y.reshape((batch,) + self._out + (self.filters,))
        else:
            y = x.reshape(batch, -1) @ self._dense_kernel(kernel)
            shape = (self.filters,) + self._out if first else self._out + (self.filters,)
            y = y.reshape((batch,) + shape)
        if bias is not None:
            # Keras' bias_add reshapes (not transposes) the bias for channels_first
            shape = (1, self.filters) + self._out if first else (1,) + tuple(bias.shape)
            y = y + bias.reshape(shape)
        if self.activation is not None:
            y = self.activation(y)
        return y

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
                "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
                "implementation": self.implementation,
            }
        )
        return config
