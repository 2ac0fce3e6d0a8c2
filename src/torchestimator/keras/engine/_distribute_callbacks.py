"""Keras `fit` under a strategy with several replicas: the callbacks each replica runs.

The strategy's data-parallel part (`distribute._data_parallel.DataParallel`, or
`distribute._fsdp.FSDPParallel` under `FSDPStrategy`) says who this replica is
(`is_chief`) and whether the weights are sharded (`shards_weights`); this module, on the
Keras side, adapts the `CallbackList` of `fit` to it (`adapt_callbacks`):

* on a non-chief replica the callbacks that write files (ModelCheckpoint, TensorBoard,
  CSVLogger, and any with `_chief_worker_only = True`) are left out; BackupAndRestore only
  restores (the chief writes the backup), so a restarted job resumes on every replica from
  the chief's backup;
* under FSDPStrategy a `ModelCheckpoint` / `BackupAndRestore` saving every N batches is
  refused (the full weights exist at epoch ends only), and `fit` ends FSDP at its end
  (`end_of_fit_callback`: the model holds its full weights again).
"""

from __future__ import annotations

import os
from typing import Any

from torchestimator.keras.callbacks import BackupAndRestore, Callback, ModelCheckpoint
from torchestimator.keras.callbacks.backup_and_restore import _METADATA


def adapt_callbacks(parallel: Any, callbacks: Any) -> None:
    """Adapts `callbacks` (the CallbackList of `fit`) to this replica of `parallel` (see the
    module doc)."""
    shards = getattr(parallel, "shards_weights", False)
    if shards:
        refuse_mid_epoch_savers(callbacks)
    if not parallel.is_chief:
        keep_chief_only_writers(callbacks)
    if shards:
        callbacks.callbacks.append(end_of_fit_callback(parallel))
        callbacks._refresh()


_WRITERS = ("ModelCheckpoint", "TensorBoard", "CSVLogger")


def keep_chief_only_writers(callbacks: Any) -> None:
    """Leaves out of `callbacks` (a CallbackList) what only the chief may run (see module doc)."""
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


class _RestoreOnly(Callback):
    """A non-chief replica's BackupAndRestore: restores the chief's backup at train begin and
    writes nothing."""

    def __init__(self, backup: Any) -> None:
        super().__init__()
        self._backup = backup

    def set_model(self, model: Any) -> None:
        super().set_model(model)
        self._backup.set_model(model)

    def on_train_begin(self, logs: Any = None) -> None:
        metadata = os.path.join(self._backup.backup_dir, _METADATA)
        if os.path.exists(metadata):
            self._backup._restore(metadata)


class _EndOfFit(Callback):
    """Gathers the shards into the model at `on_train_end`."""

    def __init__(self, parallel: Any) -> None:
        super().__init__()
        self._parallel = parallel

    def on_train_end(self, logs: Any = None) -> None:
        self._parallel.end_training()


def end_of_fit_callback(parallel: Any) -> Any:
    """A Keras callback ending FSDP at the end of `fit` (every replica): the model holds its
    full weights again, so `predict`, `save` and a single replica's calls work as usual."""
    return _EndOfFit(parallel)


def refuse_mid_epoch_savers(callbacks: Any) -> None:
    """Under FSDPStrategy the full weights exist at epoch ends only: a `ModelCheckpoint` or
    `BackupAndRestore` saving every N batches is refused (ValueError naming it)."""

    for cb in getattr(callbacks, "callbacks", callbacks):
        freq = getattr(cb, "save_freq", "epoch")
        if isinstance(cb, (ModelCheckpoint, BackupAndRestore)) and isinstance(freq, int) and not isinstance(freq, bool):
            raise ValueError(
                f"FSDPStrategy: {type(cb).__name__}(save_freq={freq}) saves in the middle of an epoch, when "
                "the weights are sharded across the replicas. Use save_freq='epoch' (the weights are gathered "
                "at each epoch end).")
