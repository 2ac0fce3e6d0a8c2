"""Hooks that `model_fn` returns in its `EstimatorSpec`: kept across steps, refreshed explicitly.

`model_fn` runs on every step, so it makes its spec hooks anew each time. The runner keeps the
first ones (they hold the state: timers, counters, a diverged flag) and after each step gives
them what the newest ones carry from `model_fn`, so a hook fetching a tensor of `model_fn`
sees this step's value. Which attributes those are is said, not guessed:

* A hook class names them in `_model_fn_attributes` (the built-in hooks do:
  `LoggingTensorHook._tensors`, `NanTensorHook._loss`, `SummarySaverHook._summary_op`,
  `FinalOpsHook._final_ops`). Those attributes are taken from each step's new hook.
* A hook class that does not (`_model_fn_attributes = None`, a user's hook) gets the
  attributes that held tensors or metrics on the first spec's hook -- except any the hook
  itself reassigns or changes in place later (its own state): each such attribute carries a
  stamp (identity and in-place version of its tensors) taken when it was last refreshed, and
  an attribute whose stamp changed is left alone from then on.

Every replaced tensor is recorded in `remap` (id of the stale tensor -> the fresh one), so a
hook's `SessionRunArgs` naming last step's tensor resolve to this step's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from torchestimator.estimator.hooks.session_run_hook import SessionRunHook


def _leaves(value: Any) -> list | None:
    """The tensor/metric leaves of `value` in order, or None if it holds none."""
    if isinstance(value, torch.Tensor) or (hasattr(value, "result") and hasattr(value, "update_state")):
        return [value]
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return None
    found: list = []
    for item in items:
        sub = _leaves(item)
        if sub:
            found.extend(sub)
    return found or None


def _stamp(value: Any) -> list:
    """Identity and in-place version of each tensor/metric of `value`."""
    return [(id(x), getattr(x, "_version", None)) for x in _leaves(value) or ()]


@dataclass
class _Plan:
    """What to refresh on one kept hook: `declared` attributes always; `found` ones (with their
    stamps) while the hook leaves them as model_fn made them."""

    declared: tuple[str, ...]
    found: dict[str, list] = field(default_factory=dict)


class SpecHooks:
    """The refresh plans of the kept spec hooks (see the module docstring)."""

    def __init__(self) -> None:
        self._plans: dict[int, _Plan] = {}

    def keep(self, hook: SessionRunHook) -> None:
        """Starts keeping `hook` (a hook of the first spec): its plan is made now, once."""
        declared = getattr(type(hook), "_model_fn_attributes", None)
        if declared is not None:
            self._plans[id(hook)] = _Plan(tuple(declared))
            return
        found = {key: _stamp(value) for key, value in vars(hook).items() if _leaves(value) is not None}
        self._plans[id(hook)] = _Plan((), found)

    def refresh(self, kept: SessionRunHook, new: SessionRunHook, remap: dict) -> None:
        """Gives the kept hook `kept` what `new` (made by this step's model_fn) carries."""
        plan = self._plans[id(kept)]
        for key in plan.declared:
            _take(kept, new, key, remap)
        for key, stamp in list(plan.found.items()):
            if _stamp(getattr(kept, key, None)) != stamp:
                del plan.found[key]  # the hook changed it: its own state from now on
                continue
            value = getattr(new, key, None)
            if _leaves(value) is None:
                continue
            _take(kept, new, key, remap)
            plan.found[key] = _stamp(value)


def _take(kept: SessionRunHook, new: SessionRunHook, key: str, remap: dict) -> None:
    """Sets `kept.<key>` to `new.<key>`, recording which stale tensor each fresh one replaces."""
    value = getattr(new, key, None)
    for stale, fresh in zip(_leaves(getattr(kept, key, None)) or (), _leaves(value) or ()):
        remap[id(stale)] = fresh
    setattr(kept, key, value)
