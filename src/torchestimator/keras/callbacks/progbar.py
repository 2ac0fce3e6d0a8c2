"""`Progbar`: Keras' one-line progress bar (`10/10 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step - loss: 0.31`).

Terminal detection and the styled (bold / green / white) bar are `rich`'s: a
`rich.console.Console` decides whether the line is redrawn in place and renders
the colours the terminal supports; elsewhere the plain final line is written.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable
from typing import Any

import numpy as np
from rich.console import Console
from rich.text import Text

from torchestimator.keras._io_utils import is_interactive_logging_enabled, print_msg
from torchestimator.keras.callbacks._logs import to_python

_BOLD, _GREEN, _WHITE = "bold", "green", "white"
_BAR_CHAR = "━"


def _console() -> Console:
    """A rich console on the current `sys.stdout` (which tests and notebooks may replace)."""
    return Console(file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True)


def dynamic_display() -> bool:
    """Whether stdout redraws a line in place: a terminal (as rich detects it) or a Jupyter kernel."""
    console = _console()
    return bool(console.is_terminal or console.is_jupyter or "ipykernel" in sys.modules
                or "PYCHARM_HOSTED" in os.environ)


class Progbar:
    """Displays a progress bar.

    Args:
        target: total number of steps expected, None if unknown.
        width: progress bar width on screen, in characters.
        verbose: 0 (silent), 1 (a bar redrawn in place on a terminal; only
            the final line elsewhere), 2 (only the final line).
        interval: minimum time in seconds between two redraws. Values are
            read from the device only when the bar is drawn.
        stateful_metrics: names of metrics shown as they are; all others are
            averaged over the steps. Without it every metric is averaged,
            unless `stateless_metrics` is given.
        unit_name: display name of a step ("step" or "sample").
        stateless_metrics: names of metrics averaged over the steps; all
            others are shown as they are. Give at most one of the two lists.
    """

    def __init__(
        self,
        target: int | None,
        width: int = 30,
        verbose: int = 1,
        interval: float = 0.05,
        stateful_metrics: Iterable[str] | None = None,
        unit_name: str = "step",
        stateless_metrics: Iterable[str] | None = None,
    ) -> None:
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError(
                "Progbar: give `stateful_metrics` (averaged by default) or `stateless_metrics` "
                "(shown as-is by default), not both."
            )
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ()) if stateless_metrics is None else None
        self.stateless_metrics = set(stateless_metrics) if stateless_metrics is not None else None
        self._dynamic_display = dynamic_display()
        self._seen_so_far = 0
        self._values: dict[str, list[Any]] = {}
        self._values_order: list[str] = []
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step: float | None = None
        self._prev_total_width = 0

    def update(
        self,
        current: int,
        values: list[tuple[str, Any]] | None = None,
        finalize: bool | None = None,
    ) -> None:
        """Updates the progress bar to step `current`.

        `values` is a list of `(name, value_for_last_step)`; values may be
        device tensors, read only when the bar is drawn. `finalize` (default:
        `current >= target`) draws the final line.
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for key, value in values or ():
            if key not in self._values_order:
                self._values_order.append(key)
            if self._is_stateless(key) and not finalize:
                base = max(current - self._seen_so_far, 1)
                if key in self._values:
                    self._values[key] = [
                        self._values[key][0] + value * base,
                        self._values[key][1] + base,
                    ]
                else:
                    self._values[key] = [value * base, base]
            else:
                self._values[key] = [value, 1]
        self._seen_so_far = current

        now = time.time()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if not finalize and (
                not self._dynamic_display or now - self._last_update < self.interval
            ):
                return
            self._draw(current, now, time_per_unit, finalize)
        elif self.verbose == 2 and finalize:
            self._write(
                self._line(current, now, time_per_unit, finalize=True, color=False)[0] + "\n"
            )
        self._last_update = now

    def add(self, n: int, values: list[tuple[str, Any]] | None = None) -> None:
        """Advances the bar by `n` steps."""
        self.update(self._seen_so_far + n, values)

    # -- drawing ------------------------------------------------------------------------------

    def _draw(self, current: int, now: float, time_per_unit: float, finalize: bool) -> None:
        color = self._dynamic_display and is_interactive_logging_enabled()
        if not color and not finalize:  # logged output gets the final line only
            return
        line, width = self._line(current, now, time_per_unit, finalize, color)
        if color:  # redrawn in place on stdout; otherwise one line (logged when not interactive)
            message = line.copy() if isinstance(line, Text) else Text(line)
            if self._prev_total_width > width:
                message.append(" " * (self._prev_total_width - width))
            sys.stdout.write("\r")  # rich strips control characters from Text: write it here
            _console().print(message, end="\n" if finalize else "")
            sys.stdout.flush()
        else:
            self._write(line + ("\n" if finalize else ""))
        self._prev_total_width = width

    def _line(
        self, current: int, now: float, time_per_unit: float, finalize: bool, color: bool
    ) -> tuple[Any, int]:
        """Returns the bar (a styled rich `Text` when `color`, else a str) and its width."""
        if self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            count = f"{current:{digits}d}/{self.target}"
        else:
            count = f"{current:7d}/Unknown"
        if self.verbose == 2:
            text = (
                f"{count} - {now - self._start:.0f}s -{_format_time(time_per_unit, self.unit_name)}"
            )
            text += self._metrics_text()
            return text, len(text)

        parts: list[tuple[str, str]] = [(count, _BOLD)]  # (text, rich style)
        if self.target is not None and self.target > 0:
            filled = min(int(self.width * current / self.target), self.width)
            parts.append((" ", ""))
            if filled > 0:
                parts.append((_BAR_CHAR * filled, _GREEN))
            if filled < self.width:
                parts.append((_BAR_CHAR * (self.width - filled), _WHITE))

        if self.target is not None and self.target > 0 and not finalize:
            eta = time_per_unit * (self.target - current)
            if eta > 3600:
                eta_text = f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
            elif eta > 60:
                eta_text = f"{int(eta // 60)}:{int(eta % 60):02d}"
            else:
                eta_text = f"{int(eta)}s"
        else:
            eta_text = f"{now - self._start:.0f}s"
        parts += [(" ", ""), (eta_text, _BOLD),
                  (_format_time(time_per_unit, self.unit_name) + self._metrics_text(), "")]
        plain = "".join(text for text, _ in parts)
        if color:
            return Text.assemble(*parts), len(plain)
        return plain, len(plain)

    def _metrics_text(self) -> str:
        if not self._values_order:
            return ""
        averages: dict[str, Any] = {}
        for key in self._values_order:
            total, count = self._values[key]
            averages[key] = total / count if count != 1 else total
        text = ""
        for key, value in to_python(averages).items():  # the only device read
            text += f" - {key}: {_format_value(value)}"
        return text

    def _is_stateless(self, key: str) -> bool:
        if self.stateless_metrics is not None:
            return key in self.stateless_metrics
        return key not in self.stateful_metrics

    def _estimate_step_duration(self, current: int, now: float) -> float:
        """Seconds per step, leaving out the (slower) first step once there are more."""
        if not current:
            return 0.0
        if self._time_after_first_step is not None and current > 1:
            per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_unit

    @staticmethod
    def _write(message: str) -> None:
        print_msg(message, line_break=False)  # stdout, or logging when not interactive


def _format_value(value: Any) -> str:
    if isinstance(value, np.ndarray):
        value = float(np.mean(value))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value}"
    if abs(value) > 1e-3:
        return f"{value:.4f}"
    return f"{value:.4e}"


def _format_time(time_per_unit: float, unit_name: str) -> str:
    if time_per_unit >= 1 or time_per_unit == 0:
        return f" {time_per_unit:.0f}s/{unit_name}"
    if time_per_unit >= 1e-3:
        return f" {time_per_unit * 1e3:.0f}ms/{unit_name}"
    return f" {time_per_unit * 1e6:.0f}us/{unit_name}"
