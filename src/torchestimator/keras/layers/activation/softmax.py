"""`Softmax`: the softmax activation as a layer, with an optional mask."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.engine.base_layer import Layer


def _large_negative(dtype: torch.dtype) -> float:
    return -65500.0 if dtype == torch.float16 else -1e9


class Softmax(Layer):
    """Softmax activation function.

    `softmax(x) = exp(x) / sum(exp(x), axis)`. With a mask (True = keep), the
    masked positions get a large negative value added first, so they receive
    ~0 probability.

    Args:
        axis: Integer, or list of integers, axis along which the softmax
            normalization is applied (-1).

    Call arguments: `inputs`, `mask` (a boolean tensor broadcastable to the inputs).
    Returns (when called): a tensor of the input's shape.
    """

    def __init__(self, axis: Any = -1, **kwargs: Any):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            axis = list(axis)
            if not axis or not all(isinstance(a, int) for a in axis):
                raise TypeError(f"Softmax: `axis` must be an int or a list of ints; received {axis}")
        elif isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Softmax: `axis` must be an int or a list of ints; received {axis!r}")
        self.axis = axis
        self.supports_masking = True

    def call(self, inputs: torch.Tensor, mask: Any = None) -> torch.Tensor:
        """Returns the softmax of `inputs` along `axis` (masked positions get ~0)."""
        if mask is not None:
            adder = (1.0 - mask.to(inputs.dtype)) * _large_negative(inputs.dtype)
            inputs = inputs + adder
        if isinstance(self.axis, int):
            output = torch.softmax(inputs, dim=self.axis)
            output._keras_logits = inputs  # TF's losses take a Softmax op's input as the logits
            return output
        return torch.exp(inputs - torch.logsumexp(inputs, dim=self.axis, keepdim=True))

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Returns `input_shape` unchanged."""
        return input_shape

    def get_config(self) -> dict:
        """Returns `axis` with the base layer's config."""
        config = super().get_config()
        config["axis"] = self.axis
        return config
