"""`AlphaDropout`: dropout that keeps the mean and variance of SELU activations."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.core.dropout import SeededNoise, check_rate

_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946
_ALPHA_P = -_ALPHA * _SCALE


class AlphaDropout(Layer):
    """Applies Alpha Dropout to the input.

    Alpha Dropout is a `Dropout` that keeps mean and variance of inputs to
    their original values, in order to ensure the self-normalizing property
    even after this dropout: dropped units are set to SELU's negative
    saturation value `-alpha * scale`, then an affine transformation
    `a * x + b` restores the mean and variance. Active only in training and
    only when `0 < rate < 1`.

    Args:
        rate: Float, drop probability (as with `Dropout`).
        noise_shape: Shape of the keep/drop mask (None: the input's shape).
        seed: Integer, optional random seed to enable deterministic behavior.

    Returns (when called): a tensor of the input's shape.
    """

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any
    ):
        super().__init__(**kwargs)
        self.rate = check_rate(rate)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self._noise = SeededNoise(seed)
        self.supports_masking = True

    def call(self, inputs: torch.Tensor, training: bool | None = None) -> torch.Tensor:
        """In training, returns `a * (inputs * kept + alpha_p * (1 - kept)) + b`; otherwise
        `inputs` unchanged."""
        rate = self.rate
        if not training or not 0.0 < rate < 1.0:
            return inputs
        shape = tuple(inputs.shape) if not self.noise_shape else self.noise_shape
        uniform = torch.empty(shape, dtype=inputs.dtype, device=inputs.device)
        uniform.uniform_(generator=self._noise.generator(inputs.device))
        kept = (uniform >= rate).to(inputs.dtype)
        a = ((1 - rate) * (1 + rate * _ALPHA_P**2)) ** -0.5
        b = -a * _ALPHA_P * rate
        return a * (inputs * kept + _ALPHA_P * (1 - kept)) + b

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `input_shape` unchanged."""
        return input_shape

    def get_config(self) -> dict:
        """Returns `rate` and `seed` with the base layer's config (Keras omits `noise_shape`)."""
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config
