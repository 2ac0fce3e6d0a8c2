"""Transformations over several datasets: zip, concatenate, flat_map, interleave."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from torchestimator.data import constants
from torchestimator.data._interleave import interleave_blocks
from torchestimator.data.background import default_parallelism
from torchestimator.data.columns import Block
from torchestimator.data.dataset import Dataset
from torchestimator.data.files import FileListDataset
from torchestimator.data.mapping import call_on
from torchestimator.data.streams import (
    BlockStream,
    ElementStream,
    IndexStream,
    ZipRows,
    identity_stream,
    iter_blocks,
    iter_elements,
)
from torchestimator.data.structure import (
    flat_specs,
    flatten,
    make_packer,
    map_structure,
    relaxed_spec,
    same_structure,
    with_flat_specs,
)


def align_blocks(streams: list[Iterator[Block]]) -> Iterator[Block]:
    """Blocks holding the columns of several block streams side by side, row-aligned.

    Stops when any stream ends.
    """
    cur: list = [None] * len(streams)
    off = [0] * len(streams)
    while True:
        for j, s in enumerate(streams):
            while cur[j] is None or off[j] >= cur[j].n:
                nxt = next(s, None)
                if nxt is None:
                    return
                cur[j], off[j] = nxt, 0
        m = min(cur[j].n - off[j] for j in range(len(streams)))
        cols: list = []
        for j in range(len(streams)):
            cols.extend(cur[j].slice(off[j], off[j] + m).cols)
            off[j] += m
        yield Block(cols, m)


class ZipDataset(Dataset):
    """Elements of several datasets side by side, in a nest (`Dataset.zip`)."""

    def __init__(self, datasets: Any):
        children = flatten(datasets)
        bad = [d for d in children if not isinstance(d, Dataset)]
        if bad or not children:
            raise TypeError(
                "Dataset.zip expects Datasets (or a nest of them); received "
                f"{type(bad[0]).__name__ if bad else 'no datasets'}"
            )
        super().__init__(tuple(children))
        self._structure = datasets

    def _open(self):
        streams = [d._open() for d in self._inputs]
        if all(isinstance(s, IndexStream) and s.identity for s in streams):
            return identity_stream(ZipRows([s.base for s in streams]))
        if any(isinstance(s, ElementStream) for s in streams):
            return ElementStream(self._zip_elements([iter_elements(s) for s in streams]))
        return BlockStream(align_blocks([iter_blocks(s) for s in streams]))

    @staticmethod
    def _zip_elements(streams: list[Iterator[list]]) -> Iterator[list]:
        for parts in zip(*streams):
            yield [c for p in parts for c in p]

    def _compute_spec(self):
        specs = iter([d.element_spec for d in self._inputs])
        return map_structure(lambda _: next(specs), self._structure)

    def _compute_cardinality(self) -> int:
        return constants.minimum([d._compute_cardinality() for d in self._inputs])


class ConcatenateDataset(Dataset):
    """The elements of one dataset followed by another's (`Dataset.concatenate`)."""

    def __init__(self, first: Dataset, second: Dataset):
        super().__init__((first, second))
        a, b = first.element_spec, second.element_spec
        compatible = same_structure(a, b) and all(
            x.dtype == y.dtype for x, y in zip(flat_specs(a), flat_specs(b))
        )
        if not compatible:
            raise TypeError(
                "concatenate: the datasets must have compatible element types and structure; "
                f"received {a} and {b}"
            )

    def _open(self):
        first = self._inputs[0]._open()
        if isinstance(first, ElementStream):
            return ElementStream(self._chain(first, iter_elements))
        return BlockStream(self._chain(first, iter_blocks))

    def _chain(self, first: Any, convert: Callable) -> Iterator:
        yield from convert(first)
        yield from convert(self._inputs[1]._open())

    def _compute_spec(self):
        a, b = (d.element_spec for d in self._inputs)
        specs = [relaxed_spec(x, y) for x, y in zip(flat_specs(a), flat_specs(b))]
        return with_flat_specs(a, specs)

    def _compute_cardinality(self) -> int:
        return constants.add(*(d._compute_cardinality() for d in self._inputs))


class _DatasetFunction(Dataset):
    """Maps each input element to a Dataset (flat_map, interleave)."""

    def __init__(self, input_dataset: Dataset, fn: Callable):
        super().__init__((input_dataset,))
        self._fn = fn
        self._observed: Any = None

    def _datasets(self) -> Iterator[Dataset]:
        pack = None
        for flat in iter_elements(self._input._open()):
            if pack is None:
                pack = make_packer(self._input.element_spec)
            ds = call_on(self._fn, pack(flat))
            if not isinstance(ds, Dataset):
                raise TypeError(
                    f"`map_func` must return a Dataset; received {type(ds).__name__}"
                )
            if self._observed is None:
                self._observed = ds.element_spec
            yield ds

    def _compute_spec(self):
        if self._observed is None:
            it = self._datasets()
            try:
                next(it)
            except StopIteration:
                raise ValueError(
                    f"Cannot determine the element_spec of {type(self).__name__}: its input "
                    "is empty, so `map_func` was never called"
                ) from None
            finally:
                it.close()
        return self._observed

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        if isinstance(self._input, FileListDataset) and self._input.num_files >= num_shards:
            return self._replace_inputs((self._input.sharded(num_shards, index),))
        return None


class FlatMapDataset(_DatasetFunction):
    """Chains the datasets `map_func` returns for each element (`Dataset.flat_map`)."""

    def _open(self):
        return BlockStream(b for ds in self._datasets() for b in iter_blocks(ds._open()))




class InterleaveDataset(_DatasetFunction):
    """Interleaves the datasets `map_func` returns (`Dataset.interleave`)."""

    def __init__(self, input_dataset: Dataset, fn: Callable, cycle_length: int | None,
                 block_length: int, num_parallel_calls: int | None, deterministic: bool | None):
        super().__init__(input_dataset, fn)
        if cycle_length is None or cycle_length == constants.AUTOTUNE:
            cycle_length = default_parallelism()
        self._cycle_length = cycle_length
        self._block_length = block_length
        self._parallel = num_parallel_calls is not None and num_parallel_calls != 1
        self._deterministic = deterministic

    def _open(self):
        deterministic = (self.options().is_deterministic() if self._deterministic is None
                         else self._deterministic)
        blocks = interleave_blocks(
            self._datasets(), lambda ds: iter_blocks(ds._open()), self._cycle_length,
            self._block_length, self._parallel, deterministic,
        )
        return BlockStream(blocks)
