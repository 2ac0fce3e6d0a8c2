"""`Identity`: a placeholder layer that returns its input."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.engine.base_layer import Layer


class Identity(Layer):
    """Identity layer.

    This layer should be used as a placeholder when no operation is to be
    performed. The layer is argument insensitive, and returns its `inputs`
    argument as output (any nest of tensors).

    Args:
        name: An optional name string for the layer.

    Returns (when called): `inputs`, unchanged.
    """

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs: Any) -> Any:
        """Returns `inputs` unchanged."""
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `input_shape` unchanged."""
        return input_shape
