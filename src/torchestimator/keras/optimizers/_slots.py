"""The optimizer methods besides the update: Keras 2.15's `aggregate_gradients` and the
`.keras` weights-store hooks (`save_own_variables` / `load_own_variables`), and the legacy
(OptimizerV2) slot API -- `add_slot`, `get_slot`, `get_slot_names`, `add_weight`,
`get_weights`, and the graph-era `get_gradients` / `get_updates` -- which the shared base
class (`tf.keras.optimizers.legacy.Optimizer` here) gives every optimizer.

A slot is the per-variable state of the update rule (Adam's `m` and `v`): it lives in the
optimizer's torch kernel (`_kernel.py`), named as the legacy optimizers name it in TF
(`checkpoint_slot_name`: SGD's momentum is 'momentum', RMSprop's 'rms' and 'mg'); `add_slot`
adds slots of one's own.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine import gradient_sync
from torchestimator._ops import nest
from torchestimator._ops.graph_compat import VariableAggregation, VariableSynchronization
from torchestimator._variable import Variable
from torchestimator.keras import initializers
from torchestimator.keras.optimizers._args import _var_name

_log = logging.getLogger("torchestimator")


class SlotsMixin:
    """The methods of this module (see its docstring), mixed into `Optimizer`."""

    # ------------------------------------------------------------------ Keras 2.15
    def aggregate_gradients(self, grads_and_vars: Any) -> list:
        """Returns `(gradient, variable)` pairs with the gradients all-reduced across the
        replicas of the current distribution strategy run (`strategy.run`, `fit` under a
        strategy); outside one, the gradients come back unchanged. None gradients stay None.

        The replicas' gradients are averaged, which is what TF's sum of the replicas'
        gradients of a loss scaled by the global batch size amounts to here, where each
        replica's loss is the mean over its own batch."""
        pairs = list(grads_and_vars)
        present = [(g, v) for g, v in pairs if g is not None]
        sync = gradient_sync.current()
        if not present or not sync.reduces:
            return pairs
        reduced = iter(sync.reduce([g for g, _ in present], [v for _, v in present]))
        return [(None, v) if g is None else (next(reduced), v) for g, v in pairs]

    def save_own_variables(self, store: Any) -> None:
        """Writes the optimizer's variables (`variables`: iterations, then the slots) into
        `store`, a dict-like, as `"0"`, `"1"`, ... -> numpy arrays (the `.keras` format's
        weights-store hook)."""
        for i, variable in enumerate(self.variables):
            store[str(i)] = variable.detach().cpu().numpy()

    def load_own_variables(self, store: Any) -> None:
        """Sets the optimizer's variables from `store` (as `save_own_variables` wrote it).
        A store of another size is skipped with a warning, as TF's (an optimizer not built
        yet has only `iterations`)."""
        count = len(self.variables)
        if len(store.keys()) != count:
            message = (
                f"Skipping variable loading for optimizer '{self.name}', because it has {count} "
                f"variables whereas the saved optimizer has {len(store.keys())} variables. "
            )
            if count == 0:
                message += "This is likely because the optimizer has not been called/built yet."
            _log.warning(message)
            return
        self.set_weights([store[str(i)] for i in range(count)])

    # ------------------------------------------------------------------ OptimizerV2 slots
    def _slot_state(self, var: torch.Tensor) -> dict:
        """`{TF slot name: tensor}` of `var`: the kernel's slots, then those `add_slot` made."""
        out: dict = {}
        kernel = self._kernel
        if kernel is not None and var in kernel.state:
            state = kernel.state[var]
            for names in self._slot_layout:
                for name in names:
                    if name in state:
                        out[self.checkpoint_slot_name(name)] = state[name]
        out.update(self.__dict__.get("_own_slots", {}).get(id(var), {}))
        return out

    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer has made (in creation order): Adam's
        ['m', 'v'], SGD with momentum's ['momentum'], ...; [] before it is built."""
        names: list[str] = []
        kernel = self._kernel
        if kernel is not None and self._vars:
            state = kernel.state.get(self._vars[0], {})
            names = [self.checkpoint_slot_name(name) for group in self._slot_layout
                     for name in group if name in state]
        for name in self.__dict__.get("_own_slot_names", []):
            if name not in names:
                names.append(name)
        return names

    def get_slot(self, var: torch.Tensor, slot_name: str) -> torch.Tensor:
        """The slot `slot_name` of variable `var` (Adam's `'m'`, SGD's `'momentum'`): the
        tensor the update reads and writes. Raises KeyError for a variable the optimizer
        does not train or a slot it does not keep."""
        if id(var) not in self._index_dict and id(var) not in self.__dict__.get("_own_slots", {}):
            raise KeyError(_var_name(var))
        slots = self._slot_state(var)
        if slot_name in slots:
            return slots[slot_name]
        state = self._kernel.state.get(var, {}) if self._kernel is not None else {}
        if slot_name in state and any(slot_name in group for group in self._slot_layout):
            return state[slot_name]  # the slot by its name in the new optimizers ('velocity')
        raise KeyError(slot_name)

    def add_slot(self, var: torch.Tensor, slot_name: str, initializer: Any = "zeros",
                 shape: Any = None) -> torch.Tensor:
        """Adds (or returns the existing) slot `slot_name` of `var`: a non-trainable variable
        named '<var>/<slot_name>', of `var`'s dtype and device, initialized by `initializer`
        (a name, an initializer, a callable `(shape, dtype)` or a value), of `var`'s shape
        unless `shape` is given. It is part of `get_weights()` and the checkpointed state."""
        existing = self._slot_state(var).get(slot_name)
        if existing is not None:
            return existing
        names = self.__dict__.setdefault("_own_slot_names", [])
        if slot_name not in names:
            names.append(slot_name)
        slot_shape = tuple(var.shape) if shape is None else tuple(shape)
        value = _initial_value(initializer, slot_shape, var.dtype)
        slot = Variable.create(value.to(var.device), False, f"{_var_name(var).split(':')[0]}/{slot_name}")
        slot._keras_name = slot._tf_name
        self.__dict__.setdefault("_own_slots", {}).setdefault(id(var), {})[slot_name] = slot
        self._extra_variables.append(slot)
        return slot

    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = "zeros",
                   trainable: bool | None = None,
                   synchronization: Any = VariableSynchronization.AUTO,
                   aggregation: Any = VariableAggregation.NONE) -> Variable:
        """Creates a variable of the optimizer (a hyperparameter's, say) named `name`, of
        `shape` and `dtype` (float32 by default), initialized by `initializer`; trainable
        unless `trainable=False` or `synchronization=ON_READ`. It is not part of
        `get_weights()` (as TF's legacy optimizers' hyperparameters are not)."""
        del aggregation
        dtype = torch.float32 if dtype is None else _dtypes.as_dtype(dtype)
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only for "
                    "non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ."
                )
            trainable = False
        elif trainable is None:
            trainable = True
        shape = () if shape is None else tuple(shape)
        return Variable.create(_initial_value(initializer, shape, dtype), bool(trainable), name)

    def get_weights(self) -> list[np.ndarray]:
        """The optimizer's state as numpy arrays: `iterations`, then the slots (`variables`);
        [] before the optimizer is built."""
        if not self._vars and not self._extra_variables:
            return []
        return [v.detach().cpu().numpy() for v in self.variables]

    # ------------------------------------------------------------------ graph-era methods
    def get_gradients(self, loss: torch.Tensor, params: Any) -> list[torch.Tensor]:
        """The gradients of `loss` (a tensor computed from `params` with autograd recording)
        with respect to `params`. Raises ValueError for a variable without a gradient, as TF's
        (TF computes it in a graph; here the loss's autograd graph is kept)."""
        params = nest.flatten(params)
        grads: list[Any] = [None] * len(params)
        if isinstance(loss, torch.Tensor) and loss.requires_grad:
            wanted = [i for i, p in enumerate(params) if isinstance(p, torch.Tensor) and p.requires_grad]
            found = torch.autograd.grad(loss, [params[i] for i in wanted], retain_graph=True,
                                        allow_unused=True)
            for i, g in zip(wanted, found):
                grads[i] = g
        for grad, param in zip(grads, params):
            if grad is None:
                raise ValueError(
                    f"Variable {param} has `None` for gradient. Please make sure that all of your "
                    "ops have a gradient defined (i.e. are differentiable). Common ops without "
                    "gradient: K.argmax, K.round, K.eval."
                )
        return grads

    def get_updates(self, loss: torch.Tensor, params: Any) -> list:
        """Applies the gradients of `loss` to `params` (`get_gradients`, then
        `apply_gradients`); returns `[apply_gradients' result]`, as TF's."""
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, nest.flatten(params))))]


def _initial_value(initializer: Any, shape: tuple, dtype: torch.dtype) -> torch.Tensor:
    """The value `initializer` gives a variable of `shape` and `dtype` (a Keras initializer
    name or object, a callable `(shape, dtype)`, or a value)."""
    if isinstance(initializer, str) or callable(initializer):
        init = initializers.get(initializer) if isinstance(initializer, str) else initializer
        with torch.no_grad():
            value = init(shape, dtype=dtype)
    else:
        value = initializer
    if not isinstance(value, torch.Tensor):
        value = torch.as_tensor(np.asarray(value))
    return value.detach().to(dtype).reshape(shape).clone()
