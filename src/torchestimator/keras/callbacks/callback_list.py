"""`tf.keras.callbacks.CallbackList`: calls a list of callbacks through one object."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

from torchestimator.keras.callbacks._logs import to_python
from torchestimator.keras.callbacks.callback import Callback, Logs
from torchestimator.keras.callbacks.history import History
from torchestimator.keras.callbacks.progbar_logger import ProgbarLogger

_log = logging.getLogger(__name__)

_BUILTIN_MODULE = "torchestimator.keras.callbacks"
_TIMING_BATCHES = 5


class CallbackList:
    """Container abstracting a list of callbacks: `callback_list.on_epoch_end(...)` calls them all.

    Args:
        callbacks: list of `Callback` instances (nested lists are flattened).
        add_history: add a `History` callback (last) if the list has none.
        add_progbar: add a `ProgbarLogger(count_mode="steps")` callback (last)
            if the list has none.
        model: the `Model` the callbacks act on; `model.history` is set to the
            `History` callback.
        **params: passed to every callback's `set_params` (`verbose`,
            `epochs`, `steps`).

    Use it in a custom training loop as Keras' loop does:

        callbacks = tf.keras.callbacks.CallbackList([...], model=model, epochs=E, steps=S, verbose=1)
        callbacks.on_train_begin()
        for epoch in range(E):
            callbacks.on_epoch_begin(epoch)
            for step, batch in enumerate(data):
                callbacks.on_train_batch_begin(step)
                logs = model.train_step(batch)
                callbacks.on_train_batch_end(step, logs)
            callbacks.on_epoch_end(epoch, epoch_logs)
        callbacks.on_train_end(epoch_logs)

    Logs may hold device tensors: they are read (one device sync) only when a
    callback that needs Python numbers is in the list; built-in callbacks
    read what they need themselves. Batch hooks are skipped entirely when no
    callback implements them (see `_should_call_train_batch_hooks`).
    """

    def __init__(
        self,
        callbacks: Any = None,
        add_history: bool = False,
        add_progbar: bool = False,
        model: Any = None,
        **params: Any,
    ) -> None:
        self.callbacks: list[Callback] = _flatten(callbacks)
        self.model: Any = None
        self.params: dict[str, Any] = {}
        self._add_default_callbacks(add_history, add_progbar)
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)
        self._refresh()

    # -- configuration ------------------------------------------------------------------------

    def _add_default_callbacks(self, add_history: bool, add_progbar: bool) -> None:
        self._progbar: ProgbarLogger | None = None
        self._history: History | None = None
        for cb in self.callbacks:
            if isinstance(cb, ProgbarLogger):
                self._progbar = cb
            elif isinstance(cb, History):
                self._history = cb
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger(count_mode="steps")
            self.callbacks.append(self._progbar)

    def _refresh(self) -> None:
        """Recomputes which hooks must be called and whether logs must be read first."""
        cbs = self.callbacks
        self._supports_tf_logs = all(getattr(cb, "_supports_tf_logs", False) for cb in cbs)
        self._batch_hooks_support_tf_logs = all(
            getattr(cb, "_supports_tf_logs", False)
            for cb in cbs
            if cb._implements_train_batch_hooks()
            or cb._implements_test_batch_hooks()
            or cb._implements_predict_batch_hooks()
        )
        self._should_call_train_batch_hooks = any(cb._implements_train_batch_hooks() for cb in cbs)
        self._should_call_test_batch_hooks = any(cb._implements_test_batch_hooks() for cb in cbs)
        self._should_call_predict_batch_hooks = any(
            cb._implements_predict_batch_hooks() for cb in cbs
        )
        # Warn about slow user callbacks (built-in ones are not timed).
        self._check_timing = any(not type(cb).__module__.startswith(_BUILTIN_MODULE) for cb in cbs)
        self._hook_times: dict[str, list[float]] = {}
        self._batch_start_time: float | None = None
        self._batch_times: list[float] = []

    def append(self, callback: Callback) -> None:
        """Adds `callback` at the end of the list."""
        self.callbacks.extend(_flatten([callback], offset=len(self.callbacks)))
        if self.model is not None:
            callback.set_model(self.model)
        if self.params:
            callback.set_params(self.params)
        self._refresh()

    def set_params(self, params: dict[str, Any]) -> None:
        """Passes `params` (`verbose`, `epochs`, `steps`) to every callback."""
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)
        self._refresh()  # set_params may change which batch hooks a callback needs

    def set_model(self, model: Any) -> None:
        """Gives every callback the model, and sets `model.history` to the `History` callback."""
        self.model = model
        if self._history is not None:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def __iter__(self) -> Iterator[Callback]:
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)

    # -- logs ---------------------------------------------------------------------------------

    def make_logs(self, model: Any, logs: dict, outputs: Any, mode: str, prefix: str = "") -> dict:
        """Computes the logs of a batch for the `on_*_batch_end` hooks, as Keras 2.15's: in
        'train' and 'test' mode `logs[prefix + name] = output` for each of the model's
        `metrics_names` and `outputs`, otherwise `logs['outputs'] = outputs`. Returns `logs`
        (unchanged when the list holds no callback)."""
        if not self.callbacks:
            return logs
        metric_names = model.metrics_names
        if mode in ("train", "test") and metric_names:
            for label, output in zip(metric_names, outputs):
                logs[prefix + label] = output
        else:
            logs["outputs"] = outputs
        return logs

    def _process_logs(self, logs: Logs | None, is_batch_hook: bool = False) -> Logs:
        """Returns logs as the callbacks need them: as they are, or read into Python numbers."""
        if logs is None:
            return {}
        if self._supports_tf_logs or (is_batch_hook and self._batch_hooks_support_tf_logs):
            return logs
        return to_python(logs)

    # -- batch hooks --------------------------------------------------------------------------

    def _call_batch_hook(self, mode: str, hook: str, batch: int, logs: Logs | None) -> None:
        if not self.callbacks:
            return
        if hook == "begin":
            self._call_batch_hook_helper(f"on_{mode}_batch_begin", batch, logs)
            if self._check_timing:
                self._batch_start_time = time.perf_counter()
        elif hook == "end":
            if self._check_timing and batch >= 1 and self._batch_start_time is not None:
                self._batch_times.append(time.perf_counter() - self._batch_start_time)
            self._call_batch_hook_helper(f"on_{mode}_batch_end", batch, logs)
            if self._check_timing and len(self._batch_times) >= _TIMING_BATCHES:
                self._warn_slow_hooks(mode)
        else:
            raise ValueError(f"Unrecognized hook: {hook!r}. Expected values are ['begin', 'end'].")

    def _call_batch_hook_helper(self, hook_name: str, batch: int, logs: Logs | None) -> None:
        start = time.perf_counter() if self._check_timing else 0.0
        logs = self._process_logs(logs, is_batch_hook=True)
        for callback in self.callbacks:
            getattr(callback, hook_name)(batch, logs)
        if self._check_timing:
            self._hook_times.setdefault(hook_name, []).append(time.perf_counter() - start)

    def _warn_slow_hooks(self, mode: str) -> None:
        batch_time = sum(self._batch_times) / len(self._batch_times)
        for hook_name in (f"on_{mode}_batch_begin", f"on_{mode}_batch_end"):
            times = self._hook_times.get(hook_name)
            if times and sum(times) / len(times) > batch_time:
                _log.warning(
                    "Callback method `%s` is slow compared to the batch time (batch time: %.4fs vs "
                    "`%s` time: %.4fs). Check your callbacks.",
                    hook_name,
                    batch_time,
                    hook_name,
                    sum(times) / len(times),
                )
        self._check_timing = False
        self._batch_start_time = None
        self._batch_times = []
        self._hook_times = {}

    def on_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Alias of `on_train_batch_begin`."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook("train", "begin", batch, logs)

    def on_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Alias of `on_train_batch_end`."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook("train", "end", batch, logs)

    def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_train_batch_begin`."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook("train", "begin", batch, logs)

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_train_batch_end` with the running metrics."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook("train", "end", batch, logs)

    def on_test_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_test_batch_begin`."""
        if self._should_call_test_batch_hooks:
            self._call_batch_hook("test", "begin", batch, logs)

    def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_test_batch_end` with the running metrics."""
        if self._should_call_test_batch_hooks:
            self._call_batch_hook("test", "end", batch, logs)

    def on_predict_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_predict_batch_begin`."""
        if self._should_call_predict_batch_hooks:
            self._call_batch_hook("predict", "begin", batch, logs)

    def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_predict_batch_end` (`logs['outputs']`: the batch's outputs)."""
        if self._should_call_predict_batch_hooks:
            self._call_batch_hook("predict", "end", batch, logs)

    # -- epoch and run hooks ------------------------------------------------------------------

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_epoch_begin`."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_begin(epoch, logs)

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """Calls every callback's `on_epoch_end` with the epoch's (and `val_`) metrics."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_end(epoch, logs)

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Calls every callback's `on_train_begin`."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_train_begin(logs)

    def on_train_end(self, logs: Logs | None = None) -> None:
        """Calls every callback's `on_train_end`."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_train_end(logs)

    def on_test_begin(self, logs: Logs | None = None) -> None:
        """Calls every callback's `on_test_begin`."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_test_begin(logs)

    def on_test_end(self, logs: Logs | None = None) -> None:
        """Calls every callback's `on_test_end`."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_test_end(logs)

    def on_predict_begin(self, logs: Logs | None = None) -> None:
        """Calls every callback's `on_predict_begin`."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_begin(logs)

    def on_predict_end(self, logs: Logs | None = None) -> None:
        """Calls every callback's `on_predict_end`."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_end(logs)


def _flatten(callbacks: Any, offset: int = 0) -> list[Callback]:
    if callbacks is None:
        return []
    if isinstance(callbacks, CallbackList):
        return list(callbacks.callbacks)
    items = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    flat: list[Callback] = []
    for item in items:
        if isinstance(item, (list, tuple)):
            flat.extend(_flatten(item, offset + len(flat)))
            continue
        if not isinstance(item, Callback):
            hint = ""
            if isinstance(item, type) and issubclass(item, Callback):
                hint = f" Pass an instance, e.g. {item.__name__}(), not the class."
            raise TypeError(
                f"callbacks[{offset + len(flat)}] must be a tf.keras.callbacks.Callback instance; "
                f"received {item!r} of type {type(item).__name__}.{hint}"
            )
        flat.append(item)
    return flat
