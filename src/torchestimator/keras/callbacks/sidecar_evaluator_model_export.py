"""`tf.keras.callbacks.SidecarEvaluatorModelExport`: exports the best model a
`tf.keras.utils.SidecarEvaluator` evaluates."""

from __future__ import annotations

import os
import re
from typing import Any

from torchestimator.keras.callbacks.callback import Logs
from torchestimator.keras.callbacks.model_checkpoint import ModelCheckpoint

_CKPT_NUMBER = re.compile(r".*ckpt-(?P<ckpt>\d+)")


class SidecarEvaluatorModelExport(ModelCheckpoint):
    """Saves the model (or its weights) when an evaluation of a `SidecarEvaluator` improves on
    the best value of `monitor` seen so far (a `ModelCheckpoint` with `save_best_only=True`
    that saves at the end of each evaluation).

    Args:
        export_filepath: where to save the best model; `{epoch}` formatting options are
            filled with the training epoch of the checkpoint evaluated (the number in
            its `ckpt-<k>` name), e.g. `os.path.join(best_dir, "best-model-{epoch:04d}")`.
        checkpoint_filepath: the `filepath` the training side gave its `ModelCheckpoint`
            (e.g. `os.path.join(checkpoint_dir, "ckpt-{epoch:04d}")`); the newest file
            matching it gives the epoch.
        **kwargs: the other `ModelCheckpoint` arguments (`monitor`, `mode`,
            `save_weights_only`, `verbose`, ...); the monitored name is one of the
            evaluation's logs (`"loss"`, not `"val_loss"`).
    """

    def __init__(self, export_filepath: str | os.PathLike, checkpoint_filepath: str | os.PathLike,
                 **kwargs: Any) -> None:
        if "save_best_only" in kwargs:
            raise TypeError(
                "SidecarEvaluatorModelExport got multiple values for keyword argument "
                "'save_best_only' (it always saves the best model only); remove it."
            )
        super().__init__(filepath=export_filepath, save_best_only=True, **kwargs)
        self._checkpoint_filepath = os.fspath(checkpoint_filepath)
        self.export_index = 0

    def on_test_begin(self, logs: Logs | None = None) -> None:
        """Takes the epoch of the newest checkpoint matching `checkpoint_filepath` (0 if none)."""
        path = self._get_most_recently_modified_file_matching_pattern(self._checkpoint_filepath)
        match = _CKPT_NUMBER.match(path) if path is not None else None
        self.export_index = int(match["ckpt"]) - 1 if match else 0

    def on_test_end(self, logs: Logs | None = None) -> None:
        """Saves the model if the evaluation's `monitor` value is the best so far."""
        self.epochs_since_last_save += 1
        self._save_model(epoch=self.export_index, batch=None, logs=logs)
