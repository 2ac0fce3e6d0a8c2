"""The feature-column base classes and the values that flow between columns.

A feature column is an immutable description (a frozen dataclass, as TF's
columns are namedtuples) of how to turn one or more raw input features into a
tensor a model consumes. Its preprocessing state (vocabulary, boundaries,
bucket sizes) is plain data, returned by `get_config()`. Trainable state
(embedding tables, linear weights) never lives in a column: the layer that
consumes the columns creates it through a state manager (`_state.py`).

Column kinds, as in TensorFlow's `feature_column_v2`:
    DenseColumn          -> `get_dense_tensor()`: a float tensor [batch, *variable_shape]
    CategoricalColumn    -> `get_sparse_tensors()`: ids (and optional weights) per example
    SequenceDenseColumn  -> `get_sequence_dense_tensor()`: [batch, time, ...] and lengths

TF's SparseTensor becomes `SparseIds`: the present ids of a batch in row-major
order with their row and position, on the CPU or any torch device.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import torch

from torchestimator._engine import loop
from torchestimator.feature_column import serialization  # names read at call time (a circle)


@dataclasses.dataclass(frozen=True)
class SparseIds:
    """The categorical ids of a batch (TF's 2-D `SparseTensor` of ids).

    Attributes:
        ids: int64 tensor [nnz], the ids in row-major order. Ids < 0 (an
            out-of-vocabulary value mapped to default_value=-1) are kept here,
            as TF keeps them, and contribute nothing to embeddings, indicators
            and linear models.
        rows: int64 tensor [nnz], the example (batch row) of each id, ascending.
        cols: int64 tensor [nnz], the position of each id inside its example
            (the time step, for sequence columns).
        batch_size: the number of examples.
        width: the padded number of positions per example (max position + 1 or
            the input's second dimension).
        id_bound: when known, every id is in [0, id_bound) (lets a lookup skip
            its range check); None when unknown.
    """

    ids: torch.Tensor
    rows: torch.Tensor
    cols: torch.Tensor
    batch_size: int
    width: int
    id_bound: int | None = None

    @property
    def one_per_row(self) -> bool:
        """True when every example has exactly one id (then `rows` is 0..batch_size-1)."""
        return self.width == 1 and self.ids.shape[0] == self.batch_size

    @classmethod
    def from_dense(
        cls, ids: np.ndarray, batch_size: int, width: int, missing: int, num_buckets: int | None = None
    ) -> SparseIds:
        """Returns the ids of a dense [batch_size, width] layout (row-major int64 `ids`) without the
        `missing` ones; `num_buckets` is the column's, when no present id is >= it."""
        present = ids != missing
        if present.all():
            rows, cols = dense_layout(batch_size, width)
        else:
            index = np.nonzero(present)[0]
            ids = ids[index]
            rows, cols = torch.from_numpy(index // width), torch.from_numpy(index % width)
        bound = num_buckets if num_buckets is not None and (ids.size == 0 or ids.min() >= 0) else None
        return cls(torch.from_numpy(ids), rows, cols, batch_size, width, bound)

    def ids_within(self, num_rows: int) -> bool:
        """True when every id is in [0, num_rows) (checked on the tensor unless `id_bound` says so)."""
        if self.id_bound is not None and self.id_bound <= num_rows:
            return True
        if self.ids.numel() == 0:
            return True
        low, high = torch.aminmax(self.ids)
        return bool(low >= 0) and bool(high < num_rows)

    def select(self, mask: torch.Tensor) -> SparseIds:
        """Returns only the entries where `mask` (bool [nnz]) is True."""
        return SparseIds(
            self.ids[mask], self.rows[mask], self.cols[mask], self.batch_size, self.width, self.id_bound
        )

    def to(self, device: torch.device | str | None) -> SparseIds:
        """Returns the ids moved to `device` (a no-op when None or already there)."""
        if device is None or self.ids.device == torch.device(device):
            return self
        ids, rows, cols = self.ids, self.rows, self.cols
        if ids.dtype == rows.dtype == cols.dtype and ids.device == rows.device == cols.device:
            # one copy for the three (a host->device copy costs a launch and a wait each), as
            # the loop copies a batch: from pinned host memory without blocking
            stacked = torch.stack((ids, rows, cols))
            ids, rows, cols = loop.to_device(stacked, torch.device(device)).unbind(0)
        else:
            ids, rows, cols = ids.to(device), rows.to(device), cols.to(device)
        return SparseIds(ids, rows, cols, self.batch_size, self.width, self.id_bound)


_LAYOUTS: dict[tuple[int, int], tuple[torch.Tensor, torch.Tensor]] = {}


def dense_layout(batch_size: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The (rows, cols) of every position of a dense [batch_size, width] layout (shared, read-only)."""
    layout = _LAYOUTS.get((batch_size, width))
    if layout is None:
        index = torch.arange(batch_size * width)
        layout = (index // width, index % width)
        if len(_LAYOUTS) < 64:
            _LAYOUTS[(batch_size, width)] = layout
    return layout


class IdWeightPair(NamedTuple):
    """What `CategoricalColumn.get_sparse_tensors` returns, as TF's namedtuple.

    `id_tensor` is a `SparseIds`; `weight_tensor` is None or a float tensor
    [nnz] aligned with `id_tensor.ids` (from `weighted_categorical_column`).
    """

    id_tensor: SparseIds
    weight_tensor: torch.Tensor | None


class TensorSequenceLengthPair(NamedTuple):
    """What `SequenceDenseColumn.get_sequence_dense_tensor` returns, as TF's namedtuple.

    `dense_tensor` is [batch, max_time, *variable_shape]; `sequence_length` is
    an int64 tensor [batch].
    """

    dense_tensor: torch.Tensor
    sequence_length: torch.Tensor


class FeatureColumn(abc.ABC):
    """The base of every feature column (TF's `FeatureColumn`).

    Subclasses are frozen dataclasses: immutable, hashable, equal when their
    configuration is equal.
    """

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The column's name, used to sort columns and to name its weights."""

    @property
    @abc.abstractmethod
    def parse_example_spec(self) -> dict[str, Any]:
        """The `tf.io.parse_example` spec of the raw features this column reads."""

    @property
    def parents(self) -> list[Any]:
        """The columns (or feature keys) this column is built from: `[key]` for a column that
        reads a raw feature (`numeric_column('f1').parents == ['f1']`, as TF's)."""
        key = getattr(self, "key", None)
        return [key] if isinstance(key, str) else []

    @abc.abstractmethod
    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> Any:
        """Returns this column's intermediate value for the batch in `transformation_cache`."""

    def create_state(self, state_manager: Any) -> None:  # noqa: B027 - optional hook, as TF's
        """Creates the weights this column needs in `state_manager` (none by default)."""

    def get_config(self) -> dict[str, Any]:
        """Returns the column's configuration: JSON-able data that `from_config` rebuilds it from."""
        return serialization.default_column_config(self)

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any],
        custom_objects: Mapping[str, Any] | None = None,
        columns_by_name: dict[str, Any] | None = None,
    ) -> FeatureColumn:
        """Creates a column from the output of `get_config()`."""
        return serialization.default_column_from_config(
            cls, config, custom_objects, columns_by_name
        )

    @property
    def _is_v2_column(self) -> bool:
        return True

    def __getstate__(self) -> dict[str, Any]:
        # Copies and pickles keep the configuration, not the per-value lookup memos.
        return {k: v for k, v in self.__dict__.items() if k not in _MEMO_ATTRIBUTES}


#: Instance attributes holding per-value memos (not configuration): left out of copies and pickles.
_MEMO_ATTRIBUTES = frozenset({"_ids_memo", "_cross_memo_table"})


class DenseColumn(FeatureColumn):
    """A column that produces a dense float tensor (TF's `DenseColumn`)."""

    @property
    @abc.abstractmethod
    def variable_shape(self) -> tuple[int, ...]:
        """The shape of one example's dense tensor, without the batch dimension."""

    @abc.abstractmethod
    def get_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> torch.Tensor:
        """Returns the dense tensor [batch, *variable_shape] of this column."""


class CategoricalColumn(FeatureColumn):
    """A column that produces integer ids in [0, num_buckets) (TF's `CategoricalColumn`)."""

    @property
    @abc.abstractmethod
    def num_buckets(self) -> int:
        """The number of distinct ids (the size of an embedding or indicator over it)."""

    @abc.abstractmethod
    def get_sparse_tensors(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns the ids (and optional weights) of every example."""


class SequenceDenseColumn(FeatureColumn):
    """A column that produces a dense tensor per time step (TF's `SequenceDenseColumn`)."""

    @property
    @abc.abstractmethod
    def variable_shape(self) -> tuple[int, ...]:
        """The shape of one time step's tensor."""

    @abc.abstractmethod
    def get_sequence_dense_tensor(
        self, transformation_cache: Any, state_manager: Any
    ) -> TensorSequenceLengthPair:
        """Returns [batch, max_time, *variable_shape] and the sequence lengths [batch]."""


def is_sequence_categorical(column: Any) -> bool:
    """True when `column` is (or wraps) a `sequence_categorical_column_with_*`.

    `SequenceCategoricalColumn` (feature_column.sequence, which subclasses this module's
    classes) marks itself with `_is_sequence_categorical = True`.
    """
    return getattr(column, "_is_sequence_categorical", False) is True


def check_key(key: Any, what: str = "key") -> str:
    """Returns `key` when it is a non-empty string; raises ValueError naming `what` otherwise."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"{what} must be a non-empty string naming a feature, got {key!r}")
    return key


def check_positive_int(value: Any, what: str, column: str, minimum: int = 1) -> int:
    """Returns `value` as int when it is an integer >= `minimum`; raises ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) and not (
        hasattr(value, "__index__") and not isinstance(value, float)
    ):
        raise ValueError(f"{what} must be an integer >= {minimum} for column {column!r}, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum} for column {column!r}, got {value}")
    return value
