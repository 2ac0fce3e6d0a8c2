"""`tf.keras.callbacks.ModelCheckpoint`: saves the model or its weights during training."""

from __future__ import annotations

import logging
import os
import re
from typing import Any

import numpy as np

from torchestimator._engine.state_io import remove_stale_temps
from torchestimator.keras.callbacks._logs import print_msg, to_python
from torchestimator.keras.callbacks.callback import Callback, Logs

_log = logging.getLogger(__name__)
_MODES = ("auto", "min", "max")


class ModelCheckpoint(Callback):
    """Callback to save the Keras model or model weights at some frequency.

    Args:
        filepath: path to save the model file; it may hold named formatting
            options filled with `epoch` (counting from 1), `batch` (with an
            integer `save_freq`) and the keys of the logs, e.g.
            `"weights.{epoch:02d}-{val_loss:.2f}.weights.safetensors"`.
        monitor: the metric name to monitor (`"val_"` prefix for validation
            metrics).
        verbose: 0 (silent) or 1 (a message when the callback saves).
        save_best_only: save only when the monitored quantity improved on the
            best value so far.
        save_weights_only: save with `model.save_weights(filepath)` instead of
            `model.save(filepath)`.
        mode: `"auto"`, `"min"` or `"max"`: whether the monitored quantity
            should be minimized or maximized; `"auto"` maximizes names holding
            `"acc"` or starting with `"fmeasure"`, minimizes the others.
        save_freq: `"epoch"` (save at the end of every epoch) or an int: save
            every that many training batches.
        options: accepted for compatibility with TensorFlow's signature;
            there are no TF save options here, so it must be None.
        initial_value_threshold: the initial "best" value of the monitored
            metric (with `save_best_only`).
        **kwargs: `period` (deprecated: save every `period` epochs) and
            `load_weights_on_restart` (deprecated: load the newest file matching
            `filepath` when training starts).
    """

    def __init__(
        self,
        filepath: str | os.PathLike,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: str | int = "epoch",
        options: Any = None,
        initial_value_threshold: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self._supports_tf_logs = True
        if not isinstance(filepath, (str, os.PathLike)) or not os.fspath(filepath):
            raise ValueError(
                f"ModelCheckpoint: `filepath` must be a non-empty path; received {filepath!r}."
            )
        if options is not None:
            raise ValueError(
                "ModelCheckpoint: `options` (tf.train.CheckpointOptions / tf.saved_model.SaveOptions) "
                f"has no equivalent here; received {options!r}. Remove the argument."
            )
        unknown = set(kwargs) - {"period", "load_weights_on_restart"}
        if unknown:
            raise TypeError(
                f"ModelCheckpoint got unexpected keyword arguments {sorted(unknown)}; "
                "accepted deprecated ones are 'period' and 'load_weights_on_restart'."
            )
        if save_freq != "epoch" and (
            isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1
        ):
            raise ValueError(
                f"Unrecognized save_freq: {save_freq!r}. Expected save_freq are 'epoch' or a "
                "positive integer (a number of batches)."
            )
        self.monitor = monitor
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.epochs_since_last_save = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = -1
        self._current_epoch = 0
        self.best = initial_value_threshold
        self.load_weights_on_restart = bool(kwargs.get("load_weights_on_restart", False))
        if "load_weights_on_restart" in kwargs:
            _log.warning(
                "`load_weights_on_restart` argument is deprecated. Please use `model.load_weights()` "
                "for loading weights before the start of `model.fit()`."
            )
        self.period = kwargs.get("period", 1)
        if "period" in kwargs:
            _log.warning(
                "`period` argument is deprecated. Please use `save_freq` to specify the frequency "
                "in number of batches seen."
            )
        if mode not in _MODES:
            _log.warning("ModelCheckpoint mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        if mode == "max" or mode == "auto" and ("acc" in monitor or monitor.startswith("fmeasure")):
            self.monitor_op = np.greater
            if self.best is None:
                self.best = -np.inf
        else:
            self.monitor_op = np.less
            if self.best is None:
                self.best = np.inf
        self._chief_worker_only = False

    # -- hooks --------------------------------------------------------------------------------

    def _write_locks(self) -> list[tuple[str, str]]:
        """The lock of this callback's file pattern, in the folder it writes (other files
        of a shared folder are not this callback's)."""
        directory, pattern = os.path.split(os.path.abspath(self.filepath))
        return [(directory, "." + re.sub(r"[^A-Za-z0-9_.-]", "_", pattern) + ".lock")]

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Removes the temporary files of a killed earlier run; with `load_weights_on_restart`,
        loads the newest checkpoint matching `filepath`."""
        self._remove_stale_temps()
        if not self.load_weights_on_restart:
            return
        path = self._get_most_recently_modified_file_matching_pattern(self.filepath)
        if path is not None and os.path.exists(path):
            try:
                self.model.load_weights(path)
            except (OSError, ValueError) as error:
                raise ValueError(f"Error loading file from {path}. Reason: {error}") from error

    def _implements_train_batch_hooks(self) -> bool:
        return self.save_freq != "epoch"

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """With an integer `save_freq`, saves every `save_freq` batches."""
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """Remembers the epoch (for batch-level file names)."""
        self._current_epoch = epoch

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """With `save_freq='epoch'`, saves at the end of the epoch."""
        self.epochs_since_last_save += 1
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    # -- saving -------------------------------------------------------------------------------

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

    def _save_model(self, epoch: int, batch: int | None, logs: Logs | None) -> None:
        if not (isinstance(self.save_freq, int) or self.epochs_since_last_save >= self.period):
            return
        logs = to_python(logs)  # read the device only when saving
        self.epochs_since_last_save = 0
        filepath = self._get_file_path(epoch, batch, logs)
        dirname = os.path.dirname(filepath)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        if not self.save_best_only:
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            self._save_handler(filepath)
            return
        current = logs.get(self.monitor)
        if current is None:
            _log.warning("Can save best model only with %s available, skipping.", self.monitor)
            return
        if self.monitor_op(current, self.best):
            if self.verbose > 0:
                print_msg(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                    f"{current:.5f}, saving model to {filepath}"
                )
            self.best = current
            self._save_handler(filepath)
        elif self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")

    def _save_handler(self, filepath: str) -> None:
        if self.save_weights_only:
            self.model.save_weights(filepath)
        else:
            self.model.save(filepath)
        self._remove_stale_temps()

    def _remove_stale_temps(self) -> None:
        """Each save is atomic (a temporary file renamed over the final name): removes the
        temporary files a process killed mid-save left, for every name of `filepath`'s pattern."""
        parts = re.split(r"\{[^{}]*\}", os.path.basename(self.filepath))
        names = re.compile("^" + ".*".join(re.escape(part) for part in parts) + "$", re.S)
        remove_stale_temps(os.path.dirname(os.path.abspath(self.filepath)),
                           lambda name: bool(names.match(name)))

    def _get_file_path(self, epoch: int, batch: int | None, logs: Logs) -> str:
        """Returns `filepath` formatted with the epoch (from 1), the batch (from 1) and the logs."""
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as error:
            raise KeyError(
                f'Failed to format this callback filepath: "{self.filepath}". Reason: {error}. '
                f"Available keys: {['epoch', *(['batch'] if batch is not None else []), *logs]}"
            ) from None
        except (ValueError, IndexError) as error:
            raise ValueError(
                f'Failed to format this callback filepath: "{self.filepath}". Reason: {error}'
            ) from None

    def _get_most_recently_modified_file_matching_pattern(self, pattern: str) -> str | None:
        """Returns the newest file matching `pattern` (formatting options match anything).

        Ties on modification time go to the largest file name; None if nothing matches.
        """
        dir_name = os.path.dirname(pattern) or "."
        base_name_regex = "^" + re.sub(r"{.*}", r".*", os.path.basename(pattern)) + "$"
        latest_mod_time = 0.0
        latest_path = None
        n_latest = 0
        largest_path = None
        if os.path.isdir(dir_name):
            for file_name in os.listdir(dir_name):
                if not re.match(base_name_regex, file_name):
                    continue
                file_path = os.path.join(os.path.dirname(pattern), file_name)
                mod_time = os.path.getmtime(file_path)
                if largest_path is None or file_path > largest_path:
                    largest_path = file_path
                if mod_time > latest_mod_time:
                    latest_mod_time, latest_path, n_latest = mod_time, file_path, 1
                elif mod_time == latest_mod_time:
                    n_latest += 1
        return latest_path if n_latest == 1 else largest_path
