"""`tf.compat.v1.ragged`: `tf.ragged`'s ops, and TF1's `constant_value`, which builds a ragged
value of NumPy arrays (`RaggedTensorValue`) from a nested Python list."""

from __future__ import annotations

from typing import Any

import numpy as np

from torchestimator._ragged._ops import constant
from torchestimator._ragged._tensor import RaggedTensor as _RaggedTensor
from torchestimator.ragged import (
    boolean_mask,
    cross,
    cross_hashed,
    map_flat_values,
    range,  # noqa: A004 - TF's name
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack,
    stack_dynamic_partitions,
)

__all__ = [
    "RaggedTensorValue", "boolean_mask", "constant", "constant_value", "cross", "cross_hashed",
    "map_flat_values", "range", "row_splits_to_segment_ids", "segment_ids_to_row_splits",
    "stack", "stack_dynamic_partitions",
]


def _array(value: Any) -> np.ndarray:
    return value if isinstance(value, np.ndarray) else np.asarray(value)


class RaggedTensorValue:
    """The value of a ragged tensor as NumPy arrays (TF1's `tf.compat.v1.ragged.RaggedTensorValue`):
    `values` (an array, or a `RaggedTensorValue` for more ragged dimensions) split into rows by
    `row_splits` (a 1-D int array starting at 0)."""

    def __init__(self, values: Any, row_splits: Any) -> None:
        row_splits = _array(row_splits)
        if row_splits.ndim != 1 or row_splits.dtype.kind not in "iu" or not row_splits.size:
            raise TypeError(
                f"RaggedTensorValue: `row_splits` must be a non-empty 1-D integer array; "
                f"received dtype {row_splits.dtype} and shape {row_splits.shape}.")
        if not isinstance(values, RaggedTensorValue):
            values = _array(values)
        self._values, self._row_splits = values, row_splits

    @property
    def values(self) -> Any:
        """The concatenated rows (an array, or a `RaggedTensorValue`)."""
        return self._values

    @property
    def row_splits(self) -> np.ndarray:
        """Where each row starts and ends in `values`."""
        return self._row_splits

    @property
    def flat_values(self) -> np.ndarray:
        """The innermost values, an array."""
        values = self._values
        while isinstance(values, RaggedTensorValue):
            values = values.values
        return values

    @property
    def nested_row_splits(self) -> tuple[np.ndarray, ...]:
        """The row splits of every ragged dimension, outermost first."""
        splits, values = [self._row_splits], self._values
        while isinstance(values, RaggedTensorValue):
            splits.append(values.row_splits)
            values = values.values
        return tuple(splits)

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype of the values."""
        return self.flat_values.dtype

    @property
    def shape(self) -> tuple[int | None, ...]:
        """The shape: the number of rows, then None for each ragged dimension, then the
        values' inner dimensions."""
        return (len(self._row_splits) - 1,) + (None,) * self.ragged_rank + self.flat_values.shape[1:]

    def to_list(self) -> list:
        """The value as a nested Python list."""
        inner = self._values.to_list() if isinstance(self._values, RaggedTensorValue) \
            else self._values.tolist()
        return [inner[start:end] for start, end in zip(self._row_splits[:-1], self._row_splits[1:])]

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"


def constant_value(pylist: Any, dtype: Any = None, ragged_rank: int | None = None,
                   inner_shape: Any = None, row_splits_dtype: Any = "int64") -> Any:
    """Constructs a `RaggedTensorValue` (NumPy arrays) from a nested list, as TF1's
    `tf.compat.v1.ragged.constant_value`: `dtype`, `ragged_rank`, `inner_shape` and
    `row_splits_dtype` as `tf.ragged.constant`'s; without `dtype` the values take NumPy's
    default dtype, as TF's (int64 for ints, float64 for floats)."""
    value = constant(pylist, dtype, ragged_rank, inner_shape, row_splits_dtype=row_splits_dtype)
    result = _array(value.flat_values if isinstance(value, _RaggedTensor) else value)
    if dtype is None and result.dtype.kind in "biuf":
        result = np.array(result.tolist())
    for splits in reversed(value.nested_row_splits if isinstance(value, _RaggedTensor) else ()):
        result = RaggedTensorValue(result, _array(splits))
    return result
