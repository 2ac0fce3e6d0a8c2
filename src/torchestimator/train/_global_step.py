"""The global step seen from inside a `model_fn`: an int64 `tf.Variable` the Estimator owns.

The Estimator keeps the global step as a number and advances it once per train op. Inside
`model_fn`, `get_global_step()` returns a variable holding that number (the same object on
every call, so a `tf.train.Checkpoint(step=get_global_step(), ...)` tracks it). Updating it
there — `assign_add(1)`, `assign(n)`, `assign_sub(k)` — does not change it at once (model_fn
also runs in EVAL and PREDICT mode, and once more to build the model, where TF's graph ran no
train op): the update is recorded and, when the train op runs in TRAIN mode, it *is* that
step's advance of the global step. A model_fn that does not update it (every `minimize()`
model_fn) has it advanced by 1 per step, as before.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.model_fn_context import ModelFnContext, current_context
from torchestimator._variable import Variable


class GlobalStepVariable(Variable):
    """The global step inside a `model_fn`: a non-trainable int64 scalar variable.

    Its `assign*` methods called while model_fn runs are deferred to the train op (see the
    module docstring) and return the variable; elsewhere they update it at once.
    """

    def _record(self, kind: str, value: Any) -> GlobalStepVariable | None:
        context = current_context()
        if context is None or context.mode is None or context.global_step_variable is not self:
            return None
        if isinstance(value, torch.Tensor):
            value = value.item()
        if isinstance(value, bool) or int(value) != value:
            raise ValueError(f"global_step.{kind}() takes an integer; received {value!r}.")
        context.record_global_step_update(kind, int(value))
        return self

    def assign(self, value: Any, use_locking: Any = None, name: Any = None,
               read_value: bool = True) -> Variable:
        """Sets the global step (inside model_fn: when the train op runs). Returns the variable."""
        if self._record("assign", value) is None:
            super().assign(value)
        return self

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Variable:
        """Adds `delta` to the global step (inside model_fn: when the train op runs)."""
        if self._record("assign_add", delta) is None:
            super().assign_add(delta)
        return self

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Variable:
        """Subtracts `delta` from the global step (inside model_fn: when the train op runs)."""
        if self._record("assign_sub", delta) is None:
            super().assign_sub(delta)
        return self


def advance(step: int, updates: list[tuple[str, int]] | None) -> int:
    """The global step after a train op: `updates` (what model_fn recorded) applied to `step`,
    or `step + 1` when model_fn recorded none."""
    if not updates:
        return step + 1
    for kind, value in updates:
        if kind == "assign":
            step = value
        elif kind == "assign_add":
            step += value
        else:
            step -= value
    if step < 0:
        raise ValueError(f"The train op set the global step to {step}; it must stay >= 0.")
    return step


def global_step_variable(context: ModelFnContext, step: int) -> GlobalStepVariable:
    """The context's global step variable (created on first use), holding `step`."""
    variable = context.global_step_variable
    if variable is None:
        variable = GlobalStepVariable.create(torch.tensor(step, dtype=torch.int64), trainable=False,
                                             name="global_step")
        context.global_step_variable = variable
        context.global_step_variable_value = step
    elif context.global_step_variable_value != step:
        with torch.no_grad():
            variable.fill_(step)
        context.global_step_variable_value = step
    return variable


def get_global_step(graph: Any = None) -> GlobalStepVariable | None:
    """Returns the global step variable inside an Estimator's `model_fn`, else None.

    An int64 scalar `tf.Variable` named 'global_step' holding the number of train
    steps run so far (read it with `int(...)` or `.numpy()`). Passing it to
    `minimize(loss, global_step=...)` is accepted; updating it with `assign_add(1)`
    in the train op is the step's advance (see the module docstring).
    """
    context = current_context()
    if context is None or context.global_step is None:
        return None
    return global_step_variable(context, context.global_step)


def get_or_create_global_step(graph: Any = None) -> GlobalStepVariable:
    """Returns the global step inside a `model_fn`; raises outside one (there is no graph here)."""
    step = get_global_step()
    if step is None:
        raise RuntimeError(
            "There is no global step outside an Estimator's model_fn: the Estimator owns it."
        )
    return step
