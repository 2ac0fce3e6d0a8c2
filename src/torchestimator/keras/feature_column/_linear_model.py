"""The linear model over feature columns: TF's `LinearModel` layer and `linear_model` function.

logits = sum over columns of (column weights x input) + bias. A categorical
column's term is the `sparse_combiner` ('sum', 'mean', 'sqrtn') of the
weight rows of its ids (weighted by a `weighted_categorical_column`); a
dense column's term is its flattened value times its weight matrix. Weights
and bias start at zero and are named as in TF's canned linear estimator
checkpoints: `<column name>/weights` ([num_buckets or dense size, units]) and
`bias_weights` ([units]) — `linear/linear_model/<column>/weights` there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._engine import export_capture
from torchestimator.feature_column import _combiners, _layer_utils
from torchestimator.feature_column._base import (
    CategoricalColumn,
    DenseColumn,
    is_sequence_categorical,
)
from torchestimator.feature_column._state import LayerStateManager
from torchestimator.feature_column._transform import FeatureTransformationCache
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.feature_column._dense_features import column_variables


class LinearModel(Layer):
    """A layer that computes a linear prediction from `feature_columns` (TF's feature-column LinearModel).

    Args:
        feature_columns: an iterable of categorical and dense columns (no
            sequence columns). Bucketized columns count as categorical (one
            weight per bucket), as in TF.
        units: the number of outputs (logits).
        sparse_combiner: how several ids of one example combine: 'sum'
            (default), 'mean' or 'sqrtn'.
        trainable: whether the weights are trained.
        name: the layer's name ('linear_model' by default, as TF).

    Calling it with a dict of features returns float32 [batch, units].
    """

    def __init__(
        self,
        feature_columns: Any,
        units: int = 1,
        sparse_combiner: str = "sum",
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ):
        columns = _layer_utils.maybe_deserialize(feature_columns)
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._feature_columns = _layer_utils.normalize_columns(
            columns, (DenseColumn, CategoricalColumn),
            "either a DenseColumn or CategoricalColumn", "LinearModel",
        )
        for column in self._feature_columns:
            if is_sequence_categorical(column) or is_sequence_categorical(
                getattr(column, "categorical_column", None)
            ):
                raise ValueError(
                    f"LinearModel does not take sequence columns; got {column.name!r}. Use "
                    "SequenceFeatures for sequence input."
                )
        if isinstance(units, bool) or not isinstance(units, int) or units < 1:
            raise ValueError(f"units must be a positive integer, got {units!r}")
        self.units = units
        self.sparse_combiner = _combiners.check_combiner(sparse_combiner, "sparse_combiner", self.name)
        self._state_manager = LayerStateManager(self)
        self._segments = _layer_utils.numeric_runs(self._feature_columns)
        self._bias_attr: str | None = None

    @property
    def bias(self) -> torch.Tensor | None:
        """The bias `bias_weights` [units] (None before the layer is built)."""
        return None if self._bias_attr is None else getattr(self, self._bias_attr)

    @property
    def feature_columns(self) -> list[Any]:
        """The columns, sorted by name."""
        return list(self._feature_columns)

    def build(self, input_shape: Any = None) -> None:
        """Creates `<column>/weights` for every column (name order), then `bias_weights`, all zeros."""
        for column in self._feature_columns:
            column.create_state(self._state_manager)
            if isinstance(column, CategoricalColumn):
                rows = column.num_buckets
            else:
                rows = math.prod(column.variable_shape)
            self._state_manager.create_variable(
                column, name="weights", shape=(rows, self.units), dtype=torch.float32,
                trainable=True, initializer="zeros",
            )
        bias = self.add_weight(
            name="bias_weights", shape=(self.units,), dtype=torch.float32, initializer="zeros"
        )
        self._bias_attr = next(k for k, v in self._parameters.items() if v is bias)
        self.built = True

    def _weighted_sum(self, column: Any, cache: FeatureTransformationCache, device: torch.device) -> torch.Tensor:
        weight = self._state_manager.get_variable(column, "weights")
        if isinstance(column, CategoricalColumn):
            pair = column.get_sparse_tensors(cache, self._state_manager)
            return _combiners.safe_embedding_lookup(
                weight, pair.id_tensor, pair.weight_tensor, self.sparse_combiner
            )
        tensor = column.get_dense_tensor(cache, self._state_manager)
        tensor = tensor.to(device=device, dtype=weight.dtype).reshape(tensor.shape[0], weight.shape[0])
        return tensor @ weight

    @export_capture.preprocessing_layer
    def call(self, features: Mapping[str, Any], training: bool | None = None) -> torch.Tensor:
        """Returns the predictions [batch, units] for `features`."""
        _layer_utils.check_features(features)
        cache = FeatureTransformationCache.for_batch(features)
        device = _layer_utils.target_device(self, features)
        sums = []
        for keys, columns in self._segments:
            if keys is not None:
                stacked = _layer_utils.stacked_numeric(features, keys, cache)
                if stacked is not None:  # a run of numeric columns: one stack, one matmul
                    weights = torch.cat([self._state_manager.get_variable(c, "weights") for c in columns])
                    sums.append((columns[0].name, stacked.to(device=device, dtype=weights.dtype) @ weights))
                    continue
            sums.extend((c.name, self._weighted_sum(c, cache, device)) for c in columns)
        _layer_utils.check_batch_sizes(sums)
        out = sums[0][1]
        for _, s in sums[1:]:
            out = out + s
        return out + self.bias

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """`(batch, units)`."""
        return (_layer_utils.batch_dim(input_shape), self.units)

    def get_config(self) -> dict[str, Any]:
        """Returns the layer config with `feature_columns` serialized as data."""
        config = super().get_config()
        config.update(
            feature_columns=_layer_utils.columns_config(self._feature_columns),
            units=self.units,
            sparse_combiner=self.sparse_combiner,
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict | None = None) -> LinearModel:
        """Creates the layer from `get_config()`'s output."""
        config = dict(config)
        config["feature_columns"] = _layer_utils.columns_from_config(config["feature_columns"], custom_objects)
        return cls(**config)


def linear_model(
    features: Mapping[str, Any],
    feature_columns: Any,
    units: int = 1,
    sparse_combiner: str = "sum",
    weight_collections: Any = None,
    trainable: bool = True,
    cols_to_vars: dict | None = None,
) -> torch.Tensor:
    """Returns a linear prediction `Tensor` based on given `feature_columns` (TF1's `linear_model`).

    Builds a `LinearModel` layer named 'linear_model' and calls it on
    `features`. `weight_collections` (a TF1 graph concept) is accepted and
    ignored. `cols_to_vars`, when a dict, receives column -> list of its
    weights, and 'bias' -> [bias], as TF.

    Returns:
        A float32 tensor [batch, units].
    """
    del weight_collections
    layer = LinearModel(feature_columns, units, sparse_combiner, trainable=trainable, name="linear_model")
    out = layer(features)
    if cols_to_vars is not None:
        cols_to_vars.update(column_variables(layer))
        cols_to_vars["bias"] = [layer.bias]
    return out
