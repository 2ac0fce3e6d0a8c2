"""Transformations over several datasets: zip, concatenate, flat_map, interleave."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from torchestimator.data import constants
from torchestimator.data.background import BackgroundIterator, default_parallelism
from torchestimator.data.columns import Block
from torchestimator.data.dataset import Dataset
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
        from torchestimator.data.files import (  # lazy: data.files imports this module at load time
            FileListDataset,
        )

        if isinstance(self._input, FileListDataset) and self._input.num_files >= num_shards:
            return self._replace_inputs((self._input.sharded(num_shards, index),))
        return None


class FlatMapDataset(_DatasetFunction):
    """Chains the datasets `map_func` returns for each element (`Dataset.flat_map`)."""

    def _open(self):
        return BlockStream(b for ds in self._datasets() for b in iter_blocks(ds._open()))


class _Slot:
    """One open inner dataset of an interleave: its blocks and a read position."""

    def __init__(self, blocks: Iterator[Block]):
        self.blocks = blocks
        self.block: Block | None = None
        self.offset = 0

    def take(self, limit: int | None) -> Block | None:
        """Up to `limit` rows (None: the rest of the current block); None when exhausted."""
        while self.block is None or self.offset >= self.block.n:
            self.block = next(self.blocks, None)
            self.offset = 0
            if self.block is None:
                return None
        stop = self.block.n if limit is None else self.offset + limit
        piece = self.block.slice(self.offset, stop)
        self.offset += piece.n
        return piece

    def ready(self) -> bool:
        """True when the next rows can be taken without waiting."""
        has_rows = self.block is not None and self.offset < self.block.n
        return has_rows or not isinstance(self.blocks, BackgroundIterator) or self.blocks.ready()

    def close(self) -> None:
        """Stops reading this inner stream (and its thread, if any)."""
        close = getattr(self.blocks, "close", None)
        if close is not None:
            close()


def interleave_blocks(inputs: Iterator[Any], open_blocks: Callable[[Any], Iterator[Block]],
                      cycle_length: int, block_length: int | None, parallel: bool,
                      deterministic: bool = True) -> Iterator[Block]:
    """TF's interleave over block streams.

    Keeps `cycle_length` inner streams open (opened from `inputs` as slots free up)
    and takes `block_length` rows from each in turn (None: one whole block). With
    `parallel`, each inner stream is read ahead on its own thread; if not
    `deterministic`, a slot whose data is not ready yet is passed over.
    """
    slots: list[_Slot | None] = [None] * cycle_length
    inputs_done = False
    i = 0
    try:
        while not inputs_done or any(s is not None for s in slots):
            slot = slots[i]
            if slot is None and not inputs_done:
                item = next(inputs, _DONE)
                if item is _DONE:
                    inputs_done = True
                else:
                    if parallel:  # open and read the inner stream on its own thread
                        blocks = BackgroundIterator(lambda x=item: open_blocks(x), depth=2,
                                                    name="tf.data-interleave")
                    else:
                        blocks = open_blocks(item)
                    slot = slots[i] = _Slot(blocks)
            if slot is not None and not deterministic and not slot.ready():
                ready = [j for j, s in enumerate(slots) if s is not None and s.ready()]
                if ready:
                    i = ready[0]
                    slot = slots[i]
            if slot is not None:
                produced = 0
                while block_length is None or produced < block_length:
                    piece = slot.take(None if block_length is None else block_length - produced)
                    if piece is None:
                        slot.close()
                        slots[i] = None
                        break
                    produced += piece.n
                    yield piece
                    if block_length is None:
                        break
            i = (i + 1) % cycle_length
    finally:
        for s in slots:
            if s is not None:
                s.close()


_DONE = object()


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
