"""`tf.keras.callbacks.ProgbarLogger`: prints the progress bar and metrics of fit/evaluate/predict."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from torchestimator.keras._io_utils import print_msg
from torchestimator.keras.callbacks.callback import Callback, Logs
from torchestimator.keras.callbacks.progbar import Progbar

_COUNT_MODES = ("samples", "steps")
_BOOKKEEPING_KEYS = ("size", "num_steps", "batch")
# The bar `fit`/`evaluate`/`predict` draw is 20 characters wide (a `Progbar` made directly is
# 30 wide by default, as TF's).
_FIT_BAR_WIDTH = 20


class ProgbarLogger(Callback):
    """Callback that prints metrics to stdout.

    `fit` adds one (counting steps) unless `verbose=0`. With `verbose=1` a bar
    is redrawn in place on a terminal (only the final line is printed when
    stdout is not a terminal), with `verbose=2` one line per epoch:

        Epoch 1/2
        10/10 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step - accuracy: 0.9000 - loss: 0.3100

    Values are read from the device only when a line is drawn (at most every
    0.05 s), never once per step.

    Args:
        count_mode: `"steps"` or `"samples"`: whether the bar counts batches or
            samples (the `size` entry of the batch logs; batches when absent).
        stateful_metrics: names of metrics shown as they are; others are
            averaged over the epoch's batches. By default every metric is
            shown as it is: the engine's logs already hold running results.
    """

    def __init__(
        self, count_mode: str = "samples", stateful_metrics: Iterable[str] | None = None
    ) -> None:
        super().__init__()
        self._supports_tf_logs = True
        if count_mode not in _COUNT_MODES:
            raise ValueError(
                f"Unknown `count_mode`: {count_mode!r}. Expected values are {list(_COUNT_MODES)}."
            )
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else set()
        self.seen = 0
        self.progbar: Progbar | None = None
        self.target: int | None = None
        self.verbose: int = 1
        self.epochs = 1
        self._call_batch_hooks = True
        self._called_in_fit = False

    def set_params(self, params: dict[str, Any]) -> None:
        """Reads `verbose` ('auto' is 1), `epochs` and the number of steps (or samples)."""
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else int(verbose)
        self.epochs = params.get("epochs") or 1
        self.target = params.get("steps") if self.use_steps else params.get("samples")
        self._call_batch_hooks = self.verbose == 1

    # -- hooks --------------------------------------------------------------------------------

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Inside `fit`, validation is silent."""
        self._called_in_fit = True

    def on_train_end(self, logs: Logs | None = None) -> None:
        """Ends the `fit` run (a later `evaluate` with this logger shows its bar again)."""
        self._called_in_fit = False

    def on_test_begin(self, logs: Logs | None = None) -> None:
        """Starts the bar of `evaluate` (silent during `fit`'s validation)."""
        if not self._called_in_fit:
            self._reset_progbar()
            self._maybe_init_progbar()

    def on_predict_begin(self, logs: Logs | None = None) -> None:
        """Starts the bar of `predict`."""
        self._reset_progbar()
        self._maybe_init_progbar()

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """Prints `Epoch i/N` (when N > 1) and starts the epoch's bar."""
        self._reset_progbar()
        self._maybe_init_progbar()
        if self.verbose and self.epochs > 1:
            print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Advances the bar."""
        self._batch_update_progbar(batch, logs)

    def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Advances the bar of `evaluate`."""
        if not self._called_in_fit:
            self._batch_update_progbar(batch, logs)

    def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Advances the bar of `predict` (outputs are not shown)."""
        self._batch_update_progbar(batch, None)

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """Prints the epoch's final line with its (and the validation) metrics."""
        self._finalize_progbar(logs)

    def on_test_end(self, logs: Logs | None = None) -> None:
        """Prints the final line of `evaluate`."""
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_end(self, logs: Logs | None = None) -> None:
        """Prints the final line of `predict`."""
        self._finalize_progbar(logs)

    def _implements_train_batch_hooks(self) -> bool:
        return self._call_batch_hooks

    def _implements_test_batch_hooks(self) -> bool:
        return self._call_batch_hooks

    def _implements_predict_batch_hooks(self) -> bool:
        return self._call_batch_hooks

    # -- bar ----------------------------------------------------------------------------------

    def _reset_progbar(self) -> None:
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self) -> None:
        if self.progbar is not None:
            return
        unit = "step" if self.use_steps else "sample"
        if self.stateful_metrics:
            # Keras' rule: listed names and the model's metrics are shown as-is, others averaged.
            names = set(self.stateful_metrics)
            try:
                names |= {m.name for m in getattr(self.model, "metrics", None) or ()}
            except (AttributeError, TypeError):
                pass
            self.progbar = Progbar(
                self.target, width=_FIT_BAR_WIDTH, verbose=self.verbose, stateful_metrics=names,
                unit_name=unit,
            )
        else:
            self.progbar = Progbar(
                self.target, width=_FIT_BAR_WIDTH, verbose=self.verbose, stateless_metrics=(),
                unit_name=unit,
            )

    def _batch_update_progbar(self, batch: int, logs: Logs | None) -> None:
        logs = dict(logs or {})
        self._maybe_init_progbar()
        if self.use_steps:
            self.seen = batch + 1
        else:
            size = logs.pop("size", None)
            num_steps = logs.pop("num_steps", 1)
            logs.pop("batch", None)
            self.seen = self.seen + int(size) * int(num_steps) if size is not None else batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list(logs.items()), finalize=False)

    def _finalize_progbar(self, logs: Logs | None) -> None:
        logs = dict(logs or {})
        if not self.use_steps:
            logs = {k: v for k, v in logs.items() if k not in _BOOKKEEPING_KEYS}
        self._maybe_init_progbar()
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list(logs.items()), finalize=True)
