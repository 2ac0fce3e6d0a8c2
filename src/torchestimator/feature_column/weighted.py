"""`weighted_categorical_column`: categorical ids paired with per-id weights."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator.feature_column import _inputs, serialization
from torchestimator.feature_column._base import CategoricalColumn, IdWeightPair, check_key
from torchestimator.io._parse_spec import VarLenFeature


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class WeightedCategoricalColumn(CategoricalColumn):
    """A categorical column whose ids carry weights from another feature (TF's WeightedCategoricalColumn).

    The weight feature has the layout of the id feature: the weight of the id
    at (example i, position j) is the weight feature's value at (i, j), for
    dense arrays and ragged lists alike.
    """

    categorical_column: CategoricalColumn = dataclasses.field(metadata={"kind": serialization.COLUMN})
    weight_feature_key: str = ""
    dtype: Any = dataclasses.field(default=torch.float32, metadata={"kind": serialization.DTYPE})

    def __post_init__(self) -> None:
        if not isinstance(self.categorical_column, CategoricalColumn):
            raise ValueError(
                f"categorical_column must be a categorical column. Given: {self.categorical_column!r}"
            )
        check_key(self.weight_feature_key, "weight_feature_key")
        d = _dtypes.as_dtype(self.dtype) if self.dtype is not None else None
        if d is None or d is _dtypes.string or d == torch.bool or d.is_complex:
            raise ValueError(f"dtype {self.dtype!r} is not convertible to float.")
        object.__setattr__(self, "dtype", d)

    @property
    def name(self) -> str:
        """`<categorical column>_weighted_by_<weight_feature_key>`."""
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def parents(self) -> list[Any]:
        """The categorical column and the weight feature key."""
        return [self.categorical_column, self.weight_feature_key]

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """The categorical column's spec plus `{weight_feature_key: VarLenFeature(dtype)}`."""
        config = dict(self.categorical_column.parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(f"Parse config {config} already exists for {self.weight_feature_key}.")
        config[self.weight_feature_key] = VarLenFeature(self.dtype)
        return config

    @property
    def num_buckets(self) -> int:
        """The categorical column's number of buckets."""
        return self.categorical_column.num_buckets

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns the ids with the weight at each id's (example, position), float32."""
        pair = self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)
        if pair.weight_tensor is not None:
            raise ValueError(
                f"weighted_categorical_column {self.name!r}: its categorical column "
                f"{self.categorical_column.name!r} is already weighted."
            )
        sp = pair.id_tensor
        raw = transformation_cache.raw(self.weight_feature_key, self.name)
        dense, lengths = _inputs.raw_dense_or_ragged_float(raw, self.name, self.weight_feature_key)
        if dense.shape[0] != sp.batch_size:
            raise ValueError(
                f"weighted_categorical_column {self.name!r}: weight feature "
                f"{self.weight_feature_key!r} has {dense.shape[0]} examples but the ids have "
                f"{sp.batch_size}."
            )
        rows, cols = sp.rows.cpu(), sp.cols.cpu()
        bad = cols >= lengths[rows]
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise ValueError(
                f"weighted_categorical_column {self.name!r}: example {int(rows[i])} has an id at "
                f"position {int(cols[i])}, but weight feature {self.weight_feature_key!r} has only "
                f"{int(lengths[rows[i]])} value(s) there. Ids and weights must have the same shape."
            )
        weights = dense[rows, cols]
        return IdWeightPair(sp, weights)

    def get_sparse_tensors(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns `IdWeightPair(ids, weights)`."""
        return transformation_cache.get(self, state_manager)


def weighted_categorical_column(
    categorical_column: CategoricalColumn, weight_feature_key: str, dtype: Any = torch.float32
) -> WeightedCategoricalColumn:
    """Applies weight values to a `CategoricalColumn`.

    The feature `weight_feature_key` gives one weight per id, in the same
    shape as the ids (e.g. term frequencies next to terms). Embedding
    combiners then compute weighted sums/means; an indicator adds the weights.

    Returns:
        A `WeightedCategoricalColumn` named `<categorical>_weighted_by_<weight_feature_key>`.
    """
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)
