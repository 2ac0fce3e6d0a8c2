"""Ctrl-C between steps, never inside one.

A KeyboardInterrupt that lands in the middle of a training step (between the
backward pass and the last parameter the optimizer updates, or before the
global step is counted) would leave the model in a state no step produced,
and the checkpoint saved on the way out would hold it. While `run_steps` runs
on the main thread with Python's default SIGINT handler, a SIGINT received
inside a step is held and raised as KeyboardInterrupt as soon as the step
(and its hooks) finish; one received while waiting for input is raised at
once, so a stalled `input_fn` can still be interrupted. A program that
installed its own SIGINT handler keeps it untouched.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


class StepGuard:
    """Whether a step is running, and whether an interrupt waits for it to end."""

    __slots__ = ("in_step", "pending")

    def __init__(self) -> None:
        self.in_step = False
        self.pending = False

    def end_step(self) -> None:
        """Marks the step finished; raises the KeyboardInterrupt held during it, if any."""
        self.in_step = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


_HELD: list[StepGuard] = []  # the guard whose handler is installed now (main thread only)


@contextlib.contextmanager
def interrupts_between_steps(guard: StepGuard | None = None) -> Iterator[StepGuard]:
    """Holds SIGINT received inside a step until the step ends (see the module docstring);
    `guard` carries the step's state across several uses (a loop entered step by step).

    Nested without a `guard` (each epoch's `run_steps` inside `fit`), it reuses the handler
    already installed: installing one costs two `signal.signal` calls.
    """
    if guard is None and _HELD and threading.current_thread() is threading.main_thread():
        yield _HELD[-1]
        return
    guard = guard if guard is not None else StepGuard()
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield guard
        return

    def handler(signum: int, frame: Any) -> None:
        if guard.in_step:
            guard.pending = True
        else:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    _HELD.append(guard)
    try:
        yield guard
    finally:
        _HELD.pop()
        signal.signal(signal.SIGINT, signal.default_int_handler)
