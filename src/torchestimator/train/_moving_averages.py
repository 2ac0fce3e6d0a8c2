"""`tf.train.ExponentialMovingAverage`: shadow copies of variables kept as moving averages
(eager semantics: `apply()` updates the shadows at once)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.model_fn_context import current_context
from torchestimator._variable import Variable
from torchestimator.train import _graph_collections, _variable_store


def _op_name(var: Any) -> str:
    name = getattr(var, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"ExponentialMovingAverage needs named variables; {var!r} has no name.")
    return name.split(":")[0]


_USED_NAMES: dict[str, int] = {}


def _unique_name(name: str, mark_as_used: bool = True) -> str:
    """TF's graph `unique_name`: `name`, then `name_1`, `name_2`, ... (process-wide, as TF's
    eager default graph numbers the shadow variables)."""
    count = _USED_NAMES.get(name, 0)
    unique = name if count == 0 else f"{name}_{count}"
    if mark_as_used:
        _USED_NAMES[name] = count + 1
        while unique in _USED_NAMES and unique != name:  # `name_1` taken by another object
            count += 1
            unique = f"{name}_{count}"
            _USED_NAMES[name] = count + 1
        _USED_NAMES.setdefault(unique, 1)
    return unique


def _model_fn_shadow(name: str, initial: torch.Tensor) -> Variable:
    """Inside a `model_fn` (called once per step): the shadow variable `name` of the TF1
    variable store (`train._variable_store`), created on first use and the same object on later
    calls, so the Estimator checkpoints it under TF's name `<var>/ExponentialMovingAverage`."""
    return _variable_store.get_or_create_variable(name, initial, False)


def _value(x: Any) -> torch.Tensor:
    if isinstance(x, Variable):
        return x.detach().clone()
    return torch.as_tensor(x).detach().clone()


class ExponentialMovingAverage:
    """Maintains moving averages of variables using an exponential decay, as TF 2.15.

    `apply(var_list)` creates (first call) and updates a shadow variable per variable:
    `shadow -= (1 - decay) * (shadow - variable)`. With `num_updates`, the decay used is
    `min(decay, (1 + num_updates) / (10 + num_updates))`. Shadows of variables start at the
    variable's value; shadows of plain tensors start at zero and, with `zero_debias=True`,
    are debiased (divided by `1 - decay ** t`). `average(var)` returns the shadow variable,
    named `<var name>/<name>` (`average_name(var)`).
    """

    def __init__(self, decay: float, num_updates: Any = None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage") -> None:
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = bool(zero_debias)
        self._name = name
        self._averages: dict[int, Variable] = {}
        self._keys: dict[int, Any] = {}
        self._debias: dict[int, list] = {}  # id -> [biased tensor, local step]

    @property
    def name(self) -> str:
        """The name of this ExponentialMovingAverage object."""
        return self._name

    def _current_decay(self) -> float:
        decay = float(self._decay.numpy() if hasattr(self._decay, "numpy") else self._decay)
        if self._num_updates is not None:
            n = self._num_updates
            n = float(n.numpy() if hasattr(n, "numpy") else n)
            decay = min(decay, (1.0 + n) / (10.0 + n))
        return decay

    def apply(self, var_list: Any = None) -> None:
        """Maintains moving averages of the variables or tensors in `var_list` (default: the
        TF1 trainable variables) and updates them once. Returns None (eager: the update has run).

        Raises:
          TypeError: an element is not a floating-point variable or tensor.
        """
        if var_list is None:
            var_list = _graph_collections.trainable_variables()
        var_list = list(var_list)
        for var in var_list:
            if not torch.is_floating_point(torch.as_tensor(var)):
                raise TypeError(
                    "The variables must be half, float, or double: "
                    f"{getattr(var, 'name', var)!r} has dtype {torch.as_tensor(var).dtype}.")
            key = id(var)
            if key in self._averages:
                continue
            is_var = isinstance(var, Variable)
            initial = _value(var) if is_var else torch.zeros_like(torch.as_tensor(var))
            shadow_name = (f"{_op_name(var)}/{self._name}" if is_var and current_context() is not None
                           else _unique_name(f"{_op_name(var)}/{self._name}" if is_var else self._name))
            shadow = (_model_fn_shadow(f"{_op_name(var)}/{self._name}", initial) if is_var and
                      current_context() is not None else
                      Variable(initial, trainable=False, name=shadow_name))
            self._averages[key] = shadow
            self._keys[key] = var
            if not is_var and self._zero_debias:
                self._debias[key] = [torch.zeros_like(initial), 0]
        context = current_context()
        if context is not None and context.mode != "train":
            return None  # model_fn in EVAL/PREDICT mode or building the model: no update
        decay = self._current_decay()
        with torch.no_grad():
            for var in var_list:
                key = id(var)
                shadow = self._averages[key]
                value = _value(var).to(shadow.dtype)
                if key in self._debias:
                    state = self._debias[key]
                    state[0] = state[0] - (state[0] - value) * (1 - decay)
                    state[1] += 1
                    shadow.assign(state[0] / (1 - decay ** state[1]))
                else:
                    shadow.assign(shadow.detach() - (shadow.detach() - value) * (1 - decay))

    def average(self, var: Any) -> Variable | None:
        """The shadow variable holding the moving average of `var`, or None if `var` is not
        averaged (never passed to `apply`)."""
        return self._averages.get(id(var))

    def average_name(self, var: Any) -> str:
        """The name of the shadow variable of `var`: `<var op name>/<this object's name>`,
        under which TF checkpoints it (e.g. `"w/ExponentialMovingAverage"`)."""
        if id(var) in self._averages:
            return self._averages[id(var)].name.split(":")[0]
        return _unique_name(f"{_op_name(var)}/{self._name}", mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables: Any = None) -> dict[str, Any]:
        """A map of names to variables for restoring the moving averages in place of the
        variables: `{average_name(v): v}` for each averaged variable (`moving_avg_variables`,
        default every variable passed to `apply`), `{name: v}` for the TF1 global variables
        that are not averaged."""
        if moving_avg_variables is None:
            moving_avg_variables = [v for v in self._keys.values() if isinstance(v, Variable)]
        averaged = {id(v) for v in moving_avg_variables}
        name_map = {self.average_name(v): v for v in moving_avg_variables}
        shadows = {id(s) for s in self._averages.values()}
        for v in _graph_collections.global_variables():
            if id(v) not in averaged and id(v) not in shadows:
                name_map.setdefault(_op_name(v), v)
        return name_map
