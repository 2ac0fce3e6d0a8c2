"""Sparse elements in tf.data: `from_tensor_slices(sparse_tensor)` and `batch` of elements
holding `tf.SparseTensor`s (TF's semantics).

A component that is sparse has a `tf.SparseTensorSpec` in the element spec and a
`tf.SparseTensor` value. Slicing a SparseTensor of dense shape [n, d1, ...] gives n
SparseTensors of dense shape [d1, ...] (row i holds the entries whose first index is i).
Batching b sparse elements of one rank gives a SparseTensor of dense shape
[b, max d1, max d2, ...] whose entries are the elements' entries, prefixed by their
position in the batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec, dtype_name
from torchestimator._ops.creation._tensor_shape import _shape_arg
from torchestimator._ragged._ops import stack_rows
from torchestimator._ragged_tensor import RaggedTensor
from torchestimator._sparse_tensor import SparseTensor
from torchestimator._type_spec import SparseTensorSpec
from torchestimator.data._composite_batching import (
    CompositeBatchDataset,
    CompositeSlicesDataset,
    Stacker,
    descends_from,
)
from torchestimator.data._sparse_values import _cat_values, stack_sparse
from torchestimator.data.columns import col_shape
from torchestimator.data.dataset import Dataset
from torchestimator.data.structure import flat_specs
from torchestimator.errors import DataLossError, InvalidArgumentError


def batches_sparse(dataset: Dataset) -> bool:
    """True when `dataset` descends from `from_tensor_slices` of a SparseTensor and its
    elements have sparse components (so `batch` uses SparseBatchDataset). Elements that a
    `map` makes sparse are batched by `Dataset.batch`'s own stacking (columns.col_stack)."""
    return (descends_from(dataset, (SparseSlicesDataset, SparseBatchDataset))
            and any(isinstance(s, SparseTensorSpec) for s in flat_specs(dataset.element_spec)))


def _take_values(values: Any, index: torch.Tensor) -> Any:
    if isinstance(values, np.ndarray):
        return values[index.numpy()]
    return values[index]


def unstack_sparse(sp: SparseTensor) -> list[SparseTensor]:
    """The rows of `sp` along its first dimension: SparseTensors of one rank less."""
    shape = sp.shape
    if len(shape) < 1:
        raise ValueError("from_tensor_slices: a SparseTensor of rank 0 cannot be sliced; give "
                         "a SparseTensor of rank >= 1")
    n = shape[0]
    first = sp.indices[:, 0]
    order = torch.argsort(first, stable=True)
    counts = torch.bincount(first, minlength=n).tolist() if first.numel() else [0] * n
    rest = sp.indices[order][:, 1:].contiguous()
    values = _take_values(sp.values, order)
    inner = sp.dense_shape[1:].clone()
    rows, start = [], 0
    for c in counts:
        rows.append(SparseTensor._from_parts(rest[start:start + c], values[start:start + c], inner))
        start += c
    return rows


class SparseSlicesDataset(CompositeSlicesDataset):
    """Slices of tensors, SparseTensors (and RaggedTensors) along their first dimension
    (`from_tensor_slices` given a SparseTensor): a slice of a SparseTensor is a SparseTensor
    of one rank less."""

    _keep = (SparseTensor, RaggedTensor)

    def _nrows(self, c: Any) -> int | None:
        if isinstance(c, SparseTensor):
            return c.shape[0] if c.shape else None
        return super()._nrows(c)

    def _slice_column(self, c: Any) -> Any:
        return unstack_sparse(c) if isinstance(c, SparseTensor) else c

    def _component_spec(self, c: Any) -> Any:
        if isinstance(c, SparseTensor):
            return SparseTensorSpec(c.shape[1:], c.dtype)
        return super()._component_spec(c)


class SparseBatchDataset(CompositeBatchDataset):
    """`Dataset.batch` of elements with sparse components: each sparse component becomes a
    batched SparseTensor (dense shape [batch, *largest]); ragged components become
    RaggedTensors and dense components are stacked."""

    def _stackers(self) -> list[Stacker | None]:
        out: list[Stacker | None] = []
        for j, s in enumerate(flat_specs(self._input.element_spec)):
            kind = type(s).__name__
            if kind == "SparseTensorSpec":
                out.append((stack_sparse, f"batch (component {j})"))
            elif kind == "RaggedTensorSpec":
                out.append((stack_rows, torch.int64))
            else:
                out.append(None)
        return out

    def _batched_spec(self, s: Any, shape: list | None, size: int | None) -> Any:
        batched = None if shape is None else [size, *shape]
        if isinstance(s, SparseTensorSpec):
            return SparseTensorSpec(batched, s.dtype)
        if type(s).__name__ == "RaggedTensorSpec":
            return type(s)(batched, s.dtype, s.ragged_rank + 1, s.row_splits_dtype)
        return TensorSpec(None if batched is None else tuple(batched), s.dtype)


def dense_rows_to_sparse(elements: list, row_shape: list[int]) -> SparseTensor:
    """One SparseTensor of dense shape [len(elements), *row_shape] holding every entry of each
    element (TF's `sparse_batch`: zeros too); element i's entries are prefixed by i."""
    rank = len(row_shape)
    idx, values = [], []
    for i, e in enumerate(elements):
        shape = list(col_shape(e))
        if len(shape) != rank:
            raise InvalidArgumentError(
                f"Input element had shape ({shape}) that is incompatible with the row shape "
                f"({row_shape}).".replace(", ", ","))
        if any(d > r for d, r in zip(shape, row_shape)):
            raise DataLossError(
                f"Input element had shape ({shape}) that is larger than the row shape "
                f"({row_shape}).".replace(", ", ","))
        grid = torch.cartesian_prod(*[torch.arange(d) for d in shape]) if rank > 1 else \
            torch.arange(shape[0]).reshape(-1, 1) if rank == 1 else torch.zeros(1, 0)
        n = int(np.prod(shape)) if rank else 1
        grid = grid.reshape(n, rank).to(torch.int64)
        idx.append(torch.cat([torch.full((n, 1), i, dtype=torch.int64), grid], 1))
        flat = e.reshape(-1) if isinstance(e, torch.Tensor | np.ndarray) else \
            np.asarray(e).reshape(-1)
        values.append(flat)
    dense_shape = torch.tensor([len(elements), *row_shape], dtype=torch.int64)
    return SparseTensor._from_parts(torch.cat(idx), _cat_values(values), dense_shape)


class DenseToSparseBatchDataset(CompositeBatchDataset):
    """`Dataset.sparse_batch(batch_size, row_shape)`: consecutive elements of one component,
    of rank len(row_shape) and at most row_shape in each dimension, become one SparseTensor of
    dense shape [batch, *row_shape]."""

    def __init__(self, input_dataset: Dataset, batch_size: int, row_shape: Any):
        specs = flat_specs(input_dataset.element_spec)
        if len(specs) != 1 or isinstance(specs[0], SparseTensorSpec) or \
                type(specs[0]).__name__ == "RaggedTensorSpec":
            types = ", ".join(f"tf.{dtype_name(s.dtype)}" for s in specs)
            raise TypeError("`dense_to_sparse_batch` requires an input dataset whose elements "
                            "have a single component, but the given dataset has the following "
                            f"component types: ({types}).")
        super().__init__(input_dataset, batch_size, False)
        self._row_shape = list(_shape_arg(row_shape, "sparse_batch(row_shape)"))

    def _stackers(self) -> list[Stacker | None]:
        return [(dense_rows_to_sparse, self._row_shape)]

    def _batched_spec(self, s: Any, shape: list | None, size: int | None) -> Any:
        return SparseTensorSpec([None, *self._row_shape], s.dtype)
