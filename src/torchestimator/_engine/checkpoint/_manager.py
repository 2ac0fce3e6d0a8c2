"""`CheckpointManager`: numbered checkpoints in a directory, the old ones deleted as TF's
`Saver` keeps them."""

from __future__ import annotations

import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._engine import storage
from torchestimator._engine.checkpoint._format import (
    _TMP_PREFIX,
    METADATA_SUFFIX,
    _delete_checkpoint,
    _ensure_directory,
    _remove,
    checkpoint_exists,
    write_checkpoint,
)
from torchestimator._engine.checkpoint._index import (
    _read_index,
    _resolve,
    _scan,
    _series,
    latest_checkpoint,
    write_index,
)

_log = logging.getLogger("torchestimator._engine.checkpoint")


class CheckpointManager:
    """Saves numbered checkpoints in `directory` and deletes old ones, as TF's `Saver` under
    an Estimator (and `tf.train.CheckpointManager`).

    Keeps the newest `max_to_keep` checkpoints (0 or None keeps all); of the older ones,
    one every `keep_checkpoint_every_n_hours` is preserved (its files stay, it leaves the
    index). Construction picks up the index already in `directory` (resume). A single
    process (the chief) is expected to write a directory.

    Args:
      directory: the model_dir.
      max_to_keep: how many recent checkpoints to keep.
      keep_checkpoint_every_n_hours: preserve one checkpoint per this many hours.
      checkpoint_basename: the file name stem, `model.ckpt` as in TF.
      clock: returns the current time in seconds (injectable for tests).
    """

    def __init__(
        self,
        directory: str,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float | None = 10000.0,
        checkpoint_basename: str = "model.ckpt",
        clock: Callable[[], float] = time.time,
    ) -> None:
        directory = storage.local(os.fspath(directory))
        if not directory:
            raise ValueError("CheckpointManager: `directory` must be a non-empty path; received ''.")
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep < 0):
            raise ValueError(
                f"CheckpointManager: `max_to_keep` must be an int >= 0 or None; received {max_to_keep!r}."
            )
        if keep_checkpoint_every_n_hours is not None and not keep_checkpoint_every_n_hours > 0:
            raise ValueError(
                "CheckpointManager: `keep_checkpoint_every_n_hours` must be > 0; received "
                f"{keep_checkpoint_every_n_hours!r}."
            )
        if not checkpoint_basename or os.sep in checkpoint_basename:
            raise ValueError(
                "CheckpointManager: `checkpoint_basename` must be a plain file name such as "
                f"'model.ckpt'; received {checkpoint_basename!r}."
            )
        self._directory = directory
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._basename = checkpoint_basename
        self._clock = clock
        # relative name -> timestamp, oldest first (TF's `_maybe_delete`).
        self._kept: OrderedDict[str, float] = OrderedDict()
        self._latest: str | None = None
        now = clock()
        self._last_preserved_timestamp = now
        _ensure_directory(directory)
        self._remove_stale_temp_files()
        self._recover(now)

    # -- properties -----------------------------------------------------------------

    @property
    def directory(self) -> str:
        """The folder checkpoints are written to."""
        return self._directory

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint this manager saved, or on construction the newest
        complete one in the directory; None if there is none."""
        return self._latest

    @property
    def checkpoints(self) -> list[str]:
        """The prefixes of the kept checkpoints, oldest first."""
        return [storage.join(self._directory, name) for name in self._kept]

    # -- resume -----------------------------------------------------------------------

    def _remove_stale_temp_files(self) -> None:
        if storage.is_url(self._directory):
            return  # no temporary files on a store
        try:
            names = os.listdir(self._directory)
        except OSError:
            return
        for name in names:
            if name.startswith(_TMP_PREFIX):
                _remove(os.path.join(self._directory, name))

    def _relative(self, prefix: str) -> str:
        """The name the index uses: relative to the directory when the checkpoint is inside it."""
        if storage.is_url(self._directory):
            if "://" in prefix and storage.abspath(storage.dirname(prefix)) == storage.abspath(self._directory):
                return storage.basename(prefix)
            return prefix
        if not os.path.dirname(prefix):
            return prefix
        here = os.path.normpath(os.path.abspath(self._directory))
        if os.path.normpath(os.path.dirname(os.path.abspath(prefix))) == here:
            return os.path.basename(prefix)
        return prefix

    def _recover(self, now: float) -> None:
        state = _read_index(self._directory)
        if state is not None:
            paths = [self._relative(p) for p in state["all_model_checkpoint_paths"]]
            stamps = list(state["all_model_checkpoint_timestamps"])
            if len(stamps) != len(paths):
                stamps = [self._mtime(p, now) for p in paths]
            for p, t in zip(paths, stamps):
                self._kept[p] = t
            if state["last_preserved_timestamp"]:
                self._last_preserved_timestamp = state["last_preserved_timestamp"]
        else:
            for _, prefix in _scan(self._directory, self._basename):
                if checkpoint_exists(prefix):
                    self._kept[storage.basename(prefix)] = self._mtime(storage.basename(prefix), now)
        # The newest complete checkpoint (a damaged newest one is skipped, with a warning).
        self._latest = latest_checkpoint(self._directory)
        if self._latest is not None:
            relative = self._relative(self._latest)
            if relative not in self._kept and "/" not in relative and os.sep not in relative \
                    and _series(relative) == self._basename:
                # Not among the index's paths (a damaged index): kept like the others, so
                # that max_to_keep deletes it in turn.
                self._kept[relative] = self._mtime(relative, now)
        if now < self._last_preserved_timestamp:
            # The clock went backwards since the last run: start the preservation window now.
            self._last_preserved_timestamp = now

    def _mtime(self, relative: str, default: float) -> float:
        try:
            return storage.getmtime(_resolve(self._directory, relative) + METADATA_SUFFIX)
        except OSError:
            return default

    # -- saving -----------------------------------------------------------------------

    def save(
        self,
        global_step: int,
        tensors: dict[str, torch.Tensor],
        extra: dict[str, Any] | None = None,
        step_tensor: bool = True,
    ) -> str:
        """Writes checkpoint `<directory>/<basename>-<global_step>` and deletes old ones.

        `tensors` is a flat `{name: tensor}` dict; a scalar int64 `global_step` tensor is
        added if absent (unless `step_tensor` is False: object-based checkpoints number
        their files without storing the number as a tensor). `extra` is any JSON-able
        dict stored in the metadata. Re-saving an existing step overwrites it.

        Returns:
          The checkpoint prefix.
        """
        if isinstance(global_step, torch.Tensor):
            global_step = int(global_step.item())
        if isinstance(global_step, bool) or not isinstance(global_step, (int, np.integer)) or global_step < 0:
            raise ValueError(
                f"CheckpointManager.save: `global_step` must be an int >= 0; received {global_step!r}."
            )
        global_step = int(global_step)
        if not isinstance(tensors, dict):
            raise TypeError(
                "CheckpointManager.save: `tensors` must be a dict {name: torch.Tensor}; received "
                f"{type(tensors).__name__}."
            )
        for name, value in tensors.items():
            if not isinstance(name, str) or not isinstance(value, torch.Tensor):
                raise TypeError(
                    "CheckpointManager.save: `tensors` must map str names to torch.Tensor; entry "
                    f"{name!r} is a {type(value).__name__}. Flatten nested state with flatten_state()."
                )
        if extra is not None and not isinstance(extra, dict):
            raise TypeError(f"CheckpointManager.save: `extra` must be a dict or None; received {type(extra).__name__}.")
        tensors = dict(tensors)
        if "global_step" in tensors:
            stored = tensors["global_step"]
            if step_tensor and (stored.numel() != 1 or int(stored.reshape(()).item()) != global_step):
                raise ValueError(
                    "CheckpointManager.save: tensors['global_step'] holds "
                    f"{stored.tolist()} but `global_step` is {global_step}; they must agree."
                )
        elif step_tensor:
            tensors["global_step"] = torch.tensor(global_step, dtype=torch.int64)

        relative = f"{self._basename}-{global_step}"
        prefix = storage.join(self._directory, relative)
        now = self._clock()
        write_checkpoint(prefix, tensors, global_step, extra, clock=lambda: now)

        # Move a re-saved step to the end of the queue (TF's CheckpointManager).
        self._kept.pop(relative, None)
        self._kept[relative] = now
        self._latest = prefix
        # The index names the new checkpoint before anything is deleted, and again after.
        self._write_index()
        if self._sweep():
            self._write_index()
        return prefix

    def _sweep(self) -> bool:
        """Deletes (or preserves) checkpoints beyond max_to_keep; returns True if any left the list."""
        if not self._max_to_keep:
            return False
        changed = False
        while len(self._kept) > self._max_to_keep:
            relative, timestamp = self._kept.popitem(last=False)
            changed = True
            if self._keep_hours and timestamp - self._keep_hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = timestamp
                _log.info("Preserving checkpoint %s (keep_checkpoint_every_n_hours).", relative)
                continue
            _delete_checkpoint(_resolve(self._directory, relative))
        return changed

    def _write_index(self) -> None:
        write_index(
            self._directory,
            self._relative(self._latest) if self._latest else "",
            list(self._kept),
            list(self._kept.values()),
            self._last_preserved_timestamp,
        )

    def __repr__(self) -> str:
        return (
            f"CheckpointManager(directory={self._directory!r}, max_to_keep={self._max_to_keep}, "
            f"keep_checkpoint_every_n_hours={self._keep_hours}, latest={self._latest!r})"
        )
