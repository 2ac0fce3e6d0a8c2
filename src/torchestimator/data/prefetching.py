"""`Dataset.prefetch`: run the pipeline ahead on a background thread.

The input pass runs on a daemon thread that fills a queue `buffer_size`
elements deep, so reading and batching overlap with the training step that
consumes them. Ending the pass (loop exit, iterator dropped) stops the thread.
The thread starts once the input proves costly (`background.prefetched_when_costly`): an
in-memory pipeline whose elements cost microseconds is produced in the consumer's thread,
where it costs less than handing each element over.
"""

from __future__ import annotations

from torchestimator.data.background import prefetched, prefetched_when_costly
from torchestimator.data.constants import AUTOTUNE
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.streams import BlockStream, ElementStream, iter_blocks

AUTOTUNE_DEPTH = 4
"""Prefetch depth chosen for `prefetch(tf.data.AUTOTUNE)`."""


class PrefetchDataset(UnaryDataset):
    """The input, produced ahead on a background thread (`Dataset.prefetch`) once it proves
    costly; `always_threaded`: from the first element (a copy that must overlap the step)."""

    def __init__(self, input_dataset: Dataset, buffer_size: int, always_threaded: bool = False):
        super().__init__((input_dataset,))
        self._buffer_size = buffer_size
        self._always_threaded = always_threaded

    def _depth(self) -> int:
        if self._buffer_size != AUTOTUNE:
            return self._buffer_size
        return 1 if self.options().autotune.enabled is False else AUTOTUNE_DEPTH

    def _open(self):
        depth = self._depth()
        if depth == 0:
            return self._input._open()
        stream = self._input._open()
        ahead = prefetched if self._always_threaded else prefetched_when_costly
        if isinstance(stream, ElementStream):
            return ElementStream(ahead(lambda: stream.elements, depth))
        return BlockStream(ahead(lambda: iter_blocks(stream), depth))

    def _compute_spec(self):
        return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return self._input._compute_cardinality()
