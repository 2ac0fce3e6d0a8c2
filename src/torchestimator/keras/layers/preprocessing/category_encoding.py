"""`CategoryEncoding`: integer category ids to one-hot, multi-hot or count vectors
(`tf.keras.layers.CategoryEncoding`)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator.keras.engine import shape_inference as _shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.preprocessing import _encoding, _inputs

_MODES = (_encoding.COUNT, _encoding.ONE_HOT, _encoding.MULTI_HOT)


class CategoryEncoding(Layer):
    """A preprocessing layer which encodes integer features as one-hot, multi-hot or counts.

    Args:
        num_tokens: the total number of tokens; inputs must be in `[0, num_tokens)`.
        output_mode: 'multi_hot' (default; the last axis is the sample, output
            `(..., num_tokens)` with 1 where a token occurs), 'one_hot' (each
            element becomes a vector; a last axis of size 1 is replaced), or
            'count' (like multi_hot, with the number of occurrences).
        sparse: return a torch sparse COO tensor.

    Call arguments: `inputs` (integers), `count_weights` (same shape as the
    inputs, 'count' mode only: weights summed instead of counts).
    Raises ValueError when an input is outside `[0, num_tokens)`.
    """

    def __init__(
        self, num_tokens: int | None = None, output_mode: str = "multi_hot", sparse: bool = False,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = _encoding.MULTI_HOT
        if output_mode not in _MODES:
            raise ValueError(
                f"Unknown value for `output_mode`. Allowed values are {list(_MODES)}. Received: "
                f"output_mode={output_mode!r}"
            )
        if num_tokens is None:
            raise ValueError(
                "num_tokens must be set to use this layer. If the number of tokens is not known "
                "beforehand, use the IntegerLookup layer instead."
            )
        if isinstance(num_tokens, bool) or not hasattr(num_tokens, "__index__") or num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens!r}.")
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode
        self.sparse = bool(sparse)

    def call(self, inputs: Any, count_weights: Any = None) -> torch.Tensor:
        """Returns the encoded inputs, shape `(..., num_tokens)`, in the compute dtype."""
        if not isinstance(inputs, torch.Tensor):
            inputs = torch.as_tensor(_inputs.to_numpy(inputs, "CategoryEncoding"))
        if inputs.is_floating_point():
            inputs = inputs.to(torch.int64)
        if count_weights is not None:
            if self.output_mode != _encoding.COUNT:
                raise ValueError(
                    "`count_weights` is not used when `output_mode` is not `'count'`. Received "
                    f"output_mode={self.output_mode!r}."
                )
            count_weights = torch.as_tensor(count_weights, device=inputs.device)
        if inputs.numel() and inputs.device.type != "meta" and not CONTEXT.tracing:
            low, high = int(inputs.min()), int(inputs.max())
            if low < 0 or high >= self.num_tokens:
                raise ValueError(
                    f'CategoryEncoding "{self.name}": input values must be in the range '
                    f"0 <= values < num_tokens with num_tokens={self.num_tokens}; received values "
                    f"from {low} to {high}. Increase num_tokens or map the values into range "
                    "(e.g. with IntegerLookup)."
                )
        return _encoding.encode(
            inputs, self.output_mode, self.num_tokens, self._compute_dtype,
            sparse=self.sparse, count_weights=count_weights,
        )

    def compute_output_signature(self, input_spec: Any) -> Any:
        """The `TensorSpec`(s) of the outputs for inputs of `input_spec` (TF's name), with the
        dtype the layer outputs."""
        return _shape_inference.output_signature(self, input_spec)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """`(..., num_tokens)` (see `output_mode`)."""
        return _encoding.encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def compute_output_spec(self, inputs: Any, count_weights: Any = None) -> KerasTensor:
        """The symbolic output for a symbolic input."""
        if inputs.dtype is _dtypes.string:
            raise ValueError(f'CategoryEncoding "{self.name}" takes integer inputs, not strings.')
        return KerasTensor(self.compute_output_shape(inputs.shape), self._compute_dtype)

    def get_config(self) -> dict:
        """Returns `num_tokens`, `output_mode` and `sparse`."""
        config = super().get_config()
        config.update({
            "num_tokens": self.num_tokens, "output_mode": self.output_mode, "sparse": self.sparse,
        })
        return config

