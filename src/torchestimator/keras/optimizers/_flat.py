"""Many small CPU parameters updated as one flat vector.

On the CPU a multi-tensor op (`torch._foreach_*`) is a loop of one op per
tensor, so an update rule of seven ops over the eleven small weights of a
linear model (a wide & deep model's wide part) runs 77 ops a step, each
costing more to dispatch than to compute. When a rule is elementwise (every
entry of a parameter is updated from the same entries of its gradient and
slots only), the group's parameters can be updated as one vector instead:
the gradients and weights are flattened once (two C++ calls), the rule runs
once over the flat vector, and the new weights are copied back (one
multi-tensor copy).

The slots (accumulators, moments) live in flat buffers for good: each
parameter's slot in `kernel.state[p]` is a view into its buffer, so
checkpoints, `variables()` and in-place restores see and write the same
values as before, and a partial update (some gradients missing) updates the
views in place.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._torch_private import flatten_dense_tensors

#: Groups of more elements than this are updated tensor by tensor (copying the weights and
#: gradients twice would cost more than the per-tensor dispatch it saves).
MAX_ELEMENTS = 1 << 15

#: ... and so are groups of more elements than this per parameter (measured on a 2-core CPU:
#: eleven tensors of 3,062 elements in all update 64 -> 43 us flat; nine of 20,261, dominated
#: by one 2,000 x 8 table, take as long either way).
MAX_ELEMENTS_PER_PARAMETER = 1024

#: Groups of fewer parameters are updated tensor by tensor (too little dispatch to save).
MIN_PARAMETERS = 4

_PLAIN_DISPATCH = torch.Tensor.__torch_dispatch__


class FlatGroup:
    """One param group's parameters seen as one flat vector, with their slots in flat buffers.

    Made by `make`, which rewires `kernel.state[p][slot]` to views of the buffers.
    """

    def __init__(self, kernel: Any, index: int, params: list[torch.Tensor]):
        self.params = list(params)  # a copy: the caller's list may grow or change in place
        first = params[0]
        sizes = [p.numel() for p in params]
        total = sum(sizes)
        self.weights = torch.empty(total, dtype=first.dtype, device=first.device)
        self.weights_list = [self.weights]
        self.weight_views = _views(self.weights, params, sizes)
        slots = kernel.group_slots(index)
        self.slots: dict[str, list[torch.Tensor]] = {}
        rewired: dict[str, list[torch.Tensor]] = {}
        for name, tensors in slots.items():
            flat = _flatten(tensors)
            views = _views(flat, params, sizes)
            for p, view in zip(params, views):
                kernel.state[p][name] = view
            self.slots[name] = [flat]
            rewired[name] = views
        kernel._caches[index] = (len(params), rewired)

    @staticmethod
    def make(kernel: Any, index: int, params: list[torch.Tensor]) -> FlatGroup | None:
        """The flat view of group `index` when it qualifies: at least `MIN_PARAMETERS` dense
        floating CPU tensors of one dtype (no tensor subclass with its own dispatch), at most `MAX_ELEMENTS` in all and
        `MAX_ELEMENTS_PER_PARAMETER` on average, whose slots share their dtype; None otherwise."""
        if len(params) < MIN_PARAMETERS:
            return None
        first = params[0]
        dtype = first.dtype
        if first.device.type != "cpu" or not dtype.is_floating_point:
            return None
        total = 0
        for p in params:
            if (p.dtype != dtype or p.device != first.device or p.layout != torch.strided
                    or type(p).__torch_dispatch__ is not _PLAIN_DISPATCH):  # e.g. FSDP's DTensor shards
                return None
            total += p.numel()
        if total > min(MAX_ELEMENTS, MAX_ELEMENTS_PER_PARAMETER * len(params)):
            return None
        for tensors in kernel.group_slots(index).values():
            for t in tensors:
                if t.dtype != dtype or t.device != first.device or t.layout != torch.strided:
                    return None
        return FlatGroup(kernel, index, params)

    def serves(self, params: list[torch.Tensor]) -> bool:
        """Whether this view was made for exactly these parameters."""
        mine = self.params
        return len(mine) == len(params) and all(a is b for a, b in zip(mine, params))

    def update(self, kernel: Any, group: dict[str, Any], params: list[torch.Tensor],
               grads: list[torch.Tensor], step: int) -> None:
        """Runs `kernel.update` once over the flat weights, gradients and slots, then writes the
        new weights back into `params` (under `torch.no_grad()`, as every update)."""
        self.weights.copy_(_flatten(params))
        kernel.update(group, self.weights_list, [_flatten(grads)], self.slots, step)
        torch._foreach_copy_(params, self.weight_views)


def _flatten(tensors: list[torch.Tensor]) -> torch.Tensor:
    """The tensors' values one after another in a new 1-D tensor (one C++ call:
    `torch._utils._flatten_dense_tensors` without its Python wrapper; a Python list of
    `reshape(-1)` views and a `cat` cost twice as much for a dozen small tensors)."""
    return flatten_dense_tensors(tensors)


def _views(flat: torch.Tensor, params: list[torch.Tensor], sizes: list[int]) -> list[torch.Tensor]:
    """Views of `flat` shaped as each of `params`, one after another."""
    views = []
    offset = 0
    for p, size in zip(params, sizes):
        views.append(flat[offset:offset + size].view(p.shape))
        offset += size
    return views
