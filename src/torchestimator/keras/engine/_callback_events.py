"""Keras batch callbacks as the step events of the training loop (`loop.StepEvents`):
`on_{train,test,predict}_batch_begin/end` around each step of `run_steps`, every
`steps_per_execution` steps (or as the 'auto' tuner sets it), and `model.stop_training`
ending a fit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torchestimator._engine import loop


class CallbackEvents(loop.StepEvents):
    """Runs Keras batch callbacks around each step of `run_steps`."""

    def __init__(self, model: Any, callbacks: Any, mode: str, every: int = 1, tuned: Any = None,
                 steps: int | None = None):
        self.model = model
        self.begin = getattr(callbacks, f"on_{mode}_batch_begin")
        self.end = getattr(callbacks, f"on_{mode}_batch_end")
        self.active = getattr(callbacks, f"_should_call_{mode}_batch_hooks", True)
        self.every = max(1, every)
        self.stop_on_flag = mode == "train"
        self.first = 0  # the batch number of the epoch's first step (an epoch resumed inside)
        # steps_per_execution='auto': the tuner's counter gives each execution's length
        self.tuned = tuned
        self.steps = steps  # the steps of an epoch, when known: the last execution is cut there
        self._left = 0  # the steps left in the current execution (with `tuned`)
        # the last step's returned logs: an overridden train_step's dict is the epoch's logs
        self.last_outputs: Any = None

    def before_step(self, step: int) -> None:
        if self.tuned is not None:
            if step == 0:
                self._left = 0  # an epoch starts a new execution
            if self.active and self._left <= 0:
                step += self.first
                self._left = max(1, int(self.tuned.numpy()))
                if self.steps is not None:
                    self._left = max(1, min(self._left, self.steps - step))
                self.begin(step)
            return
        step += self.first
        if self.active and step % self.every == 0:
            self.begin(step)

    def after_step(self, step: int, outputs: Any) -> bool:
        self.last_outputs = outputs
        step += self.first
        if self.tuned is not None:
            self._left -= 1
            if self.active and self._left <= 0:
                self.end(step, outputs if isinstance(outputs, Mapping) else None)
        elif self.active and (step + 1) % self.every == 0:
            self.end(step, outputs if isinstance(outputs, Mapping) else None)
        return self.stop_on_flag and self.model.stop_training
