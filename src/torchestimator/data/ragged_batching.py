"""Ragged elements in tf.data: `from_tensor_slices(ragged)`, `ragged_batch`, and `batch` of
ragged elements.

An element component that is ragged has a `tf.RaggedTensorSpec` in the element spec;
its value is a `tf.RaggedTensor` (or, for a row of a 2-D RaggedTensor, a 1-D tensor of
the row's length, TF's RaggedTensorSpec of ragged_rank 0). Batching stacks the rows of
such components into a RaggedTensor with one more ragged dimension; `ragged_batch` also
turns dense components of rank >= 1 into RaggedTensors (their first dimension ragged).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._dtypes import TensorSpec
from torchestimator._ragged._ops import stack_rows
from torchestimator._ragged._values import splits_dtype
from torchestimator._ragged_tensor import RaggedTensor, RaggedTensorSpec
from torchestimator.data._composite_batching import (
    CompositeBatchDataset,
    CompositeSlicesDataset,
    Stacker,
    descends_from,
)
from torchestimator.data.dataset import Dataset
from torchestimator.data.structure import flat_specs, flatten
from torchestimator.data.validation import as_bool, as_int


def has_ragged_spec(spec: Any) -> bool:
    """True when an element spec holds a RaggedTensorSpec."""
    return any(isinstance(s, RaggedTensorSpec) for s in flatten(spec))


def batches_ragged(dataset: Dataset) -> bool:
    """True when `dataset` descends from a ragged source and its elements have ragged
    components (so `batch` makes RaggedTensors of them)."""
    return (descends_from(dataset, (RaggedSlicesDataset, RaggedBatchDataset))
            and has_ragged_spec(dataset.element_spec))


class RaggedSlicesDataset(CompositeSlicesDataset):
    """Slices of tensors and RaggedTensors along their first dimension (`from_tensor_slices`
    given a RaggedTensor): a row of a RaggedTensor is a RaggedTensor with one ragged
    dimension less (a dense tensor for a 2-D RaggedTensor)."""

    _keep = (RaggedTensor,)


class RaggedBatchDataset(CompositeBatchDataset):
    """Batches elements whose components may differ in shape into RaggedTensors
    (`Dataset.ragged_batch`; `Dataset.batch` of elements with ragged components)."""

    def __init__(self, input_dataset: Dataset, batch_size: int, drop_remainder: bool,
                 row_splits_dtype: Any = torch.int64, dense_to_ragged: bool = True):
        super().__init__(input_dataset, batch_size, drop_remainder)
        self._row_splits_dtype = row_splits_dtype
        self._dense_to_ragged = dense_to_ragged

    def _is_ragged_slot(self, s: Any) -> bool:
        return isinstance(s, RaggedTensorSpec) or (
            self._dense_to_ragged and s.shape is not None and len(s.shape) > 0)

    def _stackers(self) -> list[Stacker | None]:
        ragged = (stack_rows, self._row_splits_dtype)
        return [ragged if self._is_ragged_slot(s) else None
                for s in flat_specs(self._input.element_spec)]

    def _batched_spec(self, s: Any, shape: list | None, size: int | None) -> Any:
        if not self._is_ragged_slot(s):
            return TensorSpec(None if shape is None else (size, *shape), s.dtype)
        rank = s.ragged_rank if isinstance(s, RaggedTensorSpec) else 0
        inner = [] if shape is None else shape
        if not isinstance(s, RaggedTensorSpec) and inner:
            inner = [None, *inner[1:]]
        return RaggedTensorSpec([size, *inner], s.dtype, rank + 1, self._row_splits_dtype)


def ragged_batch(dataset: Dataset, batch_size: int, drop_remainder: bool = False,
                 row_splits_dtype: Any = torch.int64) -> Dataset:
    """`Dataset.ragged_batch`: batches elements of different shapes into RaggedTensors."""
    size = as_int("batch_size", batch_size, minimum=1)
    return RaggedBatchDataset(dataset, size, as_bool("drop_remainder", drop_remainder),
                              splits_dtype(row_splits_dtype))
