"""The running state hooks see as `session`, and the runner that calls the hooks around steps.

A hook's fetches are resolved after the step against what `model_fn`
returned: `'loss'`, `'global_step'` (its value before this step's update,
as a TF hook saw it), a prediction key, an eval metric name, a summary tag, or a
tensor; results arrive as numpy values. Nothing is read back from the device
unless a hook asked for it.

Hooks that `model_fn` returns in its `EstimatorSpec` are made anew on every
call; the runner keeps the first ones (they hold the state: counters, timers)
and, after each step, gives them the tensors of the newest ones, so a hook
fetching a tensor of `model_fn` always sees this step's value (`_spec_hooks.py`
says which attributes those are).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._engine import loop
from torchestimator._engine.loop import StepEvents
from torchestimator.estimator._spec_hooks import SpecHooks
from torchestimator.estimator.hooks.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)

logger = logging.getLogger("torchestimator")


def _to_numpy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        value = value.detach()
        return value.cpu().numpy() if value.ndim else value.cpu().numpy()[()]
    if hasattr(value, "result") and hasattr(value, "update_state"):
        return _to_numpy(value.result())
    if isinstance(value, tuple) and len(value) == 2 and hasattr(value[0], "result"):
        return _to_numpy(value[0].result())
    if isinstance(value, LazySummary):
        return _to_numpy(value())
    return value


class LazySummary:
    """A summary value computed only when a hook reads it (e.g. every `save_summary_steps`)."""

    __slots__ = ("fn", "args")

    def __init__(self, fn: Any, *args: Any):
        self.fn = fn
        self.args = args

    def __call__(self) -> Any:
        return self.fn(*self.args)


def checks_before_save(pre_save_checks: list[Callable[[], bool]]) -> bool:
    """Run by every session (the Estimator's `Session`, `MonitoredSession`'s) at the start of
    each checkpoint save, the one place the save path reads back the training loop's deferred
    checks (labels out of range, a NaN loss): a failed one raises before anything is written.
    Then runs the hooks' pre-save checks in order; False when one refused the save."""
    loop.flush_deferred_checks()
    for check in pre_save_checks:
        if not check():
            return False
    return True


class Session:
    """What hooks receive as `session`: the model's state during one train/evaluate/predict call.

    `global_step` (an int), `model_dir`, `spec` (the last step's EstimatorSpec),
    `run(fetches)` (numpy values of names or tensors of the last step),
    `summary_writer(logdir)`, `save_checkpoint()`, `summaries()`.
    """

    def __init__(self, runtime: Any, mode: str):
        self.runtime = runtime  # the Estimator's ModelRuntime
        self.mode = mode
        self.spec: Any = None
        self.step_start_global_step = runtime.state.global_step
        self.input_position: int | None = None
        self.input_ended = False  # under a strategy: the step running (or last run) used the input up
        self._pre_save_checks: list[Callable[[], bool]] = []

    @property
    def global_step(self) -> int:
        """The current global step (after the last step's update)."""
        return self.runtime.state.global_step

    @property
    def model_dir(self) -> str:
        """The Estimator's model_dir."""
        return self.runtime.model_dir

    def summary_writer(self, logdir: str | None = None) -> Any:
        """The shared TensorBoard writer of `logdir` (default: model_dir)."""
        return self.runtime.summary_writer(logdir or self.runtime.model_dir)

    def add_pre_save_check(self, check: Callable[[], bool]) -> None:
        """Registers `check() -> bool`, run before every checkpoint save; a False result skips
        the save (a check may also raise, e.g. NanTensorHook on a NaN loss)."""
        self._pre_save_checks.append(check)

    def save_checkpoint(self, checkpoint_dir: str | None = None,
                        checkpoint_basename: str = "model.ckpt") -> str | None:
        """Writes a checkpoint at the current global step into `checkpoint_dir` (default:
        model_dir); returns its path, or None when a pre-save check refused the save."""
        if not checks_before_save(self._pre_save_checks):
            return None
        return self.runtime.save_checkpoint(self, checkpoint_dir, checkpoint_basename)

    def step_loss(self) -> Any:
        """The last step's loss as hooks see it (None without one): under a distribution
        strategy, its mean over the replicas, as TF reported the loss reduced across replicas."""
        loss = self.spec.loss if self.spec is not None else None
        parallel = self.runtime.parallel
        return loss if parallel is None else parallel.reported_loss(loss)

    def summaries(self) -> dict[str, Any]:
        """Scalar summaries of the last step: `loss` and what model_fn recorded."""
        out = {}
        if self.spec is not None and self.spec.loss is not None:
            out["loss"] = self.step_loss()
        out.update(self.runtime.state.scope.context.summaries)
        return out

    def tensor(self, name: str) -> Any:
        """The object model_fn returned under `name` in the last step (a tensor, a metric, or
        the global step as an int); raises ValueError listing the names that exist."""
        name = name.split(":")[0]
        spec = self.spec
        if name == "global_step":
            return self.step_start_global_step
        if name == "loss" and spec is not None and spec.loss is not None:
            return self.step_loss()
        if spec is not None and isinstance(spec.predictions, dict) and name in spec.predictions:
            return spec.predictions[name]
        if spec is not None and spec.eval_metric_ops and name in spec.eval_metric_ops:
            return spec.eval_metric_ops[name]
        summaries = self.runtime.state.scope.context.summaries
        if name in summaries:
            return summaries[name]
        known = ["loss", "global_step"]
        if spec is not None and isinstance(spec.predictions, dict):
            known += sorted(spec.predictions)
        if spec is not None and spec.eval_metric_ops:
            known += sorted(spec.eval_metric_ops)
        raise ValueError(
            f"A hook fetches {name!r}, which the model_fn did not return; fetchable names "
            f"are {known + sorted(summaries)}, or pass a tensor."
        )

    def resolve(self, fetch: Any, remap: dict | None = None) -> Any:
        """Returns the numpy value of `fetch` (a name, tensor, metric, or a list/tuple/dict of
        them) for the last step. `remap` maps id() of stale tensors to this step's."""
        if isinstance(fetch, str):
            value = self.tensor(fetch)
            return np.int64(value) if isinstance(value, int) else _to_numpy(value)
        if isinstance(fetch, dict):
            return {k: self.resolve(v, remap) for k, v in fetch.items()}
        if isinstance(fetch, (list, tuple)) and not (
            isinstance(fetch, tuple) and len(fetch) == 2 and hasattr(fetch[0], "result")
        ):
            return type(fetch)(self.resolve(v, remap) for v in fetch)
        if fetch is None:
            return None
        if remap:
            fetch = remap.get(id(fetch), fetch)
        if self.spec is not None and fetch is self.spec.loss:
            fetch = self.step_loss()
        return _to_numpy(fetch)

    def run(self, fetches: Any) -> Any:
        """Returns the values of `fetches` for the last step (TF's `session.run` for reading)."""
        return self.resolve(fetches)


_NO_VALUES = SessionRunValues(None, None, None)
_NO_ARGS = SessionRunArgs(None)


def _overrides(hook: SessionRunHook, method: str) -> bool:
    return getattr(type(hook), method, None) is not getattr(SessionRunHook, method)


class HookRunner(StepEvents):
    """Runs hooks through their lifecycle: `begin`, `after_create_session`, around each step
    `before_run`/`after_run`, and `end`.

    `hooks` may hold `(field_name, None)` placeholders: the hooks of that field of
    the first EstimatorSpec take their place (`set_spec_hooks`), and are
    refreshed from each later spec.
    """

    def __init__(self, hooks: list, session: Session):
        self.session = session
        self.stop_requested = False
        self._layout = list(hooks)
        self.hooks: list[SessionRunHook] = [h for h in hooks if isinstance(h, SessionRunHook)]
        self._spec_fields: list[tuple[str, list]] = []
        self._spec_hooks = SpecHooks()
        self._context: SessionRunContext | None = None
        self._pending: list = []
        self._warned_feed = False
        self._index()

    def _index(self) -> None:
        self._before = [h for h in self.hooks if _overrides(h, "before_run")]
        self._after = [h for h in self.hooks if _overrides(h, "after_run")]

    def set_spec_hooks(self, spec: Any) -> None:
        """Puts the hooks of `spec` where the placeholders are (called once, before `begin`)."""
        hooks: list = []
        for item in self._layout:
            if isinstance(item, tuple):
                field = item[0]
                found = list(getattr(spec, field, ()) or ())
                self._spec_fields.append((field, found))
                for hook in found:
                    self._spec_hooks.keep(hook)
                hooks.extend(found)
            else:
                hooks.append(item)
        self.hooks = hooks
        self._index()

    def begin(self) -> None:
        """Calls every hook's `begin`."""
        for hook in self.hooks:
            hook.begin()

    def after_create_session(self) -> None:
        """Calls every hook's `after_create_session` (the model is ready)."""
        for hook in self.hooks:
            hook.after_create_session(self.session, None)

    def before_step(self, step: int) -> None:
        session = self.session
        session.step_start_global_step = session.global_step
        context = self._context = SessionRunContext(_NO_ARGS, session)
        if not self._before:
            return
        pending = []
        for hook in self._before:
            args = hook.before_run(context)
            if args is not None and not isinstance(args, SessionRunArgs):
                raise TypeError(
                    f"{type(hook).__name__}.before_run must return a SessionRunArgs or None; "
                    f"it returned {args!r}"
                )
            if args is not None and args.feed_dict and not self._warned_feed:
                self._warned_feed = True
                logger.warning(
                    "SessionRunArgs.feed_dict of %s is ignored: model_fn runs eagerly, there are "
                    "no placeholders to feed. Put the values in input_fn instead.",
                    type(hook).__name__,
                )
            pending.append(args)
        self._pending = pending

    def after_step(self, step: int, outputs: Any) -> bool:
        session = self.session
        remap: dict | None = None
        spec = session.spec
        if self._spec_fields and spec is not None:
            remap = {}
            for field, persistent in self._spec_fields:
                for old, new in zip(persistent, getattr(spec, field, ()) or ()):
                    if type(old) is type(new) and old is not new:
                        self._spec_hooks.refresh(old, new, remap)
        context = self._context
        results: dict[int, Any] = {}
        for hook, args in zip(self._before, self._pending):
            if args is not None and args.fetches is not None:
                results[id(hook)] = session.resolve(args.fetches, remap)
        for hook in self._after:
            value = results.get(id(hook)) if results else None
            hook.after_run(context, _NO_VALUES if value is None else SessionRunValues(value, None, None))
        self._pending = []
        if context.stop_requested:
            self.stop_requested = True
        return self.stop_requested

    def end(self) -> None:
        """Calls every hook's `end` (after the last step)."""
        for hook in self.hooks:
            hook.end(self.session)
