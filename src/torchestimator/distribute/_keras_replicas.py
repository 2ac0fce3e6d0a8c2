"""Keras `fit` / `evaluate` under a strategy with several replicas: each replica's part of the
input, and the callbacks a non-chief replica runs.

* `ReplicaData`: Keras' data (arrays, a Dataset, a generator) batched with the
  **global** batch size; each replica takes its part of every batch (B / N rows),
  as Keras' `experimental_distribute_dataset` does. For training, a step runs only
  when every replica has a batch.
* `keep_chief_only_writers`: on a non-chief replica the callbacks that write files
  (ModelCheckpoint, TensorBoard, CSVLogger, and any with `_chief_worker_only = True`)
  are left out; BackupAndRestore only restores (the chief writes the backup), so a
  restarted job resumes on every replica from the chief's backup.
"""

from __future__ import annotations

import os
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


_WRITERS = ("ModelCheckpoint", "TensorBoard", "CSVLogger")


def keep_chief_only_writers(callbacks: Any) -> None:
    """Leaves out of `callbacks` (a CallbackList) what only the chief may run (see module doc)."""
    from torchestimator.keras.callbacks import (  # lazy: heavy (torchestimator.keras.callbacks, 1159 ms)
        BackupAndRestore,
    )

    kept = []
    for cb in callbacks.callbacks:
        if isinstance(cb, BackupAndRestore):
            kept.append(_RestoreOnly(cb))
        elif getattr(cb, "_chief_worker_only", False) is True or any(
                klass.__name__ in _WRITERS for klass in type(cb).__mro__):
            continue
        else:
            kept.append(cb)
    callbacks.callbacks[:] = kept
    callbacks._refresh()


def _restore_only_class() -> type:
    from torchestimator.keras.callbacks import (  # lazy: heavy (torchestimator.keras.callbacks, 1478 ms)
        Callback,
    )

    class RestoreOnly(Callback):
        """A non-chief replica's BackupAndRestore: restores the chief's backup at train begin and
        writes nothing."""

        def __init__(self, backup: Any) -> None:
            super().__init__()
            self._backup = backup

        def set_model(self, model: Any) -> None:
            super().set_model(model)
            self._backup.set_model(model)

        def on_train_begin(self, logs: Any = None) -> None:
            from torchestimator.keras.callbacks.backup_and_restore import (  # lazy: heavy (torchestimator.keras.callbacks.backup_and_restore, 2051 ms)
                _METADATA,
            )

            metadata = os.path.join(self._backup.backup_dir, _METADATA)
            if os.path.exists(metadata):
                self._backup._restore(metadata)

    return RestoreOnly


def _RestoreOnly(backup: Any) -> Any:
    global _RESTORE_ONLY
    if _RESTORE_ONLY is None:
        _RESTORE_ONLY = _restore_only_class()
    return _RESTORE_ONLY(backup)


_RESTORE_ONLY: type | None = None
