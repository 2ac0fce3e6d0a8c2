"""`tf.keras.experimental.SequenceFeatures`: the input layer for sequence columns."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._engine import export_capture
from torchestimator.feature_column import _layer_utils
from torchestimator.feature_column._base import SequenceDenseColumn, is_sequence_categorical
from torchestimator.feature_column._state import LayerStateManager
from torchestimator.feature_column._transform import FeatureTransformationCache
from torchestimator.keras.engine.base_layer import Layer


class SequenceFeatures(Layer):
    """A layer for sequence input: every column's value at every time step, concatenated.

    Takes `sequence_numeric_column`s and `embedding_column` /
    `indicator_column` over `sequence_categorical_column_with_*`. Columns are
    concatenated in name order.

    Args:
        feature_columns: an iterable of sequence dense columns.
        trainable: whether the embedding tables are trained.
        name: the layer's name.

    Calling it returns `(sequence_input, sequence_length)`: float32
    [batch, max_time, sum of the columns' dimensions] (zero-padded, numeric
    columns padded with their `default_value`) and int64 [batch]. Every column
    must give each example the same length.
    """

    def __init__(self, feature_columns: Any, trainable: bool = True, name: str | None = None, **kwargs: Any):
        columns = _layer_utils.maybe_deserialize(feature_columns)
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._feature_columns = _layer_utils.normalize_columns(
            columns, (SequenceDenseColumn,),
            "SequenceDenseColumns. You can wrap a sequence_categorical_column with an "
            "embedding_column or indicator_column", "SequenceFeatures",
        )

        for column in self._feature_columns:
            inner = getattr(column, "categorical_column", None)
            if inner is not None and not is_sequence_categorical(inner):
                raise ValueError(
                    "All feature_columns must be SequenceDenseColumns over sequence columns. "
                    f"Column {column.name!r} wraps {type(inner).__name__}; use "
                    "sequence_categorical_column_with_* inside embedding_column/indicator_column."
                )
        self._state_manager = LayerStateManager(self)

    @property
    def feature_columns(self) -> list[Any]:
        """The columns, sorted by name."""
        return list(self._feature_columns)

    def build(self, input_shape: Any = None) -> None:
        """Creates the columns' embedding tables, in column-name order."""
        for column in self._feature_columns:
            column.create_state(self._state_manager)
        self.built = True

    @export_capture.preprocessing_layer
    def call(self, features: Mapping[str, Any], training: bool | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns `(sequence_input [batch, time, dims], sequence_length [batch])`."""
        _layer_utils.check_features(features)
        cache = FeatureTransformationCache(features)
        device = _layer_utils.target_device(self, features)
        outputs, lengths = [], []
        for column in self._feature_columns:
            dense, length = column.get_sequence_dense_tensor(cache, self._state_manager)
            dense = dense.to(device=device, dtype=torch.float32)
            dense = dense.reshape(dense.shape[0], dense.shape[1], math.prod(column.variable_shape))
            outputs.append((column.name, dense))
            lengths.append((column.name, length.to(device)))
        _layer_utils.check_batch_sizes(outputs)
        first_name, first = lengths[0]
        for name, length in lengths[1:]:
            if not torch.equal(length, first):
                raise ValueError(
                    "Sequence lengths of the feature columns must be equal: column "
                    f"{first_name!r} has lengths {first.tolist()} but column {name!r} has "
                    f"{length.tolist()}."
                )
        time = max(t.shape[1] for _, t in outputs)
        padded = [
            torch.nn.functional.pad(t, (0, 0, 0, time - t.shape[1])) if t.shape[1] < time else t
            for _, t in outputs
        ]
        return torch.cat(padded, dim=2), first

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """`((batch, None, total dimension), (batch,))`."""
        batch = _layer_utils.batch_dim(input_shape)
        total = sum(math.prod(c.variable_shape) for c in self._feature_columns)
        return ((batch, None, total), (batch,))

    def get_config(self) -> dict[str, Any]:
        """Returns the layer config with `feature_columns` serialized as data."""
        config = super().get_config()
        config["feature_columns"] = _layer_utils.columns_config(self._feature_columns)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict | None = None) -> SequenceFeatures:
        """Creates the layer from `get_config()`'s output."""
        config = dict(config)
        config["feature_columns"] = _layer_utils.columns_from_config(config["feature_columns"], custom_objects)
        return cls(**config)
