"""Keras `fit` / `evaluate` under a strategy with several replicas: each replica's part of the
input.

* `ReplicaData`: Keras' data (arrays, a Dataset, a generator) batched with the
  **global** batch size; each replica takes its part of every batch (B / N rows),
  as Keras' `experimental_distribute_dataset` does. For training, a step runs only
  when every replica has a batch.

The callbacks each replica runs are Keras' side: `keras.engine._distribute_callbacks`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from torchestimator.distribute._distributed_dataset import split_batch


class ReplicaData:
    """This replica's view of Keras' data adapter `data` (its part of each global batch)."""

    def __init__(self, data: Any, parallel: Any, synced: bool) -> None:
        self._data = data
        self._parallel = parallel
        self._synced = synced

    def __getattr__(self, name: str) -> Any:
        return getattr(self._data, name)

    def _split(self, batches: Any) -> Iterator:
        rank, world = self._parallel.rank, self._parallel.world
        parts = (split_batch(b, rank, world) for b in batches)
        return self._parallel.synced(parts) if self._synced else parts

    def __iter__(self) -> Iterator:
        return self._split(self._data)

    def batches(self, skip: int = 0) -> Iterator:
        """The batches after the first `skip` (Keras' resume within an epoch)."""
        return self._split(self._data.batches(skip))
