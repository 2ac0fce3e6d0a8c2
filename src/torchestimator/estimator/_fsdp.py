"""The training hooks that `FSDPStrategy` adds to `Estimator.train` so that sharded weights are
gathered on every replica at the moments the chief writes a checkpoint.

Gathering is collective, so every replica must gather at the same step:

* the chief's `CheckpointSaverHook` decides when to save (every N steps or seconds); with a
  time-based trigger its decision is broadcast after each step (`_ChiefDecides`), so every
  replica sees the same decision (steps-based triggers agree without it);
* a non-chief replica runs `_SaveAlong` in the saver's place: it gathers when the chief
  saves, and writes nothing;
* `_EndTraining`, first on every replica, ends FSDP at the end of `train()` (the weights and
  optimizer slots gathered into the model): the final checkpoint, evaluate, predict and
  export then see an ordinary model.

`Estimator.train` adds them when the strategy's data-parallel part shards the weights
(`parallel.shards_weights`). In Keras, `fit` ends FSDP the same way
(`keras.engine._distribute_callbacks`).
"""

from __future__ import annotations

from typing import Any

from torchestimator.distribute import _collectives
from torchestimator.estimator.hooks import basic_hooks
from torchestimator.estimator.hooks.session_run_hook import SessionRunHook


class _ChiefDecides:
    """A `SecondOrStepTimer` whose `should_trigger_for_step` is the chief's decision on every
    replica (broadcast after each step when the timer counts seconds)."""

    def __init__(self, timer: Any, is_chief: bool) -> None:
        self._timer = timer
        self._is_chief = is_chief

    def __getattr__(self, name: str) -> Any:
        return getattr(self._timer, name)

    def should_trigger_for_step(self, step: int) -> bool:
        """Whether the chief's timer triggers at `step` (the same answer on every replica)."""
        decision = self._timer.should_trigger_for_step(step)
        if self._timer._every_secs is None:
            return decision  # steps only: every replica's timer agrees
        return bool(_collectives.broadcast_object(bool(decision) if self._is_chief else None, 0))


class _SaveAlong(SessionRunHook):
    """A non-chief replica's side of the chief's `CheckpointSaverHook`: the same triggers, a
    gather of the shards instead of a write."""

    def __init__(self, parallel: Any, save_secs: float | None, save_steps: int | None) -> None:
        self._parallel = parallel
        self._timer = _ChiefDecides(basic_hooks.SecondOrStepTimer(save_secs, save_steps), is_chief=False)

    def begin(self) -> None:
        self._timer.reset()

    def after_create_session(self, session: Any, coord: Any) -> None:
        self._gather()
        self._timer.update_last_triggered_step(session.global_step)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        step = run_context.session.global_step
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            self._gather()

    def end(self, session: Any) -> None:
        if session.global_step != self._timer.last_triggered_step():
            self._gather()

    def _gather(self) -> None:
        with self._parallel.full_state():
            pass


class _EndTraining(SessionRunHook):
    """First hook of every replica: at the end of `train()`, the model's full weights again."""

    def __init__(self, parallel: Any) -> None:
        self._parallel = parallel

    def end(self, session: Any) -> None:
        self._parallel.end_training()


def training_hooks(parallel: Any, chief: list, config: Any, user_saver: bool) -> list:
    """The chief hooks of `Estimator.train` under FSDPStrategy: on the chief, `chief` with its
    checkpoint saver's trigger shared with the other replicas; on another replica (`chief` is
    empty there), the hooks that gather along with the chief's saves."""
    if user_saver:
        raise ValueError(
            "FSDPStrategy: a CheckpointSaverHook passed in train(hooks=...) is not supported (every replica "
            "must gather the sharded weights when the chief saves). Set RunConfig(save_checkpoints_steps=N) "
            "or save_checkpoints_secs instead.")
    if config.is_chief:
        for hook in chief:
            if isinstance(hook, basic_hooks.CheckpointSaverHook) and not isinstance(hook._timer, _ChiefDecides):
                hook._timer = _ChiefDecides(hook._timer, is_chief=True)
        return [_EndTraining(parallel), *chief]
    hooks: list = [_EndTraining(parallel)]
    if config.save_checkpoints_steps is not None or config.save_checkpoints_secs is not None:
        hooks.append(_SaveAlong(parallel, config.save_checkpoints_secs, config.save_checkpoints_steps))
    return hooks
