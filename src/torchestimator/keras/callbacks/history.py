"""`tf.keras.callbacks.History`: records the epoch logs; `fit` returns it."""

from __future__ import annotations

from typing import Any

from torchestimator.keras.callbacks._logs import to_python
from torchestimator.keras.callbacks.callback import Callback, Logs


class History(Callback):
    """Callback that records events into a `History` object.

    Added to every `fit` run and returned by it: `history.history` maps each
    metric name to its list of per-epoch values (Python floats), `history.epoch`
    lists the epoch indices, `history.params` the training parameters.

        history = model.fit(x, y, epochs=10)
        history.history["loss"]   # ten floats
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []
        self._supports_tf_logs = True  # reads each epoch's values itself, once

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Starts a new list of epochs (values already recorded are kept, as in Keras)."""
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """Appends the epoch's values to `history` and sets `model.history` to this object."""
        self.epoch.append(epoch)
        for key, value in to_python(logs).items():
            self.history.setdefault(key, []).append(value)
        model = self.model
        if model is not None and getattr(model, "history", None) is not self:
            model.history = self  # set once: a layer's attribute assignment is not free
