"""The one training loop behind Keras `fit` and `Estimator.train` (and their evaluate/predict).

A front (Keras' Trainer, the Estimator) supplies:
  * a `step_fn(batch) -> outputs` (forward, loss, and for training `optimize`),
  * the batches (any iterable; they are moved to the device here),
  * a `StepEvents` object whose hooks run around each step (Keras callbacks or
    Estimator hooks, checkpoint and summary triggers are built on these).

The loop never reads a value back from the device by itself: only the events
that need a number (a progress bar, a logging hook) synchronise. A Ctrl-C arrives
between steps, never inside one (`interrupts.py`). `run_steps` runs the loop to its end;
`iterate_steps` is the same loop as a generator of each step's outputs (predict).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._engine.backward import backward
from torchestimator._engine.interrupts import StepGuard, interrupts_between_steps

_DONE = object()  # what the loop's generator gives when it has ended


def default_device() -> torch.device:
    """The device training runs on: `$TORCHESTIMATOR_DEVICE` if set, else CUDA when available, else CPU."""
    name = os.environ.get("TORCHESTIMATOR_DEVICE")
    if name:
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def to_device(value: Any, device: torch.device, non_blocking: bool = True) -> Any:
    """Moves every tensor in a nested structure to `device` (numpy numeric arrays become tensors;
    string arrays stay numpy)."""
    if isinstance(value, torch.Tensor):
        if value.device == device:
            return value
        return value.to(device, non_blocking=non_blocking and device.type == "cuda")
    if type(value) is tuple and all(type(v) is torch.Tensor and v.device == device for v in value):
        return value  # a batch of tensors already there (the common `(x, y)`)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OUS":
            return value
        return to_device(torch.from_numpy(np.ascontiguousarray(value)), device, non_blocking)
    if isinstance(value, dict):
        return {k: to_device(v, device, non_blocking) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_device(v, device, non_blocking) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device, non_blocking) for v in value)
    return value


class StepEvents:
    """Hooks around each step of `run_steps`. Subclasses override what they need.

    `before_step(step)` runs before the step (step counts from 0 within this
    run); `after_step(step, outputs)` runs after it and returns True to stop.
    """

    def before_step(self, step: int) -> None:
        """Called before step `step`."""

    def after_step(self, step: int, outputs: Any) -> bool:
        """Called after step `step` with the step's outputs; returns True to stop the loop."""
        return False


def _loop(
    step_fn: Callable[[Any], Any],
    batches: Iterable,
    events: StepEvents,
    max_steps: int | None,
    device: torch.device | None,
    guard: StepGuard,
) -> Iterator[Any]:
    """The loop itself, as a generator of each step's outputs; the caller holds the SIGINT
    handler of `guard` and sets the grad mode (`run_steps` for the whole loop, `iterate_steps`
    around each step)."""
    if max_steps is not None and max_steps <= 0:
        return
    before_step, after_step = events.before_step, events.after_step
    iterator = iter(batches)
    step = 0
    while True:
        try:
            batch = next(iterator)
        except StopIteration:
            return
        if device is not None:
            batch = to_device(batch, device)
        guard.in_step = True  # Ctrl-C from here waits for the step and its events to end
        before_step(step)
        outputs = step_fn(batch)
        stop = after_step(step, outputs)
        step += 1
        guard.end_step()
        yield outputs
        if stop or (max_steps is not None and step >= max_steps):
            return


def run_steps(
    step_fn: Callable[[Any], Any],
    batches: Iterable,
    events: StepEvents | None = None,
    max_steps: int | None = None,
    device: torch.device | None = None,
    grad_enabled: bool = True,
) -> int:
    """Runs `step_fn` on each batch (moved to `device`) until the batches run out,
    `max_steps` steps were made, or an event asks to stop. Returns the number of steps made."""
    steps = 0
    if max_steps is not None and max_steps <= 0:
        return 0
    # `torch.set_grad_enabled` as a context, without building one when the mode is already
    # right (fit calls this every epoch); the caller's mode is back afterwards either way
    caller_mode = torch.is_grad_enabled()
    if caller_mode != grad_enabled:
        torch.set_grad_enabled(grad_enabled)
    try:
        with interrupts_between_steps() as guard:
            for _ in _loop(step_fn, batches, events or StepEvents(), max_steps, device, guard):
                steps += 1
    finally:
        if torch.is_grad_enabled() != caller_mode:
            torch.set_grad_enabled(caller_mode)
    return steps


def iterate_steps(
    step_fn: Callable[[Any], Any],
    batches: Iterable,
    events: StepEvents | None = None,
    max_steps: int | None = None,
    device: torch.device | None = None,
    grad_enabled: bool = True,
) -> Iterator[Any]:
    """`run_steps` as a generator: the same loop, yielding each step's outputs after its
    events ran; a step runs only when the consumer asks for the next value, and the loop ends
    as `run_steps` does (the outputs of the step that ended it are yielded first).

    The grad mode and the Ctrl-C guard (`interrupts.py`) are held for each step (its wait
    for input included), not while the consumer holds a value (e.g. `Estimator.predict`'s
    caller): the consumer's code runs in its own grad mode with Python's own SIGINT handling.
    """
    guard = StepGuard()
    steps = _loop(step_fn, batches, events or StepEvents(), max_steps, device, guard)
    try:
        while True:
            with torch.set_grad_enabled(grad_enabled), interrupts_between_steps(guard):
                outputs = next(steps, _DONE)
            if outputs is _DONE:
                return
            yield outputs
    finally:
        steps.close()


def optimize(loss: torch.Tensor, optimizer: Any) -> None:
    """Back-propagates `loss` and applies one optimizer step (gradients cleared afterwards)."""
    backward(loss)
    optimizer.step()
    optimizer.zero_grad()
