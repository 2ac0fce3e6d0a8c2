"""`tf.keras.utils.StepsPerExecutionTuner`: tunes `steps_per_execution` from the throughput."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import numpy as np
import torch

_log = logging.getLogger(__name__)


def _as_number(value: Any) -> Any:
    value = value.numpy() if hasattr(value, "numpy") else value
    return np.asarray(value).item()


def _dtype_max(variable: Any) -> float:
    dtype = getattr(variable, "dtype", torch.int64)
    if not isinstance(dtype, torch.dtype):
        dtype = torch.int64
    if dtype.is_floating_point:
        return float(torch.finfo(dtype).max)
    return float(torch.iinfo(dtype).max)


class StepsPerExecutionTuner:
    """Steps per execution tuner, as Keras 2.15's.

    Every `interval` seconds a thread measures the global throughput
    (`optimizer.iterations` per second); every `change_spe_interval`
    measurements it compares the mean of the recent throughputs with the
    previous mean. More than `change_threshold` faster: the last change is
    repeated (x1.5 after an increase, x0.5 after a decrease); more than
    `change_threshold` slower: the opposite change is made; else nothing
    changes. The first tuning always multiplies by 1.5.

    Args:
        optimizer: the optimizer of the training; its `iterations` measure the
            throughput.
        spe_variable: a `tf.Variable` holding `steps_per_execution`, updated
            with `assign`.
        interval: seconds between two measurements. Defaults to 5.
        change_spe_interval: the number of measurements between two tunings.
            Defaults to 10.
        change_threshold: the relative change of throughput that triggers a
            change of `steps_per_execution` (0.1: 10%).
    """

    def __init__(self, optimizer: Any, spe_variable: Any, interval: float = 5,
                 change_spe_interval: int = 10, change_threshold: float = 0.1) -> None:
        if not hasattr(optimizer, "iterations"):
            raise ValueError(
                "StepsPerExecutionTuner: `optimizer` must have an `iterations` counter (a Keras "
                f"optimizer); received {optimizer!r}."
            )
        if not hasattr(spe_variable, "assign"):
            raise ValueError(
                "StepsPerExecutionTuner: `spe_variable` must be a tf.Variable (updatable with "
                f"`assign`); received {spe_variable!r}. Create it with "
                "tf.Variable(1, dtype='int64')."
            )
        self.optimizer = optimizer
        self._steps_per_execution = spe_variable
        self.interval = interval
        self.change_spe_interval = change_spe_interval
        self.spe_change_threshold = change_threshold
        self.steps_per_execution_stop_event = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> threading.Thread:
        """Starts the tuning thread (measures and tunes every `interval` seconds); returns it."""
        if (self.thread is not None and self.thread.is_alive()
                and not self.steps_per_execution_stop_event.is_set()):
            return self.thread
        self._begin_tuning()
        self.steps_per_execution_stop_event = threading.Event()
        self.thread = threading.Thread(target=self._steps_per_execution_interval_call, daemon=True)
        self.thread.start()
        return self.thread

    def stop(self) -> None:
        """Stops the tuning thread."""
        if not self.steps_per_execution_stop_event.is_set():
            self.steps_per_execution_stop_event.set()

    @property
    def steps_per_execution(self) -> Any:
        """The `steps_per_execution` variable; setting it assigns the variable."""
        return self._steps_per_execution

    @steps_per_execution.setter
    def steps_per_execution(self, value: Any) -> None:
        self._steps_per_execution.assign(value)
        self.init_spe = value

    # -- the algorithm -------------------------------------------------------------------------
    def _steps_per_execution_interval_call(self) -> None:
        stop_event = self.steps_per_execution_stop_event
        while not stop_event.is_set():
            self._measure_and_tune()
            stop_event.wait(self.interval)

    def _begin_tuning(self) -> None:
        self.start_time = time.time()
        self.init_iterations = _as_number(self.optimizer.iterations)
        self.init_spe = _as_number(self._steps_per_execution)
        self.spe_last_logged = {"iteration": self.init_iterations, "time_secs": self.start_time}
        self.rgsps: list[float] = []  # recent global steps per second
        self.avg_rgsps = 0.0
        self.prev_avg_rgsps = 0.0
        self.spe_tune_last_action_add = True
        self.spe_measurement_count = 0

    def _should_tune(self) -> bool:
        epoch_boundary = self.rgsps[-1] == 0
        return (self.spe_measurement_count % self.change_spe_interval == 0
                and bool(self.rgsps) and not epoch_boundary)

    def _tune(self) -> None:
        self.avg_rgsps = sum(self.rgsps) / len(self.rgsps)
        fast_threshold = (1 + self.spe_change_threshold) * self.prev_avg_rgsps
        slow_threshold = (1 - self.spe_change_threshold) * self.prev_avg_rgsps
        if self.spe_tune_last_action_add:
            repeat_action_mult, opposite_action_mult = 1.5, 0.5
        else:
            repeat_action_mult, opposite_action_mult = 0.5, 1.5
        spe_limit = _dtype_max(self._steps_per_execution) / 1.5
        current_spe = _as_number(self._steps_per_execution)
        if self.avg_rgsps > fast_threshold:  # the first tuning always lands here (threshold 0)
            new_spe = current_spe * repeat_action_mult
        elif self.avg_rgsps < slow_threshold:
            new_spe = current_spe * opposite_action_mult
            self.spe_tune_last_action_add = not self.spe_tune_last_action_add
        else:
            new_spe = current_spe
        if current_spe >= spe_limit:
            new_spe = current_spe
        elif current_spe == 0:
            new_spe = self.init_spe
        new_spe = np.round(new_spe)
        dtype = getattr(self._steps_per_execution, "dtype", None)
        if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
            new_spe = int(new_spe)
        self._steps_per_execution.assign(new_spe)
        self.prev_avg_rgsps = self.avg_rgsps

    def _measure_and_tune(self) -> None:
        self.spe_measurement_count += 1
        cur_iteration = _as_number(self.optimizer.iterations)
        cur_time_secs = time.time()
        elapsed = cur_time_secs - self.spe_last_logged["time_secs"]
        done = cur_iteration - self.spe_last_logged["iteration"]
        recent_gsps = done / elapsed if elapsed > 0 else 0.0
        self.rgsps.append(recent_gsps)
        if len(self.rgsps) > self.change_spe_interval:
            self.rgsps.pop(0)
        if cur_iteration == 0:  # nothing measured yet
            self.start_time = cur_time_secs
            return
        self.spe_last_logged["iteration"] = cur_iteration
        self.spe_last_logged["time_secs"] = cur_time_secs
        try:
            if self._should_tune():
                self._tune()
        except RuntimeError:
            _log.exception("Steps per execution autotuner failed to run.")


class HostCounter:
    """`steps_per_execution` for `compile(steps_per_execution='auto')`: an int64 counter kept on
    the host, so the training loop reads it every step without a device sync (`assign`,
    `numpy` and `dtype` as a `tf.Variable`'s)."""

    dtype = torch.int64

    def __init__(self, value: int = 1) -> None:
        self._value = int(value)

    def assign(self, value: Any) -> HostCounter:
        """Sets the counter to `value` (rounded to an int); returns it."""
        self._value = int(np.asarray(value).item())
        return self

    def numpy(self) -> np.int64:
        """The counter's value."""
        return np.int64(self._value)

    def __int__(self) -> int:
        return self._value

    def __repr__(self) -> str:
        return f"<steps_per_execution={self._value}>"


def tuner_for(model: Any) -> StepsPerExecutionTuner:
    """The `StepsPerExecutionTuner` of a model compiled with `steps_per_execution='auto'`
    (made on first use for its optimizer, over a `HostCounter` starting at 1)."""
    tuner = getattr(model, "_steps_per_execution_tuner", None)
    if tuner is None or tuner.optimizer is not model.optimizer:
        if not hasattr(model.optimizer, "iterations"):
            raise ValueError(
                "compile(steps_per_execution='auto') tunes from the optimizer's `iterations`, "
                f"which {type(model.optimizer).__name__} has not; pass an integer "
                "steps_per_execution or a Keras optimizer."
            )
        tuner = StepsPerExecutionTuner(model.optimizer, HostCounter(1))
        model._steps_per_execution_tuner = tuner
    return tuner
