"""What the running `model_fn` call is: its mode, its global step, and what it recorded.

Every `ObjectScope` (see `object_scope.py`) carries one `ModelFnContext` as `scope.context`.
The Estimator starts each `model_fn` call with `context.begin_call(mode, global_step)`; code
that behaves differently inside a `model_fn` asks the context of the active scope:

    current_mode()        # "train" / "eval" / "infer" inside a model_fn, else None
    in_model_fn("train")  # inside a model_fn called in TRAIN mode?
    current_context()     # the whole context (or None outside every ObjectScope)

An `ObjectScope` entered without an Estimator (a bare `with ObjectScope():`) has a context
whose `mode` is None: objects are reused, but optimizers update at once, as outside.

What the context holds lives as long as the Estimator's scope (the global step variable, the
canned optimizers, the TF1 variable store) unless `begin_call` resets it (the mode, the step
count, the summaries and the pending global step updates are per call).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

#: The thread's active `ObjectScope` (`_LOCAL.scope`), set by `object_scope.ObjectScope`'s
#: `with` block; it is kept here, below `object_scope`, so both modules read one slot.
_LOCAL = threading.local()

__all__ = ["ModelFnContext", "current_context", "current_mode", "in_model_fn"]


@dataclass(eq=False)
class ModelFnContext:
    """The state of a `model_fn` call shared by the modules it calls into.

    Fields:
      mode: the `ModeKeys` value ("train", "eval", "infer") of the running call, or None when
        no Estimator started one (the scope reuses objects, nothing more).
      global_step: the Estimator's global step when the call began (an int), or None.
      global_step_variable: the `GlobalStepVariable` `get_global_step()` returns (created on
        first use and kept), and `global_step_variable_value` the step it was last set to.
      global_step_updates: the `(kind, value)` updates (`"assign"`, `"assign_add"`,
        `"assign_sub"`) model_fn made to the global step variable in this call, or None when
        it made none; the train op applies them (`train._global_step.advance`).
      summaries: what `tf.summary.*` recorded in this call, by name (detached tensors).
      canned_optimizers: the canned Estimators' optimizers by role ("dnn", "linear", ...).
      variable_store: TF1's variable store (`train._variable_store._Store`, behind
        `tf.compat.v1.get_variable`), or None until used.
      losses: the losses `tf.compat.v1.losses.*` made in this call (TF1's LOSSES collection).
    """

    mode: str | None = None
    global_step: int | None = None
    global_step_variable: Any = None
    global_step_variable_value: int | None = None
    global_step_updates: list[tuple[str, int]] | None = None
    summaries: dict[str, Any] = field(default_factory=dict)
    canned_optimizers: dict[str, Any] = field(default_factory=dict)
    variable_store: Any = None
    losses: list[Any] = field(default_factory=list)

    def begin_call(self, mode: str, global_step: int) -> None:
        """Starts a model_fn call in `mode` at `global_step`: fresh summaries, no pending
        global step updates."""
        self.mode = mode
        self.global_step = global_step
        self.summaries = {}
        self.losses = []
        self.global_step_updates = None

    @property
    def in_model_fn(self) -> bool:
        """True while an Estimator's model_fn call is running (a mode was set)."""
        return self.mode is not None

    @property
    def is_training(self) -> bool:
        """True in a model_fn call in TRAIN mode."""
        return self.mode == "train"

    def record_global_step_update(self, kind: str, value: int) -> None:
        """Appends a deferred `assign`/`assign_add`/`assign_sub` of the global step."""
        updates = self.global_step_updates
        if updates is None:
            updates = self.global_step_updates = []
        updates.append((kind, value))


def current_context() -> ModelFnContext | None:
    """The context of this thread's active ObjectScope, or None outside every scope."""
    scope = getattr(_LOCAL, "scope", None)
    return None if scope is None else scope.context


def current_mode() -> str | None:
    """The mode of the running model_fn call ("train", "eval", "infer"), or None outside one."""
    scope = getattr(_LOCAL, "scope", None)
    return None if scope is None else scope.context.mode


def in_model_fn(mode: str | None = None) -> bool:
    """True inside a running model_fn call (in `mode`, when given)."""
    scope = getattr(_LOCAL, "scope", None)
    if scope is None:
        return False
    running = scope.context.mode
    return running is not None if mode is None else running == mode
