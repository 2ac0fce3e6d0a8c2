"""The progress `Estimator.train` shows by default: what Keras's `fit` prints, for the Estimator.

TensorFlow's Estimator logs `loss = ..., step = ...` at INFO, which programs only see after
`tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)`; a long run is otherwise
silent. This hook (on the chief) writes to stderr: on a terminal one line rewritten in place
at most ten times a second (step, of the last step when known, steps/s, loss); elsewhere (a
log file, CI) one line every 30 seconds, left out while the INFO lines show; both end with a
line for the whole run. The loss is read only when a line is written. `TORCHESTIMATOR_PROGRESS=0` turns it off.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any, TextIO

import numpy as np

from torchestimator.estimator.hooks.session_run_hook import SessionRunArgs, SessionRunHook

_OFF = "TORCHESTIMATOR_PROGRESS"
_TERMINAL_PERIOD_SECS = 0.1
_LOG_PERIOD_SECS = 30.0


def progress_enabled() -> bool:
    """Whether `Estimator.train` shows its progress (not when `TORCHESTIMATOR_PROGRESS=0`)."""
    return os.environ.get(_OFF, "").strip().lower() not in ("0", "false", "no", "off")


class ProgressHook(SessionRunHook):
    """Shows the training progress on `stream` (default stderr): see the module docstring.

    Args:
      num_steps / last_step: the run's length, as `StopAtStepHook` takes it (both None when
        the input decides).
      stream: where to write; `is_terminal` (default: `stream.isatty()`) picks the form.
    """

    def __init__(self, num_steps: int | None = None, last_step: int | None = None,
                 stream: TextIO | None = None, is_terminal: bool | None = None,
                 log_period_secs: float = _LOG_PERIOD_SECS):
        self._num_steps, self._last_step = num_steps, last_step
        self._stream = stream
        self._terminal = is_terminal
        self._log_period = log_period_secs
        self._due = False

    def _out(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    def begin(self) -> None:
        out = self._out()
        if self._terminal is None:
            isatty = getattr(out, "isatty", None)
            self._terminal = bool(isatty()) if isatty is not None else False
        self._period = _TERMINAL_PERIOD_SECS if self._terminal else self._log_period
        self._written = False

    def after_create_session(self, session: Any, coord: Any) -> None:
        self._first_step = session.global_step
        if self._last_step is None and self._num_steps is not None:
            self._last_step = self._first_step + self._num_steps
        self._start = self._last_time = time.perf_counter()
        self._last_step_seen = self._first_step

    def before_run(self, run_context: Any) -> SessionRunArgs | None:
        self._due = time.perf_counter() - self._last_time >= self._period and self._shows()
        return SessionRunArgs({"loss": "loss"}) if self._due else None

    def _shows(self) -> bool:
        # Off a terminal, the INFO lines (set_verbosity(INFO)) already report the progress.
        return self._terminal or not logging.getLogger("torchestimator").isEnabledFor(logging.INFO)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._due:
            results = run_values.results or {}
            self._write(run_context.session.global_step, results.get("loss"))

    def end(self, session: Any) -> None:
        step = session.global_step
        if step == self._first_step or not self._shows():
            return
        try:
            loss = session.run("loss")
        except (KeyError, ValueError):
            loss = None
        self._write(step, loss, final=True)

    def _write(self, step: int, loss: Any, final: bool = False) -> None:
        now = time.perf_counter()
        span, steps = now - self._last_time, step - self._last_step_seen
        if final:
            span, steps = now - self._start, step - self._first_step
        rate = steps / span if span > 0 else 0.0
        total = f"/{self._last_step}" if self._last_step is not None else ""
        parts = [f"step {step}{total}", f"{rate:.1f} steps/s"]
        if loss is not None:
            parts.append(f"loss {float(np.asarray(loss)):.4g}")
        line = " - ".join(parts)
        out = self._out()
        if self._terminal:
            out.write("\r" + line.ljust(60) + ("\n" if final else ""))
        else:
            out.write(line + "\n")
        out.flush()
        self._written = True
        self._last_time, self._last_step_seen = now, step
