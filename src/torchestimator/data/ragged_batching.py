"""Ragged elements in tf.data: `from_tensor_slices(ragged)`, `ragged_batch`, and `batch` of
ragged elements.

An element component that is ragged has a `tf.RaggedTensorSpec` in the element spec;
its value is a `tf.RaggedTensor` (or, for a row of a 2-D RaggedTensor, a 1-D tensor of
the row's length, TF's RaggedTensorSpec of ragged_rank 0). Batching stacks the rows of
such components into a RaggedTensor with one more ragged dimension; `ragged_batch` also
turns dense components of rank >= 1 into RaggedTensors (their first dimension ragged).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch

from torchestimator._dtypes import TensorSpec
from torchestimator._ragged._ops import stack_rows
from torchestimator._ragged_tensor import RaggedTensor, RaggedTensorSpec
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


def has_ragged(structure: Any) -> bool:
    """True when a nest of values holds a RaggedTensor."""
    if isinstance(structure, dict):
        return any(has_ragged(v) for v in structure.values())
    if isinstance(structure, tuple):
        return any(has_ragged(v) for v in structure)
    return isinstance(structure, RaggedTensor)


def has_ragged_spec(spec: Any) -> bool:
    """True when an element spec holds a RaggedTensorSpec."""
    return any(isinstance(s, RaggedTensorSpec) for s in flatten(spec))


def batches_ragged(dataset: Dataset) -> bool:
    """True when `dataset` descends from a ragged source and its elements have ragged
    components (so `batch` makes RaggedTensors of them)."""
    seen, todo, found = set(), [dataset], False
    while todo and not found:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        found = isinstance(d, (RaggedSlicesDataset, RaggedBatchDataset))
        todo.extend(getattr(d, "_inputs", ()))
    return found and has_ragged_spec(dataset.element_spec)


def _shape_list(shape: Any) -> list | None:
    if shape is None or getattr(shape, "rank", 0) is None:
        return None
    return shape.as_list() if hasattr(shape, "as_list") else list(shape)


class RaggedSlicesDataset(Dataset):
    """Slices of tensors and RaggedTensors along their first dimension (`from_tensor_slices`
    given a RaggedTensor): a row of a RaggedTensor is a RaggedTensor with one ragged
    dimension less (a dense tensor for a 2-D RaggedTensor)."""

    def __init__(self, tensors: Any):
        super().__init__()
        self._structure = _to_structure(tensors)
        sizes = [c._nrows() if isinstance(c, RaggedTensor) else (col_shape(c) or (None,))[0]
                 for c in flatten(self._structure)]
        if None in sizes:
            raise ValueError("from_tensor_slices: a component is a scalar; every component "
                             "needs at least one dimension to slice")
        if len(set(sizes)) > 1:
            raise ValueError(f"from_tensor_slices: all components must have the same size in "
                             f"their first dimension; received sizes {sizes}")
        self._n = sizes[0]

    def _open(self):
        flat = flatten(self._structure)
        return ElementStream([c[i] for c in flat] for i in range(self._n))

    def _compute_spec(self):
        def spec(c: Any) -> Any:
            if isinstance(c, RaggedTensor):
                return RaggedTensorSpec(c.shape[1:], c.dtype, c.ragged_rank - 1,
                                        c.row_splits_dtype)
            return TensorSpec(col_shape(c)[1:], c.dtype if isinstance(c, torch.Tensor)
                              else _string())
        return map_structure(spec, self._structure)

    def _compute_cardinality(self) -> int:
        return self._n


def _string() -> Any:
    from torchestimator._dtypes import string

    return string


def _to_structure(value: Any, where: str = "tensors") -> Any:
    if isinstance(value, dict):
        return type(value)((k, _to_structure(v, f"{where}[{k!r}]")) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(_to_structure(v, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(value, RaggedTensor):
        return value
    return to_component(value, where)


class RaggedBatchDataset(UnaryDataset):
    """Batches elements whose components may differ in shape into RaggedTensors
    (`Dataset.ragged_batch`; `Dataset.batch` of elements with ragged components)."""

    def __init__(self, input_dataset: Dataset, batch_size: int, drop_remainder: bool,
                 row_splits_dtype: Any = torch.int64, dense_to_ragged: bool = True):
        super().__init__((input_dataset,))
        self._batch_size = batch_size
        self._drop_remainder = drop_remainder
        self._row_splits_dtype = row_splits_dtype
        self._dense_to_ragged = dense_to_ragged

    def _ragged_slots(self) -> list[bool]:
        return [isinstance(s, RaggedTensorSpec) or (
            self._dense_to_ragged and s.shape is not None and len(s.shape) > 0)
            for s in flat_specs(self._input.element_spec)]

    def _open(self):
        slots = self._ragged_slots()
        return ElementStream(self._batches(iter_elements(self._input._open()), slots))

    def _batches(self, elements: Iterator[list], slots: list[bool]) -> Iterator[list]:
        pending: list = []
        for e in elements:
            pending.append(e)
            if len(pending) == self._batch_size:
                yield self._stack(pending, slots)
                pending = []
        if pending and not self._drop_remainder:
            yield self._stack(pending, slots)

    def _stack(self, elements: list[list], slots: list[bool]) -> list:
        out = []
        for j, ragged in enumerate(slots):
            comps = [e[j] for e in elements]
            if ragged:
                out.append(stack_rows(comps, self._row_splits_dtype))
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
        for s, ragged in zip(flat_specs(self._input.element_spec), self._ragged_slots()):
            shape = _shape_list(s.shape)
            if not ragged:
                specs.append(TensorSpec(None if shape is None else (size, *shape), s.dtype))
                continue
            rank = s.ragged_rank if isinstance(s, RaggedTensorSpec) else 0
            inner = [] if shape is None else shape
            if not isinstance(s, RaggedTensorSpec) and inner:
                inner = [None, *inner[1:]]
            specs.append(RaggedTensorSpec([size, *inner], s.dtype, rank + 1,
                                          self._row_splits_dtype))
        return with_flat_specs(self._input.element_spec, specs)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        b = self._batch_size
        return n // b if self._drop_remainder else -(-n // b)


def ragged_batch(dataset: Dataset, batch_size: int, drop_remainder: bool = False,
                 row_splits_dtype: Any = torch.int64) -> Dataset:
    """`Dataset.ragged_batch`: batches elements of different shapes into RaggedTensors."""
    from torchestimator._ragged._values import splits_dtype
    from torchestimator.data.validation import as_bool, as_int

    size = as_int("batch_size", batch_size, minimum=1)
    return RaggedBatchDataset(dataset, size, as_bool("drop_remainder", drop_remainder),
                              splits_dtype(row_splits_dtype))
