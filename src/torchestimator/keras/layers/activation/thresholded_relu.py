"""`ThresholdedReLU`: `x` where `x > theta`, else 0."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.keras.engine.base_layer import Layer


class ThresholdedReLU(Layer):
    """Thresholded Rectified Linear Unit.

    It follows `f(x) = x` for `x > theta`, `f(x) = 0` otherwise.

    Args:
        theta: Float >= 0, the threshold location of activation (default 1.0).

    Returns (when called): a tensor of the input's shape.
    """

    def __init__(self, theta: float = 1.0, **kwargs: Any):
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError(
                "Theta of a Thresholded ReLU layer cannot be None, expecting a float. "
                f"Received: {theta}"
            )
        if isinstance(theta, bool) or not isinstance(theta, (int, float, np.number)):
            raise ValueError(
                f"Theta of a Thresholded ReLU layer must be a float >= 0. Received: {theta!r}"
            )
        if theta < 0:
            raise ValueError(
                f"The theta value of a Thresholded ReLU layer should be >=0. Received: {theta}"
            )
        self.supports_masking = True
        self.theta = float(np.float32(theta))  # Keras casts theta to floatx

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `inputs * (inputs > theta)`."""
        return inputs * (inputs > self.theta).to(inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `input_shape` unchanged."""
        return input_shape

    def get_config(self) -> dict:
        """Returns `theta` with the base layer's config."""
        config = super().get_config()
        config["theta"] = float(self.theta)
        return config
