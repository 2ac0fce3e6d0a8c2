"""`UnitNormalization`: scales each example to unit L2 norm along `axis`."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.linalg_ops import l2_normalize
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.normalization._axes import check_axis_arg


class UnitNormalization(Layer):
    """Unit normalization layer.

    Normalize a batch of inputs so that each input in the batch has a L2 norm
    equal to 1 (across the axes specified in `axis`), as
    `tf.math.l2_normalize(x, axis, epsilon=1e-12)`:
    `x / sqrt(max(sum(x ** 2, axis), 1e-12))`.

    Args:
        axis: Integer or list/tuple of integers, the axis or axes to normalize across (-1).

    Returns (when called): a tensor of the input's shape.
    """

    def __init__(self, axis: Any = -1, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = check_axis_arg(axis, "UnitNormalization")
        self._dims = self.axis if isinstance(self.axis, int) else tuple(self.axis)
        self.supports_masking = True

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `inputs` scaled to unit L2 norm along `axis`."""
        x = inputs if inputs.is_floating_point() else inputs.to(self._compute_dtype)
        return l2_normalize(x, self._dims)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `input_shape` unchanged."""
        return input_shape

    def get_config(self) -> dict:
        """Returns `axis` with the base layer's config."""
        config = super().get_config()
        config["axis"] = self.axis
        return config
