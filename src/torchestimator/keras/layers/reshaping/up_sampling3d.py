"""`UpSampling3D`: repeat the three spatial dimensions of volumes."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import normalize_data_format, normalize_tuple
from torchestimator.keras.layers.reshaping._triples import spatial_axes


class UpSampling3D(Layer):
    """Upsampling layer for 3D inputs.

    Repeats the 1st, 2nd and 3rd dimensions of the data by `size[0]`,
    `size[1]` and `size[2]` respectively.

    Args:
        size: Int, or tuple of 3 integers: the upsampling factors for dim1, dim2 and dim3.
        data_format: 'channels_last' (default, `(batch, d1, d2, d3, channels)`)
            or 'channels_first'.

    Returns (when called): the upsampled 5D tensor.
    """

    def __init__(self, size: Any = (2, 2, 2), data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.size = normalize_tuple(size, 3, "size")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `inputs` with each spatial element repeated `size` times per axis."""
        y = inputs
        for axis, factor in zip(spatial_axes(self.data_format), self.size):
            if factor != 1:
                y = torch.repeat_interleave(y, factor, dim=axis)
        return y

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns the input shape with the spatial sizes multiplied by `size`."""
        shape = list(input_shape)
        for axis, factor in zip(spatial_axes(self.data_format), self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * factor
        return tuple(shape)

    def get_config(self) -> dict:
        """Returns `size` and `data_format` with the base layer's config."""
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format})
        return config
