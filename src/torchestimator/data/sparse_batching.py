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

from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec
from torchestimator._sparse_tensor import SparseTensor
from torchestimator._type_spec import SparseTensorSpec
from torchestimator.data.columns import col_shape, col_stack
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.data.structure import (
    flat_specs,
    flatten,
    map_structure,
    to_component,
    with_flat_specs,
)


def has_sparse(structure: Any) -> bool:
    """True when a nest of values holds a SparseTensor."""
    if isinstance(structure, dict):
        return any(has_sparse(v) for v in structure.values())
    if isinstance(structure, tuple):
        return any(has_sparse(v) for v in structure)
    return isinstance(structure, SparseTensor)


def batches_sparse(dataset: Dataset) -> bool:
    """True when `dataset` descends from `from_tensor_slices` of a SparseTensor and its
    elements have sparse components (so `batch` uses SparseBatchDataset). Elements that a
    `map` makes sparse are batched by `Dataset.batch`'s own stacking (columns.col_stack)."""
    seen, todo, found = set(), [dataset], False
    while todo and not found:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        found = isinstance(d, (SparseSlicesDataset, SparseBatchDataset))
        todo.extend(getattr(d, "_inputs", ()))
    return found and any(isinstance(s, SparseTensorSpec)
                         for s in flat_specs(dataset.element_spec))


def sparse_spec(value: SparseTensor) -> SparseTensorSpec:
    """The `SparseTensorSpec` of a SparseTensor value."""
    return SparseTensorSpec.from_value(value)


def _is_ragged(value: Any) -> bool:
    from torchestimator._ragged._tensor import RaggedTensor

    return isinstance(value, RaggedTensor)


def _take_values(values: Any, index: torch.Tensor) -> Any:
    if isinstance(values, np.ndarray):
        return values[index.numpy()]
    return values[index]


def _cat_values(parts: list) -> Any:
    if parts and isinstance(parts[0], np.ndarray):
        return np.concatenate(parts) if parts else np.empty(0, dtype=object)
    return torch.cat(parts)


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


def stack_sparse(elements: list[SparseTensor], where: str = "batch") -> SparseTensor:
    """One SparseTensor whose row i is `elements[i]` (all of one rank); its dense shape is
    [len(elements), *the largest dense shape of the elements]."""
    ranks = {len(e.dense_shape) for e in elements}
    if len(ranks) > 1:
        raise ValueError(f"{where}: cannot batch SparseTensors of different ranks "
                         f"{sorted(ranks)}; every element of a component needs the same rank")
    rank = ranks.pop()
    shape = torch.stack([e.dense_shape for e in elements]).amax(0) if rank else \
        torch.zeros(0, dtype=torch.int64)
    idx = [torch.cat([torch.full((len(e.indices), 1), i, dtype=torch.int64), e.indices], 1)
           for i, e in enumerate(elements)]
    values = _cat_values([e.values for e in elements])
    dense_shape = torch.cat([torch.tensor([len(elements)], dtype=torch.int64), shape])
    return SparseTensor._from_parts(torch.cat(idx) if idx else torch.zeros(0, rank + 1,
                                                                           dtype=torch.int64),
                                    values, dense_shape)


def _to_structure(value: Any, where: str = "tensors") -> Any:
    if isinstance(value, dict):
        return type(value)((k, _to_structure(v, f"{where}[{k!r}]")) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(_to_structure(v, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(value, SparseTensor) or _is_ragged(value):
        return value
    return to_component(value, where)


class SparseSlicesDataset(Dataset):
    """Slices of tensors, SparseTensors (and RaggedTensors) along their first dimension
    (`from_tensor_slices` given a SparseTensor): a slice of a SparseTensor is a SparseTensor
    of one rank less."""

    def __init__(self, tensors: Any):
        super().__init__()
        self._structure = _to_structure(tensors)
        sizes = []
        for c in flatten(self._structure):
            if isinstance(c, SparseTensor):
                sizes.append(c.shape[0] if c.shape else None)
            elif _is_ragged(c):
                sizes.append(c._nrows())
            else:
                sizes.append((col_shape(c) or (None,))[0])
        if None in sizes:
            raise ValueError("from_tensor_slices: a component is a scalar; every component "
                             "needs at least one dimension to slice")
        if len(set(sizes)) > 1:
            raise ValueError(f"from_tensor_slices: all components must have the same size in "
                             f"their first dimension; received sizes {sizes}")
        self._n = sizes[0]
        self._rows: list | None = None

    def _columns(self) -> list:
        if self._rows is None:
            self._rows = [unstack_sparse(c) if isinstance(c, SparseTensor) else c
                          for c in flatten(self._structure)]
        return self._rows

    def _open(self):
        cols = self._columns()
        return ElementStream([c[i] for c in cols] for i in range(self._n))

    def _compute_spec(self):
        def spec(c: Any) -> Any:
            if isinstance(c, SparseTensor):
                return SparseTensorSpec(c.shape[1:], c.dtype)
            if _is_ragged(c):
                from torchestimator._ragged._spec import RaggedTensorSpec

                return RaggedTensorSpec(c.shape[1:], c.dtype, c.ragged_rank - 1,
                                        c.row_splits_dtype)
            if isinstance(c, torch.Tensor):
                return TensorSpec(col_shape(c)[1:], c.dtype)
            from torchestimator._dtypes import string

            return TensorSpec(col_shape(c)[1:], string)
        return map_structure(spec, self._structure)

    def _compute_cardinality(self) -> int:
        return self._n


class SparseBatchDataset(UnaryDataset):
    """`Dataset.batch` of elements with sparse components: each sparse component becomes a
    batched SparseTensor (dense shape [batch, *largest]); ragged components become
    RaggedTensors and dense components are stacked."""

    def __init__(self, input_dataset: Dataset, batch_size: int, drop_remainder: bool):
        super().__init__((input_dataset,))
        self._batch_size = batch_size
        self._drop_remainder = drop_remainder

    def _open(self):
        kinds = [type(s).__name__ for s in flat_specs(self._input.element_spec)]
        return ElementStream(self._batches(iter_elements(self._input._open()), kinds))

    def _batches(self, elements: Iterator[list], kinds: list[str]) -> Iterator[list]:
        pending: list = []
        for e in elements:
            pending.append(e)
            if len(pending) == self._batch_size:
                yield self._stack(pending, kinds)
                pending = []
        if pending and not self._drop_remainder:
            yield self._stack(pending, kinds)

    def _stack(self, elements: list[list], kinds: list[str]) -> list:
        out = []
        for j, kind in enumerate(kinds):
            comps = [e[j] for e in elements]
            if kind == "SparseTensorSpec":
                out.append(stack_sparse(comps, f"batch (component {j})"))
            elif kind == "RaggedTensorSpec":
                from torchestimator._ragged._ops import stack_rows

                out.append(stack_rows(comps))
            else:
                shapes = {tuple(col_shape(c)) for c in comps}
                if len(shapes) > 1:
                    raise ValueError(
                        f"Cannot batch tensors with different shapes in component {j}: "
                        f"{sorted(shapes)}. Use ragged_batch or padded_batch")
                out.append(col_stack(comps))
        return out

    def _compute_spec(self):
        size = self._batch_size if self._drop_remainder else None
        specs = []
        for s in flat_specs(self._input.element_spec):
            shape = None if s.shape is None or getattr(s.shape, "rank", 0) is None else \
                list(s.shape.as_list() if hasattr(s.shape, "as_list") else s.shape)
            batched = None if shape is None else [size, *shape]
            if isinstance(s, SparseTensorSpec):
                specs.append(SparseTensorSpec(batched, s.dtype))
            elif type(s).__name__ == "RaggedTensorSpec":
                specs.append(type(s)(batched, s.dtype, s.ragged_rank + 1, s.row_splits_dtype))
            else:
                specs.append(TensorSpec(None if batched is None else tuple(batched), s.dtype))
        return with_flat_specs(self._input.element_spec, specs)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        b = self._batch_size
        return n // b if self._drop_remainder else -(-n // b)
