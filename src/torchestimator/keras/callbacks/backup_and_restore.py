"""`tf.keras.callbacks.BackupAndRestore`: resume an interrupted `fit` where it stopped."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from typing import Any

from torchestimator._engine.dir_lock import LOCK_FILENAME
from torchestimator._engine.state_io import (
    atomic_write_bytes,
    dumps_json,
    flatten_state,
    remove_stale_temps,
    sha256,
    tensors_from_bytes,
    tensors_to_bytes,
    unflatten_state,
)
from torchestimator.keras.callbacks.callback import Callback, Logs
from torchestimator.keras.saving.saving_lib import load_weights_from_bytes, weights_to_bytes

_FORMAT = "torchestimator.keras.callbacks.BackupAndRestore"
_VERSION = 1
_METADATA = "training_metadata.json"
_BACKUP_FILE = re.compile(r"^backup-\d+\.(model|optimizer)\.safetensors$")



def _optimizer_state(model: Any) -> dict | None:
    """The optimizer state a backup keeps: a Keras model's `_optimizer_state()` (both
    optimizers of a two-optimizer WideDeepModel), else the `state_dict()` of the model's
    `optimizer`, else None."""
    hook = getattr(model, "_optimizer_state", None)
    if hook is not None:
        return hook()
    optimizer = getattr(model, "optimizer", None)
    return optimizer.state_dict() if hasattr(optimizer, "state_dict") else None


def _load_optimizer_state(model: Any, state: dict) -> None:
    """Restores what `_optimizer_state` returned for `model`."""
    hook = getattr(model, "_load_optimizer_state", None)
    if hook is not None:
        hook(state)
    else:
        model.optimizer.load_state_dict(state)

class BackupAndRestore(Callback):
    """Callback to back up and restore the training state.

    At the end of every epoch (or every `save_freq` batches) the model's
    weights (its `state_dict`, buffers included), the optimizer's state and
    the epoch are written to `backup_dir`, replacing the previous backup. If
    training is interrupted, the next `fit` with this callback restores them
    in `on_train_begin` and continues from the epoch where it stopped: the
    callback sets `model._initial_epoch`, which `fit` reads. When `fit`
    completes, the backup is deleted (unless `delete_checkpoint=False`).

    Files: `training_metadata.json` (the epoch, and the names of the current
    files) and two safetensors files per backup (model, optimizer). Each file
    is written to a temporary name, fsynced and renamed, and the JSON that
    points at them is written last, so a crash while saving leaves the
    previous backup intact. The metadata records the SHA-256 of each file and
    of itself, so a damaged backup is reported naming the file instead of
    resuming from wrong values; the temporary and superseded files of a
    process killed mid-backup are removed by the next backup. Nothing is pickled.

        callback = tf.keras.callbacks.BackupAndRestore(backup_dir="/tmp/backup")
        model.fit(x, y, epochs=10, callbacks=[callback])  # interrupted at epoch 4
        model.fit(x, y, epochs=10, callbacks=[callback])  # runs epochs 4..9

    Args:
        backup_dir: directory for the backup; do not use it for anything else
            (it is deleted when training completes).
        save_freq: `"epoch"` (back up at the end of every epoch) or an int:
            back up every that many training batches. A backup made inside an
            epoch resumes inside it, as in TF: the callback sets
            `model._initial_step` to the batch after the backup, and `fit`
            skips the epoch's batches before it (it does not train on them
            again) and numbers the batches from there.
        delete_checkpoint: delete the backup when training completes.
        save_before_preemption: accepted for compatibility; preemption
            notices of TF's cluster managers do not exist here, so it must be False.
    """

    def __init__(
        self,
        backup_dir: str | os.PathLike,
        save_freq: str | int = "epoch",
        delete_checkpoint: bool = True,
        save_before_preemption: bool = False,
    ) -> None:
        super().__init__()
        self._supports_tf_logs = True
        if not backup_dir or not isinstance(backup_dir, (str, os.PathLike)):
            raise ValueError(
                f"Empty or invalid `backup_dir` argument passed: {backup_dir!r}; pass a directory path."
            )
        if save_freq != "epoch" and (
            isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1
        ):
            raise ValueError(
                f"Invalid value for argument `save_freq`. Received: save_freq={save_freq!r}. "
                "Expected either 'epoch' or a positive integer (a number of batches)."
            )
        if save_before_preemption:
            raise ValueError(
                "BackupAndRestore: `save_before_preemption=True` needs TF's preemption notices, "
                "which do not exist here. Use save_freq to back up more often instead."
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self.save_before_preemption = save_before_preemption
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = -1
        self._current_epoch = 0
        self._chief_worker_only = False

    # -- hooks --------------------------------------------------------------------------------

    def _write_locks(self) -> list[tuple[str, str]]:
        return [(self.backup_dir, LOCK_FILENAME)]

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Restores the last backup, if any, and sets `model._initial_epoch` to resume from it."""
        remove_stale_temps(self.backup_dir)  # of a process killed mid-backup
        metadata_path = os.path.join(self.backup_dir, _METADATA)
        if not os.path.exists(metadata_path):
            return
        self._restore(metadata_path)

    def _implements_train_batch_hooks(self) -> bool:
        return self.save_freq != "epoch"

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """Remembers the epoch."""
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """With an integer `save_freq`, backs up every `save_freq` batches."""
        if self._should_save_on_batch(batch):
            self._backup(epoch=self._current_epoch, batch=batch)

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """With `save_freq='epoch'`, backs up the finished epoch."""
        self._last_batch_seen = -1
        if self.save_freq == "epoch":
            self._backup(epoch=epoch, batch=None)

    def on_train_end(self, logs: Logs | None = None) -> None:
        """Deletes the backup (training completed), unless `delete_checkpoint=False`."""
        if self.delete_checkpoint and os.path.isdir(self.backup_dir):
            shutil.rmtree(self.backup_dir)

    # -- backup -------------------------------------------------------------------------------

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:  # a new epoch
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _backup(self, epoch: int, batch: int | None) -> None:
        """Writes the model, the optimizer state and the position in training.

        The tensor files of a new generation are written first, the metadata
        naming them last; then the previous generation's files are removed.
        """
        model = self.model
        previous = self._read_metadata(os.path.join(self.backup_dir, _METADATA))
        generation = (previous or {}).get("generation", 0) + 1
        model_file = f"backup-{generation}.model.safetensors"
        optimizer_file = None
        optimizer_skeleton = None
        written: list[str] = []
        digests: dict[str, str] = {}
        try:
            digests[model_file] = self._write_bytes(
                model_file, weights_to_bytes(model, {"format": _FORMAT}), written)
            optimizer_state = _optimizer_state(model)
            if optimizer_state is not None:
                tensors, optimizer_skeleton = flatten_state(optimizer_state)
                optimizer_file = f"backup-{generation}.optimizer.safetensors"
                digests[optimizer_file] = self._write_tensors(optimizer_file, tensors, written)
            steps = self.params.get("steps") if self.params else None
            if batch is None or (steps is not None and batch >= steps - 1):
                initial_epoch, initial_step = epoch + 1, 0
            else:
                initial_epoch, initial_step = epoch, batch + 1
            metadata = {
                "format": _FORMAT,
                "version": _VERSION,
                "generation": generation,
                "epoch": epoch,
                "batch": batch,
                "initial_epoch": initial_epoch,
                "initial_step": initial_step,
                "model_file": model_file,
                "optimizer_file": optimizer_file,
                "optimizer_state": optimizer_skeleton,
                "sha256": digests,
                "time": time.time(),
            }
            metadata["checksum"] = sha256(dumps_json(metadata))
            atomic_write_bytes(os.path.join(self.backup_dir, _METADATA), dumps_json(metadata))
        except BaseException:
            # The metadata still names the previous backup: drop this half-written one.
            for path in written:
                if os.path.exists(path):
                    os.remove(path)
            raise
        # The previous backup's files, and any a process killed mid-backup left behind.
        for name in os.listdir(self.backup_dir):
            if _BACKUP_FILE.match(name) and name not in (model_file, optimizer_file):
                try:
                    os.remove(os.path.join(self.backup_dir, name))
                except FileNotFoundError:
                    pass
        remove_stale_temps(self.backup_dir)

    def _write_tensors(self, name: str, tensors: dict[str, Any], written: list[str]) -> str:
        return self._write_bytes(name, tensors_to_bytes(tensors, metadata={"format": _FORMAT}), written)

    def _write_bytes(self, name: str, data: bytes, written: list[str]) -> str:
        """Writes `name` atomically; returns the SHA-256 of `data`."""
        path = os.path.join(self.backup_dir, name)
        written.append(path)
        atomic_write_bytes(path, data)
        return sha256(data)

    def _read_bytes(self, name: str, expected: str | None = None) -> tuple[str, bytes]:
        """Reads backup file `name`; checks it against the SHA-256 the metadata records."""
        path = os.path.join(self.backup_dir, name)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as error:
            raise ValueError(
                f"BackupAndRestore: cannot read {path} named by the backup's metadata: {error}. "
                "Delete the backup directory to start training from scratch."
            ) from error
        if expected is not None and sha256(data) != expected:
            tensors_from_bytes(data, source=path)  # reports a file that is not even safetensors
            raise ValueError(
                f"BackupAndRestore: the backup file {path} is corrupt: its SHA-256 differs from "
                f"the one its metadata records. Delete {self.backup_dir!r} to start training "
                "from scratch."
            )
        return path, data

    def _read_tensors(self, name: str, expected: str | None = None) -> dict[str, Any]:
        path, data = self._read_bytes(name, expected)
        return tensors_from_bytes(data, source=path)

    def _restore(self, metadata_path: str) -> None:
        metadata = self._read_metadata(metadata_path)
        if metadata is None or metadata.get("format") != _FORMAT:
            raise ValueError(
                f"BackupAndRestore: {metadata_path} is not a backup written by this callback. "
                "Use an empty or dedicated `backup_dir`."
            )
        model = self.model
        digests = metadata.get("sha256") or {}
        try:
            model_file = metadata["model_file"]
            initial_epoch = int(metadata["initial_epoch"])
            initial_step = int(metadata["initial_step"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(
                f"BackupAndRestore: the backup metadata {metadata_path} is incomplete or corrupt "
                f"({type(error).__name__}: {error}). Delete {self.backup_dir!r} to start training "
                "from scratch."
            ) from error
        path, data = self._read_bytes(model_file, digests.get(model_file))
        try:  # by name, or by order for the same model built again with new layer names
            load_weights_from_bytes(model, data, path)
        except (RuntimeError, KeyError, ValueError) as error:
            raise ValueError(
                f"BackupAndRestore: the backup in {self.backup_dir!r} does not fit this model "
                f"(is the model built, and the same as the one backed up?): {error}"
            ) from error
        optimizer_file = metadata.get("optimizer_file")
        if optimizer_file and getattr(model, "optimizer", None) is not None:
            tensors = self._read_tensors(optimizer_file, digests.get(optimizer_file))
            try:
                _load_optimizer_state(model, unflatten_state(tensors, metadata["optimizer_state"]))
            except (KeyError, TypeError, ValueError, IndexError, RuntimeError) as error:
                raise ValueError(
                    f"BackupAndRestore: the optimizer state in {self.backup_dir!r} "
                    f"({optimizer_file}) does not fit this model's optimizer: {error}"
                ) from error
        model._initial_epoch = initial_epoch
        model._initial_step = initial_step
        self._current_epoch = model._initial_epoch
        # fit numbers the resumed epoch's batches from `initial_step`: count save_freq from there
        self._last_batch_seen = initial_step - 1
        self._batches_seen_since_last_saving = 0

    @staticmethod
    def _read_metadata(path: str) -> dict[str, Any] | None:
        if not os.path.exists(path):
            return None
        try:
            with open(path, encoding="utf-8") as f:
                metadata = json.load(f)
        except (OSError, ValueError) as error:
            raise ValueError(
                f"BackupAndRestore: cannot read the backup metadata {path}: {error}. "
                "Delete the backup directory to start training from scratch."
            ) from error
        if not isinstance(metadata, dict):
            raise ValueError(
                f"BackupAndRestore: the backup metadata {path} is not a JSON object. Delete the "
                "backup directory to start training from scratch."
            )
        recorded = metadata.pop("checksum", None)
        if recorded is not None and sha256(dumps_json(metadata)) != recorded:
            raise ValueError(
                f"BackupAndRestore: the backup metadata {path} is corrupt: it fails its checksum. "
                "Delete the backup directory to start training from scratch."
            )
        return metadata
