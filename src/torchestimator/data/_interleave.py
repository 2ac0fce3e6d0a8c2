"""TF's interleave over block streams (`Dataset.interleave`, and the file readers' parallel
reads): one module below `combining` and `files`, which both use it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from torchestimator.data.background import BackgroundIterator
from torchestimator.data.columns import Block


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
