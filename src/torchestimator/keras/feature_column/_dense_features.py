"""`tf.keras.layers.DenseFeatures` and the TF1 function `input_layer`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._engine import export_capture
from torchestimator.feature_column import _layer_utils
from torchestimator.feature_column._base import DenseColumn, is_sequence_categorical
from torchestimator.feature_column._state import LayerStateManager
from torchestimator.feature_column._transform import FeatureTransformationCache
from torchestimator.feature_column.embedding import SharedEmbeddingColumn
from torchestimator.feature_column.indicator import IndicatorColumn
from torchestimator.keras.engine.base_layer import Layer


class DenseFeatures(Layer):
    """A layer that produces a dense tensor based on given `feature_columns`.

    Every column's dense value is flattened to [batch, n] and the results are
    concatenated in the order of the columns' names (as TF sorts them).
    Accepts dense columns only: `numeric_column`, `bucketized_column`,
    `embedding_column`, `shared_embeddings`, `indicator_column`; wrap a
    categorical column in `embedding_column` or `indicator_column`. The layer
    owns the embedding tables, named `<column>/embedding_weights`.

    Args:
        feature_columns: an iterable of dense columns.
        trainable: whether the embedding tables are trained.
        name: the layer's name (TF's DNN estimator uses 'input_layer').

    Calling it with a dict of feature name -> values returns a float32 tensor
    [batch, sum of the columns' dimensions].
    """

    def __init__(self, feature_columns: Any, trainable: bool = True, name: str | None = None, **kwargs: Any):
        columns = _layer_utils.maybe_deserialize(feature_columns)
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._feature_columns = _layer_utils.normalize_columns(
            columns, (DenseColumn,), "a DenseColumn. You can wrap a categorical column with an "
            "embedding_column or indicator_column", "DenseFeatures",
        )
        for column in self._feature_columns:
            _reject_sequence_column(column)
        self._state_manager = LayerStateManager(self)
        self._segments = _layer_utils.numeric_runs(self._feature_columns)

    @property
    def feature_columns(self) -> list[Any]:
        """The columns, sorted by name."""
        return list(self._feature_columns)

    def build(self, _: Any = None) -> None:
        """Creates the columns' weights (embedding tables), in column-name order; the input
        shape (`_`, TF's name) is not needed."""
        for column in self._feature_columns:
            column.create_state(self._state_manager)
        self.built = True

    @export_capture.preprocessing_layer
    def call(self, features: Mapping[str, Any], cols_to_output_tensors: dict | None = None, training: bool | None = None) -> torch.Tensor:
        """Returns the concatenated dense tensor [batch, total dimension] for `features`.

        `cols_to_output_tensors`, when a dict, receives column -> its [batch, n] output.
        """
        _layer_utils.check_features(features)
        device = _layer_utils.target_device(self, features)
        segments = self._segments if cols_to_output_tensors is None else ((None, self._feature_columns),)
        # The batch's cache: up front for several segments (it also shares their numeric stack with
        # another layer reading the batch), else when a column needs it (one numeric run never does)
        cache = FeatureTransformationCache.for_batch(features) if len(segments) > 1 else None
        outputs = []
        for keys, columns in segments:
            if keys is not None:
                stacked = _layer_utils.stacked_numeric(features, keys, cache)
                if stacked is not None:  # one stack and one cast instead of a cast per column
                    outputs.append((columns[0].name, stacked.to(device=device, dtype=torch.float32)))
                    continue
            if cache is None:
                cache = FeatureTransformationCache.for_batch(features)
            outputs.extend(self._column_outputs(columns, cache, device, cols_to_output_tensors))
        if len(outputs) == 1:
            return outputs[0][1]
        _layer_utils.check_batch_sizes(outputs)
        return torch.cat([t for _, t in outputs], dim=1)

    def _column_outputs(self, columns: tuple, cache: FeatureTransformationCache, device: Any,
                        cols_to_output_tensors: dict | None) -> list:
        """`(name, [batch, n] float32 tensor)` of each of `columns`, one at a time."""
        outputs = []
        for column in columns:
            tensor = column.get_dense_tensor(cache, self._state_manager)
            tensor = tensor.to(device=device, dtype=torch.float32)
            width = math.prod(column.variable_shape)
            if tensor.ndim != 2 or tensor.shape[1] != width:  # a reshape to the same shape is a view op
                tensor = tensor.reshape(tensor.shape[0], width)
            outputs.append((column.name, tensor))
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[column] = tensor
        return outputs

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """`(batch, sum of the columns' flattened dimensions)`."""
        total = sum(math.prod(c.variable_shape) for c in self._feature_columns)
        return (_layer_utils.batch_dim(input_shape), total)

    def get_config(self) -> dict[str, Any]:
        """Returns the layer config with `feature_columns` serialized as data."""
        config = super().get_config()
        config["feature_columns"] = _layer_utils.columns_config(self._feature_columns)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict | None = None) -> DenseFeatures:
        """Creates the layer from `get_config()`'s output (columns rebuilt from their configs)."""
        config = dict(config)
        config["feature_columns"] = _layer_utils.columns_from_config(config["feature_columns"], custom_objects)
        return cls(**config)


def _reject_sequence_column(column: Any) -> None:
    check = getattr(column, "_reject_sequence", None)
    if check is not None:
        check()

    if isinstance(column, IndicatorColumn):
        if is_sequence_categorical(column.categorical_column):
            raise ValueError(
                f"In indicator_column: {column.name}. categorical_column must not be of type "
                "SequenceCategoricalColumn. Suggested fix A: If you wish to use DenseFeatures, use "
                "a non-sequence categorical_column_with_*. Suggested fix B: If you wish to create "
                "sequence input, use SequenceFeatures instead of DenseFeatures."
            )


def input_layer(
    features: Mapping[str, Any],
    feature_columns: Any,
    weight_collections: Any = None,
    trainable: bool = True,
    cols_to_vars: dict | None = None,
    cols_to_output_tensors: dict | None = None,
) -> torch.Tensor:
    """Returns a dense tensor as input layer based on given `feature_columns` (TF1's `input_layer`).

    Builds a `DenseFeatures` layer named 'input_layer' and calls it on
    `features`. `weight_collections` (a TF1 graph concept) is accepted and
    ignored. `cols_to_vars`, when a dict, receives column -> list of its
    weights; `cols_to_output_tensors` column -> its output.

    Returns:
        A float32 tensor [batch, total dimension].
    """
    del weight_collections
    layer = DenseFeatures(feature_columns, trainable=trainable, name="input_layer")
    out = layer(features, cols_to_output_tensors=cols_to_output_tensors)
    if cols_to_vars is not None:
        cols_to_vars.update(column_variables(layer))
    return out


def column_variables(layer: Any) -> dict[Any, list[torch.Tensor]]:
    """Returns column -> list of the weights `layer` holds for it (shared tables included)."""

    out: dict[Any, list[torch.Tensor]] = {}
    manager = layer._state_manager
    for column in layer._feature_columns:
        if isinstance(column, SharedEmbeddingColumn):
            out[column] = [manager.get_shared_variable(column.shared_embedding_collection_name, "embedding_weights")]
        else:
            out[column] = manager.variables_of(column.name)
    return out
