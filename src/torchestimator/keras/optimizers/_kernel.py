"""The `torch.optim.Optimizer` base of the update rules behind `tf.keras.optimizers`.

Each Keras optimizer of this package owns one of these "kernels": a plain
`torch.optim.Optimizer` subclass whose `update()` holds TF 2.15's math as
multi-tensor (`torch._foreach_*`) operations. A kernel is usable on its own
in a torch loop (`kernel.step()` reads `p.grad`); the Keras optimizer calls
`update()` directly with the gradient lists it already gathered, so the hot
path pays no per-parameter Python work beyond building two lists.

Slot tensors (Keras' optimizer variables: momentums, accumulators, ...) live
in `self.state[p]` under Keras' slot names and are created eagerly, when a
parameter is added, so checkpoints can be restored before the first step.
Steps are counted globally in `self.iterations` (Keras' `optimizer.iterations`),
not per parameter as in `torch.optim`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch

from torchestimator.keras.optimizers._flat import FlatGroup

Tensors = list[torch.Tensor]

_UNSET = object()


def _undecorated(name: str) -> Callable[..., Any]:
    """Returns `torch.optim.Optimizer.<name>` without its `torch._disable_dynamo` wrapper.

    That wrapper imports `torch._dynamo` on first use (about a second on a small
    CPU machine) only to mark the method as not compilable; the kernels never
    run under `torch.compile`, so they call the plain method.
    """
    method = getattr(torch.optim.Optimizer, name)
    return getattr(method, "__wrapped__", method)


_add_param_group = _undecorated("add_param_group")
_state_dict = _undecorated("state_dict")
_load_state_dict = _undecorated("load_state_dict")
_zero_grad = _undecorated("zero_grad")


class TorchKernel(torch.optim.Optimizer):
    """A `torch.optim.Optimizer` carrying one of TF 2.15's update rules.

    Subclasses define `slot_names(group)`, optionally `initial_slot_value`, and
    `update(group, params, grads, slots, step)`, which applies one update with
    `step` = the number of updates already applied (Keras' `iterations`).
    """

    #: Whether `update` is elementwise: each entry of a parameter is updated from the same
    #: entries of its gradient and slots alone (and from scalars). Such a kernel updates a
    #: group of many small CPU parameters as one flat vector (`_flat.py`).
    elementwise = False

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.iterations = 0
        self._caches: dict[int, tuple[int, dict[str, Tensors]]] = {}
        self._flat: dict[int, FlatGroup | None] = {}
        super().__init__(params, defaults)

    # --- what a subclass defines -------------------------------------------------------------

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """Returns the names of the per-parameter slots this rule keeps for `group`."""
        return ()

    def initial_slot_value(self, name: str, group: dict[str, Any]) -> float:
        """Returns the value a new slot `name` starts from (0 unless the rule says otherwise)."""
        return 0.0

    def update(
        self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int
    ) -> None:
        """Applies one update to `params` given `grads` (called under `torch.no_grad()`)."""
        raise NotImplementedError(f"{type(self).__name__} must implement update()")

    # --- slots ---------------------------------------------------------------------------------

    def init_state(self, p: torch.Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        """Creates the missing slots of parameter `p`; returns its state dict."""
        state = self.state[p]
        for name in self.slot_names(group):
            if name not in state:
                init = self.initial_slot_value(name, group)
                state[name] = (
                    torch.full_like(p, init, memory_format=torch.preserve_format)
                    if init
                    else torch.zeros_like(p, memory_format=torch.preserve_format)
                )
        return state

    def slots_for(self, group: dict[str, Any], params: Tensors) -> dict[str, Tensors]:
        """Returns `{slot name: [slot tensor of each of params]}`, creating missing slots."""
        names = self.slot_names(group)
        slots: dict[str, Tensors] = {name: [] for name in names}
        for p in params:
            state = self.state[p] if p in self.state else {}
            if any(name not in state for name in names):
                state = self.init_state(p, group)
            for name in names:
                slots[name].append(state[name])
        return slots

    def group_slots(self, index: int = 0) -> dict[str, Tensors]:
        """Returns the slots of every parameter of param group `index` (cached)."""
        group = self.param_groups[index]
        cached = self._caches.get(index)
        if cached is None or cached[0] != len(group["params"]):
            cached = (len(group["params"]), self.slots_for(group, group["params"]))
            self._caches[index] = cached
        return cached[1]

    def invalidate_cache(self) -> None:
        """Forgets the cached slot lists and flat views (after parameters or state were replaced)."""
        self._caches.clear()
        self._flat.clear()

    def update_group(self, index: int, params: Tensors, grads: Tensors, step: int) -> None:
        """`update` of every parameter of param group `index`: `params` are the group's
        parameters in order, `grads` their dense gradients. An elementwise rule over many small
        CPU parameters runs once over them as one flat vector (`_flat.py`)."""
        group = self.param_groups[index]
        if self.elementwise:
            flat = self._flat.get(index, _UNSET)
            if flat is _UNSET or (flat is not None and not flat.serves(params)):
                flat = self._flat[index] = FlatGroup.make(self, index, params)
            if flat is not None:
                flat.update(self, group, params, grads, step)
                return
        self.update(group, params, grads, self.group_slots(index), step)

    def add_params(self, params: Iterable[torch.Tensor], group_index: int = 0) -> None:
        """Appends `params` to param group `group_index` and creates their slots."""
        group = self.param_groups[group_index]
        for p in params:
            group["params"].append(p)
            self.init_state(p, group)
        self.invalidate_cache()

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a param group (see `torch.optim.Optimizer.add_param_group`) and creates its slots."""
        _add_param_group(self, param_group)
        group = self.param_groups[-1]
        for p in group["params"]:
            self.init_state(p, group)
        if hasattr(self, "_caches"):
            self.invalidate_cache()

    # --- torch.optim API --------------------------------------------------------------------------

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Performs one update from the gradients in `p.grad`; returns `closure()`'s loss if given."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for index, group in enumerate(self.param_groups):
            params = group["params"]
            grads = [p.grad for p in params]
            if any(g is None for g in grads):
                pairs = [(p, g) for p, g in zip(params, grads) if g is not None]
                if not pairs:
                    continue
                params = [p for p, _ in pairs]
                grads = [g for _, g in pairs]
                self.update(group, params, dense_grads(grads), self.slots_for(group, params), self.iterations)
            else:
                self.update_group(index, params, dense_grads(grads), self.iterations)
        self.iterations += 1
        return loss

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of every parameter (see `torch.optim.Optimizer.zero_grad`)."""
        _zero_grad(self, set_to_none)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["iterations"] = self.iterations
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.iterations = state.get("iterations", 0)
        self._caches = {}
        self._flat = {}

    def state_dict(self) -> dict[str, Any]:
        """Returns torch's optimizer state dict plus `iterations`."""
        state = _state_dict(self)
        state["iterations"] = self.iterations
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state dict written by `state_dict()` (slots, param groups, iterations)."""
        state_dict = dict(state_dict)
        iterations = state_dict.pop("iterations", None)
        _load_state_dict(self, state_dict)
        if iterations is not None:
            self.iterations = int(iterations)
        self.invalidate_cache()


def dense_grads(grads: Tensors) -> Tensors:
    """Returns `grads` with sparse gradients (e.g. of `nn.Embedding(sparse=True)`) made dense."""
    for g in grads:
        if g.is_sparse:
            return [g.to_dense() if g.is_sparse else g for g in grads]
    return grads
