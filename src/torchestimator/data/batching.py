"""batch, unbatch, padded_batch and rebatch, vectorized over columns.

`batch` over an index stream cuts the index selections into batch-sized
pieces and gathers each batch with one indexing operation per column (a
slice view when the rows are contiguous); over a block stream it slices and
concatenates blocks; over single elements it stacks them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec, string
from torchestimator.data.columns import Block, col_shape, concat_indices
from torchestimator.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.streams import (
    BlockStream,
    ElementStream,
    IndexStream,
    indices_of,
    iter_blocks,
)
from torchestimator.data.structure import (
    batched_spec,
    flat_specs,
    flatten,
    map_structure,
    to_component,
    unbatched_spec,
    with_flat_specs,
)


def batch_indices(stream: IndexStream, sizes: Any, drop_remainder: bool) -> Iterator[list]:
    """Batches of an index stream: one gather per batch. `sizes` yields the batch sizes."""
    gather = stream.base.gather
    size = next(sizes)
    pending: list = []
    have = 0
    for idx in indices_of(stream):
        start, m = 0, len(idx)
        while start < m:
            if not have and m - start >= size:
                yield gather(idx[start:start + size]).cols
                start += size
                size = next(sizes)
                continue
            piece = idx[start:start + size - have]
            pending.append(piece)
            have += len(piece)
            start += len(piece)
            if have == size:
                yield gather(concat_indices(pending)).cols
                pending, have = [], 0
                size = next(sizes)
    if have and not drop_remainder:
        yield gather(concat_indices(pending)).cols


def batch_blocks(blocks: Iterator[Block], sizes: Any, drop_remainder: bool) -> Iterator[list]:
    """Batches of a block stream: slices of blocks, concatenated across block ends."""
    size = next(sizes)
    pending: list = []
    have = 0
    for block in blocks:
        start, m = 0, block.n
        while start < m:
            if not have and m - start >= size:
                yield block.slice(start, start + size).cols
                start += size
                size = next(sizes)
                continue
            piece = block.slice(start, start + size - have)
            pending.append(piece)
            have += piece.n
            start += piece.n
            if have == size:
                yield Block.concat(pending).cols
                pending, have = [], 0
                size = next(sizes)
    if have and not drop_remainder:
        yield Block.concat(pending).cols


def batch_elements(elements: Iterator[list], sizes: Any, drop_remainder: bool) -> Iterator[list]:
    """Batches of single elements: each component stacked."""
    size = next(sizes)
    pending: list = []
    for e in elements:
        pending.append(e)
        if len(pending) == size:
            yield Block.stack(pending).cols
            pending = []
            size = next(sizes)
    if pending and not drop_remainder:
        yield Block.stack(pending).cols


def batch_stream(stream: Any, sizes: Any, drop_remainder: bool) -> Iterator[list]:
    """Batches any stream, by the fastest route for its kind."""
    if isinstance(stream, IndexStream):
        return batch_indices(stream, sizes, drop_remainder)
    if isinstance(stream, BlockStream):
        return batch_blocks(stream.blocks, sizes, drop_remainder)
    return batch_elements(stream.elements, sizes, drop_remainder)


class BatchDataset(UnaryDataset):
    """Stacks `batch_size` consecutive elements (`Dataset.batch`)."""

    def __init__(self, input_dataset: Dataset, batch_size: int, drop_remainder: bool):
        super().__init__((input_dataset,))
        self._batch_size = batch_size
        self._drop_remainder = drop_remainder

    def _open(self):
        stream = self._input._open_for_batch(self._batch_size)
        sizes = itertools.repeat(self._batch_size)
        return ElementStream(batch_stream(stream, sizes, self._drop_remainder))

    def _compute_spec(self):
        size = self._batch_size if self._drop_remainder else None
        return map_structure(lambda s: batched_spec(s, size), self._input.element_spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        b = self._batch_size
        return n // b if self._drop_remainder else -(-n // b)


class UnbatchDataset(UnaryDataset):
    """Splits each element along its first dimension (`Dataset.unbatch`)."""

    def __init__(self, input_dataset: Dataset):
        super().__init__((input_dataset,))

    def _open(self):
        stream = self._input._open()
        if isinstance(stream, ElementStream):
            return BlockStream(self._split_elements(stream.elements))
        return BlockStream(self._split_blocks(iter_blocks(stream)))

    @staticmethod
    def _split_blocks(blocks: Iterator[Block]) -> Iterator[Block]:
        for b in blocks:
            if not b.cols:
                continue
            k = col_shape(b.cols[0])[1] if len(col_shape(b.cols[0])) > 1 else None
            for c in b.cols:
                shape = col_shape(c)
                if len(shape) < 2:
                    raise ValueError("unbatch: every component must have at least rank 1")
                if shape[1] != k:
                    raise ValueError(
                        "unbatch: the components of an element must have the same first "
                        f"dimension; received {k} and {shape[1]}"
                    )
            cols = [c.reshape((b.n * k,) + tuple(col_shape(c)[2:])) for c in b.cols]
            if k:
                yield Block(cols, b.n * k)

    @staticmethod
    def _split_elements(elements: Iterator[list]) -> Iterator[Block]:
        for e in elements:
            shapes = [col_shape(c) for c in e]
            if any(not s for s in shapes):
                raise ValueError("unbatch: every component must have at least rank 1")
            sizes = {s[0] for s in shapes}
            if len(sizes) != 1:
                raise ValueError(
                    "unbatch: the components of an element must have the same first "
                    f"dimension; received {sorted(sizes)}"
                )
            n = sizes.pop()
            if n:
                yield Block(list(e), n)

    def _compute_spec(self):
        return map_structure(unbatched_spec, self._input.element_spec)


class RebatchDataset(UnaryDataset):
    """Re-groups the rows of a batched dataset into new batch sizes (`Dataset.rebatch`)."""

    def __init__(self, input_dataset: Dataset, sizes: list[int], drop_remainder: bool):
        super().__init__((input_dataset,))
        self._sizes = sizes
        self._drop_remainder = drop_remainder

    def _open(self):
        rows = UnbatchDataset(self._input)._open()
        sizes = itertools.cycle(self._sizes)
        return ElementStream(batch_stream(rows, sizes, self._drop_remainder))

    def _compute_spec(self):
        fixed = self._drop_remainder and len(set(self._sizes)) == 1
        size = self._sizes[0] if fixed else None
        return map_structure(lambda s: batched_spec(unbatched_spec(s, "rebatch"), size),
                             self._input.element_spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        return INFINITE_CARDINALITY if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY


class PaddedBatchDataset(UnaryDataset):
    """Batches elements of varying shape, padding each component (`Dataset.padded_batch`)."""

    def __init__(self, input_dataset: Dataset, batch_size: int, padded_shapes: Any,
                 padding_values: Any, drop_remainder: bool):
        super().__init__((input_dataset,))
        self._batch_size = batch_size
        self._padded_shapes = padded_shapes
        self._padding_values = padding_values
        self._drop_remainder = drop_remainder

    def _targets(self) -> tuple[list, list]:
        specs = flat_specs(self._input.element_spec)
        if self._padded_shapes is None:
            shapes = [None if s.shape is None else [None] * len(s.shape) for s in specs]
        else:
            shapes = _flatten_up_to(self._input.element_spec, self._padded_shapes,
                                    "padded_shapes")
            shapes = [None if s is None else [None if d is None or d == -1 else int(d)
                                              for d in s] for s in shapes]
        if self._padding_values is None:
            values = ["" if s.dtype is string else 0 for s in specs]
        else:
            values = _flatten_up_to(self._input.element_spec, self._padding_values,
                                    "padding_values")
        for j, (spec, shape) in enumerate(zip(specs, shapes)):
            if spec.shape is not None and shape is not None and len(shape) != len(spec.shape):
                raise ValueError(
                    f"padded_batch: padded_shapes for component {j} has rank {len(shape)} but "
                    f"the component has rank {len(spec.shape)} (shape {spec.shape})"
                )
        return shapes, values

    def _open(self):
        shapes, values = self._targets()
        elements = _elements_of(self._input._open())
        return ElementStream(self._batches(elements, shapes, values))

    def _batches(self, elements: Iterator[list], shapes: list, values: list):
        pending: list = []
        for e in elements:
            pending.append(e)
            if len(pending) == self._batch_size:
                yield self._pad(pending, shapes, values)
                pending = []
        if pending and not self._drop_remainder:
            yield self._pad(pending, shapes, values)

    @staticmethod
    def _pad(elements: list[list], shapes: list, values: list) -> list:
        out = []
        for j in range(len(elements[0])):
            comps = [e[j] for e in elements]
            dims = [col_shape(c) for c in comps]
            rank = len(dims[0])
            target = shapes[j] or [None] * rank
            size = []
            for d in range(rank):
                longest = max(s[d] for s in dims)
                if target[d] is None:
                    size.append(longest)
                elif longest > target[d]:
                    raise ValueError(
                        f"padded_batch: component {j} has dimension {d} of size {longest}, "
                        f"larger than its padded shape {target}"
                    )
                else:
                    size.append(target[d])
            out.append(_pad_stack(comps, size, values[j]))
        return out

    def _compute_spec(self):
        shapes, _ = self._targets()
        size = self._batch_size if self._drop_remainder else None
        specs = [
            TensorSpec(None if shape is None else (size, *shape), s.dtype)
            for s, shape in zip(flat_specs(self._input.element_spec), shapes)
        ]
        return with_flat_specs(self._input.element_spec, specs)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        b = self._batch_size
        return n // b if self._drop_remainder else -(-n // b)


def _elements_of(stream: Any) -> Iterator[list]:
    if isinstance(stream, ElementStream):
        return stream.elements
    return (row for b in iter_blocks(stream) for row in b.rows())


def _pad_stack(comps: list, size: list[int], value: Any) -> Any:
    if isinstance(comps[0], torch.Tensor):
        fill = to_component(value, "padding_values")
        out = torch.full((len(comps), *size), fill.item() if isinstance(fill, torch.Tensor)
                         else fill, dtype=comps[0].dtype, device=comps[0].device)
        for i, c in enumerate(comps):
            out[(i, *(slice(0, d) for d in c.shape))] = c
        return out
    out = np.full((len(comps), *size), str(value), dtype=object)
    for i, c in enumerate(comps):
        c = np.asarray(c, dtype=object)
        if c.ndim == 0:  # a scalar string: the str itself, not a 0-d array inside the batch
            out[i] = c.item()
        else:
            out[(i, *(slice(0, d) for d in c.shape))] = c
    return out


def _flatten_up_to(spec: Any, value: Any, what: str) -> list:
    """Flattens `value` to one entry per component of `spec` (a leaf may be a shape/scalar)."""
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            return [value] * len(flatten(spec)) if what == "padding_values" else _bad(what, value)
        return [x for k in sorted(spec) for x in _flatten_up_to(spec[k], value[k], what)]
    if isinstance(spec, tuple):
        if isinstance(value, (tuple, list)) and len(value) == len(spec) and not (
            what == "padded_shapes" and all(isinstance(v, (int, type(None))) for v in value)
        ):
            return [x for s, v in zip(spec, value) for x in _flatten_up_to(s, v, what)]
        if what == "padding_values" and not isinstance(value, (tuple, list, dict)):
            return [value] * len(flatten(spec))
        return _bad(what, value)
    if what == "padded_shapes":
        if isinstance(value, torch.Size):
            return [list(value)]
        if value is not None and not isinstance(value, (list, tuple)):
            return _bad(what, value)
    return [value]


def _bad(what: str, value: Any) -> list:
    raise ValueError(f"padded_batch: `{what}` does not match the element structure; "
                     f"received {value!r}")
