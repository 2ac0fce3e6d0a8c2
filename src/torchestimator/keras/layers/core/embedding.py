"""`Embedding`: turns positive integers (indexes) into dense vectors of fixed size."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator._engine import loop
from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.convolutional._utils import positive_int


class Embedding(Layer):
    """Turns positive integers (indexes) into dense vectors of fixed size.

    e.g. `[[4], [20]] -> [[[0.25, 0.1]], [[0.6, -0.2]]]`. The embedding matrix
    `embeddings` has shape `(input_dim, output_dim)`, initialized uniformly in
    [-0.05, 0.05] by default. Float inputs are cast to integers.

    Args:
        input_dim: Integer. Size of the vocabulary, i.e. maximum integer index + 1.
        output_dim: Integer. Dimension of the dense embedding.
        embeddings_initializer: Initializer for the `embeddings` matrix ('uniform').
        embeddings_regularizer: Regularizer function applied to the `embeddings` matrix.
        activity_regularizer: Regularizer function applied to the output.
        embeddings_constraint: Constraint function applied to the `embeddings` matrix.
        mask_zero: Whether the input value 0 is a special "padding" value that
            should be masked out (the output carries the mask `inputs != 0`, which
            RNN and other mask-aware layers use). Index 0 then cannot be used in
            the vocabulary (input_dim should be vocabulary size + 1).
        input_length: Length of input sequences, when it is constant (needed to
            connect `Flatten` then `Dense` layers downstream).
        sparse: Keras 2.15 returned a `tf.SparseTensor` when True; torch layers
            take dense tensors, so only False is accepted.

    Returns (when called): a tensor of shape `input_shape + (output_dim,)`.
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        activity_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        input_length: Any = None,
        sparse: bool = False,
        **kwargs: Any,
    ):
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:
            if input_length:
                lengths = input_length if isinstance(input_length, (list, tuple)) else [input_length]
                kwargs["input_shape"] = tuple(lengths)
            else:
                kwargs["input_shape"] = (None,)
        for name, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            try:
                positive_int(value, name)
            except ValueError:
                raise ValueError(
                    "Both `input_dim` and `output_dim` should be positive, "
                    f"Received input_dim = {input_dim} and output_dim = {output_dim}"
                ) from None
        if sparse:
            raise ValueError(
                "Embedding(sparse=True) returned a tf.SparseTensor in Keras; torchestimator layers "
                "work on dense tensors. Use sparse=False (the default)."
            )
        kwargs["autocast"] = False  # float ids are cast to integers, never to float32 first
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self.input_length = input_length
        self.sparse = False

    def build(self, input_shape: Any = None) -> None:
        """Creates the `embeddings` matrix of shape (input_dim, output_dim)."""
        self.embeddings = self.add_weight(
            "embeddings",
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
            trainable=True,
        )
        self.built = True

    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns the embedding vectors of the integer ids in `inputs`."""
        if inputs.dtype not in (torch.int64, torch.int32):
            inputs = inputs.long()
        if loop.defers_checks(inputs.device) and inputs.numel() and not inputs.is_meta:
            inputs = self._checked_on_accelerator(inputs)
        try:
            out = F.embedding(inputs, self.embeddings)
        except IndexError:
            bad = inputs[(inputs < 0) | (inputs >= self.input_dim)]
            raise self._index_error(int(bad.flatten()[0]) if bad.numel() else None) from None
        if self._compute_dtype != self._variable_dtype:
            out = out.to(self._compute_dtype)
        return out

    def _checked_on_accelerator(self, ids: torch.Tensor) -> torch.Tensor:
        """The ids' range check where an out-of-range id would be a device-side assert (CUDA)
        instead of an IndexError: in the training loop it is deferred (`loop.defer_check`, read
        back with the loop's other checks) and the ids are clamped meanwhile; outside it the
        range is read back at once. Raises the IndexError the CPU raises."""
        if loop.check_value_range(ids, ("embedding_ids", id(self)), self._range_verdict):
            return ids.clamp(0, self.input_dim - 1)
        return ids

    def _range_verdict(self, low: torch.Tensor, high: torch.Tensor) -> IndexError | None:
        if int(low) < 0:
            return self._index_error(int(low))
        if int(high) >= self.input_dim:
            return self._index_error(int(high))
        return None

    def _index_error(self, index: int | None) -> IndexError:
        return IndexError(
            f'Layer "{self.name}" (Embedding with input_dim={self.input_dim}) received '
            f"index {'?' if index is None else index}, which is not in "
            f"[0, {self.input_dim}). Increase input_dim to the vocabulary size (+1 with "
            "mask_zero) or fix the ids."
        )

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Returns `inputs != 0` when `mask_zero`, else None."""
        if not self.mask_zero:
            return None
        return inputs != 0

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns `input_shape + (output_dim,)`, checked against `input_length`."""
        input_shape = tuple(input_shape)
        if self.input_length is None:
            return input_shape + (self.output_dim,)
        lengths = (
            list(self.input_length)
            if isinstance(self.input_length, (list, tuple))
            else [self.input_length]
        )
        if len(lengths) != len(input_shape) - 1:
            raise ValueError(
                f'Layer "{self.name}": "input_length" is {self.input_length}, but received '
                f"input has shape {input_shape}"
            )
        for i, (want, got) in enumerate(zip(lengths, input_shape[1:])):
            if want is not None and got is not None and want != got:
                raise ValueError(
                    f'Layer "{self.name}": "input_length" is {self.input_length}, but received '
                    f"input has shape {input_shape}"
                )
            if want is None:
                lengths[i] = got
        return (input_shape[0],) + tuple(lengths) + (self.output_dim,)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Returns the symbolic output (and its mask when `mask_zero`) for a KerasTensor input."""

        out = KerasTensor(self.compute_output_shape(inputs.shape), self._compute_dtype)
        if self.mask_zero:
            out._keras_mask = KerasTensor(inputs.shape, torch.bool)
        return out

    def get_config(self) -> dict:
        """Returns the layer's arguments with the base layer's config."""
        config = super().get_config()
        config.update(
            {
                "input_dim": self.input_dim,
                "output_dim": self.output_dim,
                "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
                "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
                "mask_zero": self.mask_zero,
                "input_length": self.input_length,
            }
        )
        return config
