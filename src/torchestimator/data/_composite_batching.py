"""What ragged_batching.py and sparse_batching.py share: slicing a nest that holds composite
tensors (tf.RaggedTensor, tf.SparseTensor) along its first dimension, and batching elements
whose components are composite, one stacking function per component.

`CompositeSlicesDataset` holds the structure, checks the first-dimension sizes and yields
element i as the i-th row of every column; a subclass names the composite types it keeps and
how to count and slice their rows. `CompositeBatchDataset` groups `batch_size` elements and
stacks each component with the (function, argument) pair its subclass gives for that
component (dense components are stacked as tensors, all of one shape).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchestimator._dtypes import TensorSpec, string
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

# How one component of a batch is stacked: `function(components, argument)`.
Stacker = tuple[Callable[[list, Any], Any], Any]


def descends_from(dataset: Dataset, classes: tuple[type, ...]) -> bool:
    """True when `dataset` or one of the datasets it reads from is an instance of `classes`."""
    seen, todo = set(), [dataset]
    while todo:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        if isinstance(d, classes):
            return True
        todo.extend(getattr(d, "_inputs", ()))
    return False


def shape_list(shape: Any) -> list | None:
    """The dimensions of a spec's shape as a list, or None when its rank is unknown."""
    if shape is None or getattr(shape, "rank", 0) is None:
        return None
    return shape.as_list() if hasattr(shape, "as_list") else list(shape)


def to_structure(value: Any, keep: tuple[type, ...], where: str = "tensors") -> Any:
    """The nest `value` with instances of `keep` left as they are and every other leaf made a
    column (tensor or numpy array of str) by `structure.to_component`."""
    if isinstance(value, dict):
        return type(value)((k, to_structure(v, keep, f"{where}[{k!r}]"))
                           for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(to_structure(v, keep, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(value, keep):
        return value
    return to_component(value, where)


def stack_dense(components: list, j: int) -> Any:
    """Stacks the dense components `j` of a batch's elements; they must share one shape."""
    shapes = {tuple(col_shape(c)) for c in components}
    if len(shapes) > 1:
        raise ValueError(
            f"Cannot batch tensors with different shapes in component {j}: "
            f"{sorted(shapes)}. Use ragged_batch or padded_batch")
    return col_stack(components)


class CompositeSlicesDataset(Dataset):
    """Slices of a nest of tensors and composite tensors along their first dimension
    (`from_tensor_slices`); the subclass sets `_keep` and slices its composite types."""

    _keep: tuple[type, ...] = (RaggedTensor,)

    def __init__(self, tensors: Any):
        super().__init__()
        self._structure = to_structure(tensors, self._keep)
        sizes = [self._nrows(c) for c in flatten(self._structure)]
        if None in sizes:
            raise ValueError("from_tensor_slices: a component is a scalar; every component "
                             "needs at least one dimension to slice")
        if len(set(sizes)) > 1:
            raise ValueError(f"from_tensor_slices: all components must have the same size in "
                             f"their first dimension; received sizes {sizes}")
        self._n = sizes[0]
        self._rows: list | None = None

    def _nrows(self, c: Any) -> int | None:
        """The size of the first dimension of component `c` (None for a scalar)."""
        if isinstance(c, RaggedTensor):
            return c._nrows()
        return (col_shape(c) or (None,))[0]

    def _slice_column(self, c: Any) -> Any:
        """Component `c` as something whose `[i]` is its row i."""
        return c

    def _columns(self) -> list:
        if self._rows is None:
            self._rows = [self._slice_column(c) for c in flatten(self._structure)]
        return self._rows

    def _open(self):
        cols = self._columns()
        return ElementStream([c[i] for c in cols] for i in range(self._n))

    def _component_spec(self, c: Any) -> Any:
        """The spec of one row of component `c` (a RaggedTensor row has one ragged dimension
        less: a dense tensor for a 2-D RaggedTensor)."""
        if isinstance(c, RaggedTensor):
            return RaggedTensorSpec(c.shape[1:], c.dtype, c.ragged_rank - 1, c.row_splits_dtype)
        return TensorSpec(col_shape(c)[1:], c.dtype if isinstance(c, torch.Tensor) else string)

    def _compute_spec(self):
        return map_structure(self._component_spec, self._structure)

    def _compute_cardinality(self) -> int:
        return self._n


class CompositeBatchDataset(UnaryDataset):
    """Combines `batch_size` consecutive elements, stacking each component with the stacker
    `_stackers` gives it (None: stacked as dense tensors of one shape)."""

    def __init__(self, input_dataset: Dataset, batch_size: int, drop_remainder: bool):
        super().__init__((input_dataset,))
        self._batch_size = batch_size
        self._drop_remainder = drop_remainder

    @abc.abstractmethod
    def _stackers(self) -> list[Stacker | None]:
        """One stacker per flat component of the input's element spec."""

    @abc.abstractmethod
    def _batched_spec(self, spec: Any, shape: list | None, size: int | None) -> Any:
        """The spec of a batch of components of spec `spec` (shape `shape`); `size` is the
        batch size when every batch is full, else None."""

    def _open(self):
        stackers = [(stack_dense, j) if s is None else s for j, s in enumerate(self._stackers())]
        return ElementStream(self._batches(iter_elements(self._input._open()), stackers))

    def _batches(self, elements: Iterator[list], stackers: list[Stacker]) -> Iterator[list]:
        pending: list = []
        for e in elements:
            pending.append(e)
            if len(pending) == self._batch_size:
                yield self._stack(pending, stackers)
                pending = []
        if pending and not self._drop_remainder:
            yield self._stack(pending, stackers)

    @staticmethod
    def _stack(elements: list[list], stackers: list[Stacker]) -> list:
        return [stack([e[j] for e in elements], arg)
                for j, (stack, arg) in enumerate(stackers)]

    def _compute_spec(self):
        size = self._batch_size if self._drop_remainder else None
        specs = [self._batched_spec(s, shape_list(s.shape), size)
                 for s in flat_specs(self._input.element_spec)]
        return with_flat_specs(self._input.element_spec, specs)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        b = self._batch_size
        return n // b if self._drop_remainder else -(-n // b)
