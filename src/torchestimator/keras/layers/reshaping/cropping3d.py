"""`Cropping3D`: crop volumes along their three spatial dimensions."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import normalize_data_format
from torchestimator.keras.layers.reshaping._triples import pairs_3d, spatial_axes


class Cropping3D(Layer):
    """Cropping layer for 3D data (e.g. spatial or spatio-temporal).

    Args:
        cropping: Int, tuple of 3 ints (symmetric cropping of each of the 3
            spatial dimensions) or tuple of 3 tuples of 2 ints
            (`((left_dim1_crop, right_dim1_crop), (left_dim2_crop,
            right_dim2_crop), (left_dim3_crop, right_dim3_crop))`).
        data_format: 'channels_last' (default, `(batch, d1, d2, d3, channels)`)
            or 'channels_first' (`(batch, channels, d1, d2, d3)`).

    Returns (when called): the cropped 5D tensor.
    """

    def __init__(
        self, cropping: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.cropping = pairs_3d(cropping, "cropping")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `inputs` with `cropping` removed from both ends of each spatial axis."""
        self.compute_output_shape(tuple(inputs.shape))  # raises for crops too large
        index: list[Any] = [slice(None)] * 5
        for axis, (a, b) in zip(spatial_axes(self.data_format), self.cropping):
            index[axis] = slice(a, inputs.shape[axis] - b)
        return inputs[tuple(index)]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns the input shape less the cropped sizes; raises ValueError if a crop is not
        smaller than its dimension."""
        shape = list(input_shape)
        for axis, (a, b) in zip(spatial_axes(self.data_format), self.cropping):
            size = shape[axis]
            if size is None:
                continue
            if a + b >= size:
                raise ValueError(
                    f'Layer "{self.name}": values in `cropping` argument should be smaller than '
                    f"the corresponding spatial dimension of the input. Received: input_shape="
                    f"{tuple(input_shape)}, cropping={self.cropping}"
                )
            shape[axis] = size - a - b
        return tuple(shape)

    def get_config(self) -> dict:
        """Returns `cropping` and `data_format` with the base layer's config."""
        config = super().get_config()
        config.update({"cropping": self.cropping, "data_format": self.data_format})
        return config
