"""Moving training state between devices in place: the one place that does it.

A front that runs its steps on another device than the last call's (Keras' `fit` under a new
`tf.device` block, an Estimator's `train` under one) moves the model's weights and buffers and
its optimizers' state (slots, EMA copies, extra variables) there with `move_training_state`.
Each weight keeps its Python object (`Module.to` makes new Parameters between some devices,
which the optimizer, holding the old ones, would no longer train), and so does each slot.

What an optimizer holds differs between frameworks; the caller passes `optimizer_state`, a
function giving an optimizer's `OptimizerState` (the Keras fronts pass one that knows Keras'
optimizers). The default reads a `torch.optim.Optimizer`'s `state`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import torch


class OptimizerState(NamedTuple):
    """What of an optimizer moves with its weights.

    state: a torch-style per-parameter state (`{param: {'exp_avg': tensor, 'step': tensor}}`);
      torch's `step` counts stay on the host (unless already on a device: capturable/fused).
    tensors: further tensors the optimizer holds (EMA copies, extra variables); only floating
      ones move.
    on_moved: called (no arguments) after its state or the weights it trains moved, e.g. to
      drop what it cached of them (slot lists, flat views); or None.
    """

    state: Mapping[Any, Mapping[str, Any]]
    tensors: Iterable[Any] = ()
    on_moved: Callable[[], Any] | None = None


def torch_optimizer_state(optimizer: Any) -> OptimizerState:
    """The `OptimizerState` of a `torch.optim.Optimizer` (its `state`; nothing else)."""
    return OptimizerState(getattr(optimizer, "state", {}))


def move_in_place(tensor: torch.Tensor, device: torch.device) -> bool:
    """Moves `tensor` to `device` keeping the Python object (whoever holds it sees it moved);
    returns whether it moved (False: it was there already)."""
    if tensor.device == device:
        return False
    moved = tensor.data.to(device)
    try:
        tensor.data = moved  # between the CPU and CUDA: the same object, its data moved
    except RuntimeError:  # tensor types `set_data` cannot swap (e.g. the lazy backend's)
        if isinstance(tensor, torch.nn.Parameter):
            replacement = torch.nn.Parameter(moved, requires_grad=tensor.requires_grad)
        else:
            replacement = moved.requires_grad_(tensor.requires_grad)
        replacement.__class__ = type(tensor)
        replacement.__dict__.update(tensor.__dict__)
        torch.utils.swap_tensors(tensor, replacement)
    return True


def move_modules(modules: Iterable[torch.nn.Module], device: torch.device) -> bool:
    """Moves the parameters of `modules` to `device` in place (each Parameter object kept; one
    shared by several modules moves once), their buffers with `Module.to`, and the plain
    tensors they hold as attributes (made with TF's ops in a layer's `__init__`, which TF would
    copy to each op's device); returns whether anything moved."""
    device = torch.device(device)
    moved = False
    seen: set[int] = set()
    with torch.no_grad():
        for module in modules:
            for parameter in module.parameters():
                if id(parameter) not in seen:
                    seen.add(id(parameter))
                    moved = move_in_place(parameter, device) or moved
            if any(buffer.device != device for buffer in module.buffers()):
                module.to(device)  # the buffers (the parameters are there already)
                moved = True
            for sub, name, value in _tensor_attributes(module):
                if value.device != device:
                    object.__setattr__(sub, name, value.to(device))
                    moved = True
    return moved


def _tensor_attributes(module: torch.nn.Module) -> Iterator[tuple[torch.nn.Module, str, torch.Tensor]]:
    """(module, name, tensor) of each plain tensor that a module of a program's own class (not
    the library's: its layers keep host tables where they need them) holds as an attribute."""
    for sub in module.modules():
        if type(sub).__module__.startswith("torchestimator."):
            continue
        for name, value in vars(sub).items():
            if type(value) is torch.Tensor:
                yield sub, name, value


def move_optimizer(optimizer: Any, device: torch.device,
                   optimizer_state: Callable[[Any], OptimizerState] = torch_optimizer_state,
                   weights_moved: bool = False) -> bool:
    """Moves `optimizer`'s state (`optimizer_state(optimizer)`) to `device` in place; returns
    whether anything moved. Its `on_moved` is called when the state moved, or when
    `weights_moved` says the weights it trains did (what it cached of them is stale)."""
    device = torch.device(device)
    parts = optimizer_state(optimizer)
    moved_state = False
    with torch.no_grad():
        for state in parts.state.values():
            for name, value in state.items():
                # torch keeps a `step` count on the host unless the optimizer is capturable/fused
                if isinstance(value, torch.Tensor) and (name != "step" or value.device.type != "cpu"):
                    moved_state = move_in_place(value, device) or moved_state
        if (moved_state or weights_moved) and parts.on_moved is not None:
            parts.on_moved()
        moved = moved_state
        for tensor in parts.tensors:
            if isinstance(tensor, torch.Tensor) and tensor.is_floating_point():
                moved = move_in_place(tensor, device) or moved
    return moved


def move_training_state(modules: Iterable[torch.nn.Module], optimizers: Iterable[Any],
                        device: torch.device | str,
                        optimizer_state: Callable[[Any], OptimizerState] = torch_optimizer_state,
                        variables: Iterable[torch.Tensor] = ()) -> bool:
    """Moves the weights and buffers of `modules`, the tensors `variables` (weights held
    outside any module: a model_fn's `tf.Variable`s) and the state of `optimizers` to `device`,
    keeping every Parameter, variable and slot object, so the optimizers keep training the same
    tensors; returns whether anything moved. `optimizer_state(optimizer)` says what of an
    optimizer moves (default: a `torch.optim.Optimizer`'s `state`); None entries of
    `optimizers` are skipped."""
    device = torch.device(device)
    weights_moved = move_modules(modules, device)
    with torch.no_grad():
        for variable in variables:
            weights_moved = move_in_place(variable, device) or weights_moved
    moved = weights_moved
    for optimizer in optimizers:
        if optimizer is not None:
            moved = move_optimizer(optimizer, device, optimizer_state, weights_moved) or moved
    return moved


@contextlib.contextmanager
def weights_on_host(modules: Sequence[torch.nn.Module]) -> Iterator[None]:
    """The weights and buffers of `modules` on the CPU for the block (each Parameter object
    kept, as `move_modules` does), then back on the devices they were on; so are the plain
    tensors a module holds as attributes (a positional encoding or a mask a layer made with TF's
    ops in `__init__`, on the GPU when there is one). An export is traced and written from the
    host, so that it loads and serves on a CPU-only machine; the model it was made from (one
    still training on a GPU) is where it was afterwards."""
    cpu = torch.device("cpu")
    weights: dict[int, tuple[torch.Tensor, torch.device]] = {}
    buffers: list[tuple[torch.nn.Module, str, torch.device]] = []
    attributes: list[tuple[torch.nn.Module, str, torch.Tensor]] = []
    for module in modules:
        for parameter in module.parameters():
            if parameter.device != cpu:
                weights.setdefault(id(parameter), (parameter, parameter.device))
        for sub in module.modules():
            for name, buffer in sub._buffers.items():
                if buffer is not None and buffer.device != cpu:
                    buffers.append((sub, name, buffer.device))
        attributes.extend(a for a in _tensor_attributes(module) if a[2].device != cpu)
    if not weights and not buffers and not attributes:
        yield
        return
    with torch.no_grad():
        for parameter, _ in weights.values():
            move_in_place(parameter, cpu)
        for sub, name, _ in buffers:
            sub._buffers[name] = sub._buffers[name].to(cpu)
        for sub, name, value in attributes:
            object.__setattr__(sub, name, value.to(cpu))
    try:
        yield
    finally:
        with torch.no_grad():
            for parameter, device in weights.values():
                move_in_place(parameter, device)
            for sub, name, device in buffers:
                sub._buffers[name] = sub._buffers[name].to(device)
            for sub, name, value in attributes:
                object.__setattr__(sub, name, value)  # the very tensor it held
