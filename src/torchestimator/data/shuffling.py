"""`Dataset.shuffle`: a shuffle buffer that moves whole column blocks.

TF's algorithm keeps `buffer_size` elements; for each new element it emits a
uniformly chosen buffered one and puts the new one in its place. Here the
same happens a block at a time: for a block of k incoming rows (k <= a
quarter of the buffer), k distinct buffer slots are chosen at random, their
rows are emitted as one gathered block and the k new rows are written into
those slots. With a buffer at least as large as the data, the result is a
uniform permutation. In-memory data is shuffled as an index array, so the
rows themselves are gathered once, by `batch`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np
import torch

from torchestimator.data.columns import Block, index_array
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.seeding import PassCounter, PassSeeds
from torchestimator.data.streams import (
    BlockStream,
    ElementStream,
    IndexStream,
    indices_of,
    iter_elements,
)
from torchestimator.data.structure import flat_specs


def draw_seed() -> int:
    """A seed from torch's global generator (reproducible after `torch.manual_seed`)."""
    return int(torch.randint(0, 2**62, ()).item())


def _owned(block: Block) -> Block:
    """A copy of `block` that may be written in place."""
    cols = [c.clone() if isinstance(c, torch.Tensor) else c.copy() for c in block.cols]
    return Block(cols, block.n)


def _fixed_shape(dataset: Dataset) -> bool:
    """True when every component of the dataset's elements has a fully known shape, so its
    blocks can be joined."""
    return all(
        d is not None for s in flat_specs(dataset.element_spec) for d in getattr(s, "shape", (None,))
    )


def step_size(buffer_size: int, batch_size: int | None = None) -> int:
    """Rows exchanged with the buffer per step: about a quarter of it, in whole batches."""
    step = max(1, buffer_size // 4)
    if batch_size is None:
        return step
    if batch_size <= step:
        return step // batch_size * batch_size
    return batch_size if batch_size <= buffer_size // 2 else step


def shuffle_blocks(blocks: Iterator[Block], buffer_size: int, rng: np.random.Generator,
                   step: int | None = None) -> Iterator[Block]:
    """Shuffles a block stream through a buffer of `buffer_size` rows (see module doc).

    Emits blocks of `step` rows (default: a quarter of the buffer); only the
    last blocks of the pass may be smaller.
    """
    step = step or step_size(buffer_size)
    it = iter(blocks)
    filled: list[Block] = []
    have = 0
    carry = None
    for b in it:
        if b.n == 0:
            continue
        need = buffer_size - have
        if b.n <= need:
            filled.append(b)
            have += b.n
        else:
            filled.append(b.slice(0, need))
            carry = b.slice(need, b.n)
            have = buffer_size
        if have == buffer_size:
            break
    if not have:
        return
    pool = _owned(Block.concat(filled)) if len(filled) == 1 else Block.concat(filled)
    if have == buffer_size:
        pieces: list[Block] = []
        waiting = 0
        for b in itertools.chain([carry], it) if carry is not None else it:
            start = 0
            while start < b.n:
                piece = b.slice(start, start + step - waiting)
                start += piece.n
                pieces.append(piece)
                waiting += piece.n
                if waiting == step:
                    yield _exchange(pool, pieces, waiting, buffer_size, rng)
                    pieces, waiting = [], 0
        if waiting:
            yield _exchange(pool, pieces, waiting, buffer_size, rng)
    order = rng.permutation(have)
    for s in range(0, have, step):
        yield pool.take(order[s:s + step])


def _exchange(pool: Block, pieces: list[Block], count: int, buffer_size: int,
              rng: np.random.Generator) -> Block:
    """Emits `count` random rows of the pool and puts the incoming `pieces` in their slots."""
    slots = rng.choice(buffer_size, count, replace=False)
    out = pool.take(slots)
    t_slots = torch.from_numpy(slots)
    pos = 0
    for piece in pieces:
        sel, t_sel = slots[pos:pos + piece.n], t_slots[pos:pos + piece.n]
        pos += piece.n
        for col, new in zip(pool.cols, piece.cols):
            if isinstance(col, torch.Tensor):
                col.index_copy_(0, t_sel if col.is_cpu else t_sel.to(col.device), new)
            else:
                col[sel] = new
    return out


def shuffle_elements(elements: Iterator[list], buffer_size: int,
                     rng: np.random.Generator) -> Iterator[list]:
    """TF's per-element shuffle buffer, for streams of single elements."""
    rnd = random.Random(int(rng.integers(2**62)))
    pool: list = []
    for e in elements:
        if len(pool) < buffer_size:
            pool.append(e)
            continue
        i = rnd.randrange(buffer_size)
        out, pool[i] = pool[i], e
        yield out
    rnd.shuffle(pool)
    yield from pool


def shuffle_indices(stream: IndexStream, buffer_size: int,
                    rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Shuffles the index selections of an in-memory pass."""
    if stream.identity and stream.base.num_rows <= buffer_size:
        yield rng.permutation(stream.base.num_rows)
        return
    blocks = (Block([index_array(idx)], len(idx)) for idx in indices_of(stream))
    for b in shuffle_blocks(blocks, buffer_size, rng):
        yield b.cols[0]


class ShuffleDataset(UnaryDataset):
    """Randomly shuffles elements through a buffer (`Dataset.shuffle`)."""

    def __init__(self, input_dataset: Dataset, buffer_size: int, seed: int | None,
                 reshuffle_each_iteration: bool):
        super().__init__((input_dataset,))
        self._buffer_size = buffer_size
        self._seed = draw_seed() if seed is None else seed
        self._reshuffle = reshuffle_each_iteration
        self._epochs = PassCounter()
        self._seeds = PassSeeds(self._seed)

    def _epoch(self) -> int:
        """The number of the pass being opened (always 0 without reshuffling)."""
        return self._epochs.next() if self._reshuffle else 0

    def _pass_state(self) -> list[int]:
        """[seed, number of the next pass]: what replays a pass (an iterator's `save()`)."""
        return [self._seed, self._epochs.value]

    def _set_pass_state(self, state: list[int]) -> None:
        seed, epoch = state
        if seed != self._seed:
            self._seed = seed
            self._seeds = PassSeeds(seed)
        self._epochs.value = epoch

    def _rng(self) -> np.random.Generator:
        return self._seeds.generator(self._epoch())

    def _open(self, batch_size: int | None = None):
        stream = self._input._open()
        b = self._buffer_size
        if isinstance(stream, IndexStream):
            if stream.identity and stream.base.num_rows <= b:
                # The whole pass fits the buffer: one permutation, drawn now (what
                # shuffle_indices draws, without building the pass's generator).
                order = self._seeds.permutation(self._epoch(), stream.base.num_rows)
                return IndexStream(stream.base, iter((order,)))
            return IndexStream(stream.base, shuffle_indices(stream, b, self._rng()))
        rng = self._rng()
        if isinstance(stream, BlockStream):
            if _fixed_shape(self._input):
                return BlockStream(shuffle_blocks(stream.blocks, b, rng, step_size(b, batch_size)))
            # Blocks of elements of varying shape (a flat_map or a snapshot of batches with a
            # short last one) cannot be joined in one buffer: shuffle them one at a time.
            return ElementStream(shuffle_elements(iter_elements(stream), b, rng))
        return ElementStream(shuffle_elements(stream.elements, b, rng))

    def _open_for_batch(self, batch_size: int):
        return self._open(batch_size)

    def _compute_spec(self):
        return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return self._input._compute_cardinality()
