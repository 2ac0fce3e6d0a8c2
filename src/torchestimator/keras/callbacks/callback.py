"""`tf.keras.callbacks.Callback`: the base class of every callback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Logs = dict[str, Any]


def _default(method: Callable) -> Callable:
    """Marks a hook as the base class's no-op, so that loops may skip it."""
    method._is_default = True
    return method


def is_default(method: Callable) -> bool:
    """Whether `method` is a hook that nobody overrode (the base class's no-op)."""
    return getattr(method, "_is_default", False)


class Callback:
    """Abstract base class used to build new callbacks.

    Callbacks are passed to `fit`, `evaluate` and `predict` to hook into the
    stages of training, evaluation and prediction. Subclass it and override
    the hooks you need:

        class MyCallback(tf.keras.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                print(epoch, logs["loss"])

    Attributes:
        params: dict of training parameters (`verbose`, `epochs`, `steps`).
        model: the `Model` being trained; set `self.model.stop_training = True`
            to stop training.

    `logs` dicts hold the quantities of the current batch or epoch: the
    model's losses and metrics (validation ones prefixed with `val_`).
    """

    def __init__(self) -> None:
        self.validation_data = None
        self.model: Any = None
        self.params: dict[str, Any] = {}
        # Only the chief worker runs this callback in multi-worker training when True.
        self._chief_worker_only: bool | None = None
        # True when this callback reads its logs itself, so that logs may hold
        # device tensors (CallbackList then does not read them first).
        self._supports_tf_logs = False

    def _write_locks(self) -> list[tuple[str, str]]:
        """The `(directory, lock file name)` pairs this callback writes: `fit` holds their
        advisory locks while it runs, so two processes never write the same files."""
        return []

    def set_params(self, params: dict[str, Any]) -> None:
        """Stores the training parameters (`verbose`, `epochs`, `steps`) in `self.params`."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Stores the model the callback acts on in `self.model`."""
        self.model = model

    @_default
    def on_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """A backwards compatibility alias for `on_train_batch_begin`."""

    @_default
    def on_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """A backwards compatibility alias for `on_train_batch_end`."""

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """Called at the start of an epoch (training only); `epoch` counts from 0."""

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """Called at the end of an epoch with the epoch's metric results.

        `logs` holds the training metrics of the epoch and, when validation ran,
        the validation ones prefixed with `val_`, e.g. `{'loss': 0.2, 'val_loss': 0.3}`.
        """

    @_default
    def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Called at the beginning of a training batch in `fit`.

        With `steps_per_execution=N` it is called every N batches.
        """
        self.on_batch_begin(batch, logs=logs)

    @_default
    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Called at the end of a training batch in `fit`; `logs` holds the running metrics."""
        self.on_batch_end(batch, logs=logs)

    @_default
    def on_test_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Called at the beginning of a batch in `evaluate` and of a validation batch in `fit`."""

    @_default
    def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Called at the end of a batch in `evaluate` and of a validation batch in `fit`."""

    @_default
    def on_predict_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Called at the beginning of a batch in `predict`."""

    @_default
    def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Called at the end of a batch in `predict`; `logs['outputs']` holds the batch's outputs."""

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Called at the beginning of training."""

    def on_train_end(self, logs: Logs | None = None) -> None:
        """Called at the end of training with the last epoch's logs."""

    def on_test_begin(self, logs: Logs | None = None) -> None:
        """Called at the beginning of evaluation or validation."""

    def on_test_end(self, logs: Logs | None = None) -> None:
        """Called at the end of evaluation or validation with its metric results."""

    def on_predict_begin(self, logs: Logs | None = None) -> None:
        """Called at the beginning of prediction."""

    def on_predict_end(self, logs: Logs | None = None) -> None:
        """Called at the end of prediction."""

    def _implements_train_batch_hooks(self) -> bool:
        """Whether this callback must be called for each training batch."""
        return not (
            is_default(self.on_batch_begin)
            and is_default(self.on_batch_end)
            and is_default(self.on_train_batch_begin)
            and is_default(self.on_train_batch_end)
        )

    def _implements_test_batch_hooks(self) -> bool:
        """Whether this callback must be called for each evaluation batch."""
        return not (is_default(self.on_test_batch_begin) and is_default(self.on_test_batch_end))

    def _implements_predict_batch_hooks(self) -> bool:
        """Whether this callback must be called for each prediction batch."""
        return not (
            is_default(self.on_predict_batch_begin) and is_default(self.on_predict_batch_end)
        )
