"""`ZeroPadding3D`: pad volumes with zeros along their three spatial dimensions."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import normalize_data_format
from torchestimator.keras.layers.reshaping._triples import pairs_3d, spatial_axes


class ZeroPadding3D(Layer):
    """Zero-padding layer for 3D data (spatial or spatio-temporal).

    Args:
        padding: Int, tuple of 3 ints (the same symmetric padding for each
            spatial dimension) or tuple of 3 tuples of 2 ints
            (`((left_dim1_pad, right_dim1_pad), (left_dim2_pad, right_dim2_pad),
            (left_dim3_pad, right_dim3_pad))`).
        data_format: 'channels_last' (default, `(batch, d1, d2, d3, channels)`)
            or 'channels_first'.

    Returns (when called): the padded 5D tensor.
    """

    def __init__(self, padding: Any = (1, 1, 1), data_format: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.padding = pairs_3d(padding, "padding")
        self.input_spec = InputSpec(ndim=5)
        pad: list[int] = [0, 0] if self.data_format == "channels_last" else []
        for before, after in reversed(self.padding):  # F.pad lists the last dimension first
            pad += [before, after]
        self._pad = tuple(pad)

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `inputs` padded with zeros along the 3 spatial axes."""
        return F.pad(inputs, self._pad)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns the input shape with the padded spatial sizes."""
        shape = list(input_shape)
        for axis, (a, b) in zip(spatial_axes(self.data_format), self.padding):
            shape[axis] = None if shape[axis] is None else shape[axis] + a + b
        return tuple(shape)

    def get_config(self) -> dict:
        """Returns `padding` and `data_format` with the base layer's config."""
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config
