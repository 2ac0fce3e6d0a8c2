"""Sequence columns: `sequence_categorical_column_with_*` and `sequence_numeric_column`.

A sequence feature holds a variable number of values per example — a ragged
list of lists, or a padded 2-D array (`''` / -1 padding for categorical
values). Each position is a time step. These columns feed `SequenceFeatures`
(through `embedding_column` / `indicator_column` for categorical ones), which
returns a [batch, max_time, ...] tensor and each example's length.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator.feature_column import _inputs, serialization
from torchestimator.feature_column._base import (
    CategoricalColumn,
    IdWeightPair,
    SequenceDenseColumn,
    TensorSequenceLengthPair,
    check_key,
)
from torchestimator.feature_column.categorical import (
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
)
from torchestimator.feature_column.numeric import _normalize_shape, _numeric_dtype
from torchestimator.io._parse_spec import VarLenFeature


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class SequenceCategoricalColumn(CategoricalColumn):
    """A categorical column read as a sequence: one id per time step (TF's SequenceCategoricalColumn)."""

    #: Read by `_base.is_sequence_categorical` (a class attribute, not a dataclass field).
    _is_sequence_categorical = True

    categorical_column: CategoricalColumn = dataclasses.field(metadata={"kind": serialization.COLUMN})

    def __post_init__(self) -> None:
        if not isinstance(self.categorical_column, CategoricalColumn):
            raise ValueError(
                f"categorical_column must be a categorical column. Given: {self.categorical_column!r}"
            )

    @property
    def name(self) -> str:
        """The wrapped column's name."""
        return self.categorical_column.name

    @property
    def parents(self) -> list[Any]:
        """The wrapped categorical column."""
        return [self.categorical_column]

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """The wrapped column's spec."""
        return self.categorical_column.parse_example_spec

    @property
    def num_buckets(self) -> int:
        """The wrapped column's number of buckets."""
        return self.categorical_column.num_buckets

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns the wrapped column's ids; each id's position is its time step."""
        return self.categorical_column.get_sparse_tensors(transformation_cache, state_manager)

    def get_sparse_tensors(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns `IdWeightPair(ids, weights)` with time steps as positions."""
        return transformation_cache.get(self, state_manager)


def sequence_categorical_column_with_identity(
    key: str, num_buckets: int, default_value: int | None = None
) -> SequenceCategoricalColumn:
    """Returns a feature column that represents sequences of integer ids in [0, num_buckets)."""
    return SequenceCategoricalColumn(categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_hash_bucket(
    key: str, hash_bucket_size: int, dtype: Any = _dtypes.string
) -> SequenceCategoricalColumn:
    """A sequence of categorical terms where ids are set by hashing (FarmHash Fingerprint64)."""
    return SequenceCategoricalColumn(categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str,
    vocabulary_size: int | None = None,
    num_oov_buckets: int = 0,
    default_value: int | None = None,
    dtype: Any = _dtypes.string,
) -> SequenceCategoricalColumn:
    """A sequence of categorical terms where ids use a vocabulary file."""
    return SequenceCategoricalColumn(
        categorical_column_with_vocabulary_file(
            key, vocabulary_file, vocabulary_size, dtype, default_value, num_oov_buckets
        )
    )


def sequence_categorical_column_with_vocabulary_list(
    key: str,
    vocabulary_list: Any,
    dtype: Any = None,
    default_value: int = -1,
    num_oov_buckets: int = 0,
) -> SequenceCategoricalColumn:
    """A sequence of categorical terms where ids use an in-memory list."""
    return SequenceCategoricalColumn(
        categorical_column_with_vocabulary_list(key, vocabulary_list, dtype, default_value, num_oov_buckets)
    )


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class SequenceNumericColumn(SequenceDenseColumn):
    """A sequence of numbers, `shape` values per time step (TF's SequenceNumericColumn)."""

    key: str
    shape: tuple = (1,)
    default_value: float = 0.0
    dtype: Any = dataclasses.field(default=torch.float32, metadata={"kind": serialization.DTYPE})
    normalizer_fn: Callable | None = dataclasses.field(default=None, metadata={"kind": serialization.OBJECT})

    def __post_init__(self) -> None:
        check_key(self.key)
        object.__setattr__(self, "shape", _normalize_shape(self.shape, self.key))
        object.__setattr__(self, "dtype", _numeric_dtype(self.dtype, self.key))
        if isinstance(self.default_value, bool) or not isinstance(self.default_value, (int, float, np.number)):
            raise ValueError(
                f"default_value must be a number for sequence_numeric_column {self.key!r}, got "
                f"{self.default_value!r}"
            )
        object.__setattr__(self, "default_value", float(self.default_value))
        if self.normalizer_fn is not None and not callable(self.normalizer_fn):
            raise TypeError(f"normalizer_fn must be a callable. Given: {self.normalizer_fn!r}")

    @property
    def name(self) -> str:
        """The feature key."""
        return self.key

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """`{key: VarLenFeature(dtype)}`."""
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def variable_shape(self) -> tuple[int, ...]:
        """The shape of one time step."""
        return self.shape

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> tuple:
        """Returns (values [batch, width] float32 after normalizer_fn, lengths in values)."""
        raw = transformation_cache.raw(self.key, self.name)
        values, lengths = _inputs.raw_dense_or_ragged_float(raw, self.name, self.key)
        if self.normalizer_fn is not None:
            values = self.normalizer_fn(values).to(torch.float32)
        return values, lengths

    def get_sequence_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> TensorSequenceLengthPair:
        """Returns [batch, max_time, *shape] padded with `default_value`, and the lengths.

        An example with n values has ceil(n / prod(shape)) time steps.
        """
        values, lengths = transformation_cache.get(self, state_manager)
        per_step = math.prod(self.shape)
        batch, width = values.shape
        steps = -(-width // per_step)
        padded_width = steps * per_step
        positions = torch.arange(padded_width, device=values.device)
        if padded_width != width:
            values = torch.nn.functional.pad(values, (0, padded_width - width))
        fill = torch.tensor(self.default_value, dtype=values.dtype, device=values.device)
        values = torch.where(positions[None, :] < lengths.to(values.device)[:, None], values, fill)
        seq_len = torch.div(lengths + per_step - 1, per_step, rounding_mode="floor")
        return TensorSequenceLengthPair(values.reshape((batch, steps) + self.shape), seq_len)


def sequence_numeric_column(
    key: str,
    shape: Any = (1,),
    default_value: float = 0.0,
    dtype: Any = torch.float32,
    normalizer_fn: Callable | None = None,
) -> SequenceNumericColumn:
    """Returns a feature column that represents sequences of numeric data.

    Each example is a variable-length list of numbers (`shape` values per time
    step); shorter examples are padded with `default_value`.

    Returns:
        A `SequenceNumericColumn`.
    """
    return SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)
