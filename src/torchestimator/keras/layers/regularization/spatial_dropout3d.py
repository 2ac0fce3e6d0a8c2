"""`SpatialDropout3D`: drop entire 3D feature maps instead of elements."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.convolutional._utils import normalize_data_format
from torchestimator.keras.layers.core.dropout import Dropout, dropout_mask


class SpatialDropout3D(Dropout):
    """Spatial 3D version of Dropout.

    Drops entire 3D feature maps (channels) instead of individual elements:
    one mask value per (sample, channel), shared over the three spatial
    dimensions; kept maps are scaled by `1 / (1 - rate)`. Active only in training.

    Args:
        rate: Float between 0 and 1. Fraction of the input units to drop.
        data_format: 'channels_last' (default, `(samples, dim1, dim2, dim3,
            channels)`) or 'channels_first' (`(samples, channels, dim1, dim2, dim3)`).

    Returns (when called): a tensor of the input's shape.
    """

    def __init__(self, rate: float, data_format: str | None = None, **kwargs: Any):
        kwargs.pop("noise_shape", None)
        super().__init__(rate, **kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: torch.Tensor, training: bool | None = None) -> torch.Tensor:
        """In training, returns `inputs` with whole feature maps dropped; otherwise `inputs`."""
        if not training or self.rate == 0.0:
            return inputs
        n = inputs.shape[0]
        if self.data_format == "channels_last":
            shape = (n, 1, 1, 1, inputs.shape[4])
        else:
            shape = (n, inputs.shape[1], 1, 1, 1)
        return inputs * dropout_mask(shape, self.rate, inputs, self._noise.generator(inputs.device))

    def get_config(self) -> dict:
        """Returns `rate`, `seed` and `data_format` with the base layer's config."""
        config = super().get_config()
        config.pop("noise_shape", None)
        config["data_format"] = self.data_format
        return config
