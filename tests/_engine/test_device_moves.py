"""Issue 28: `_engine.device_moves` moves weights, buffers and optimizer slots between devices in
place (the optimizer keeps training the same Parameter objects). The second device is the lazy
backend's (`tests/_harness/device_leaks.py`), a stand-in for a GPU on a CPU-only machine."""

from __future__ import annotations

import pytest
import torch

from _harness.device_leaks import available, leak_device
from torchestimator._engine import device_moves
from torchestimator._engine.device_moves import OptimizerState, move_in_place, move_training_state

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")
CPU = torch.device("cpu")


def _trained(model: torch.nn.Module, optimizer: torch.optim.Optimizer, device: torch.device) -> float:
    x = torch.randn(8, 3).to(device)
    loss = model(x).square().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return float(loss.detach().cpu())


def test_engine_module_imports_nothing_above_engine():
    names = [line.split()[1] for line in open(device_moves.__file__).read().splitlines()
             if line.startswith(("import ", "from "))]
    assert all(not n.startswith("torchestimator") or n.startswith("torchestimator._engine") for n in names), names


def test_weights_buffers_and_adam_slots_move_and_back_keeping_their_objects():
    device = leak_device()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    _trained(model, optimizer, CPU)
    params = list(model.parameters())
    slots = {id(p): (s["exp_avg"], s["exp_avg_sq"]) for p, s in optimizer.state.items()}

    assert move_training_state([model], [optimizer], device) is True
    assert [id(p) for p in model.parameters()] == [id(p) for p in params]
    assert all(p.device == device for p in params)
    assert all(b.device == device for b in model.buffers())  # BatchNorm's running statistics
    for p, state in optimizer.state.items():
        assert state["exp_avg"] is slots[id(p)][0] and state["exp_avg"].device == device
        assert state["exp_avg_sq"].device == device
        assert state["step"].device == CPU  # torch keeps the step count on the host
    before = [p.detach().cpu().clone() for p in params]
    _trained(model, optimizer, device)  # the optimizer trains the moved Parameters
    assert all(not torch.equal(b, p.detach().cpu()) for b, p in zip(before, params))

    assert move_training_state([model], [optimizer], CPU) is True
    assert all(p.device == CPU for p in model.parameters())
    assert all(s["exp_avg"].device == CPU for s in optimizer.state.values())
    _trained(model, optimizer, CPU)
    assert move_training_state([model], [optimizer, None], CPU) is False  # nothing left to move


def test_a_parameter_shared_by_two_modules_moves_once_and_stays_shared():
    device = leak_device()
    first = torch.nn.Linear(2, 2)
    second = torch.nn.Linear(2, 2)
    second.weight = first.weight
    move_training_state([first, second], [], device)
    assert second.weight is first.weight and first.weight.device == device
    assert second.bias.device == device


def test_the_caller_says_what_of_an_optimizer_moves():
    device = leak_device()
    weight = torch.nn.Parameter(torch.ones(3))
    slot = torch.zeros(3)
    extra = [torch.ones(2), torch.tensor(3)]  # an int tensor (a counter) stays where it is
    calls = []

    def state_of(optimizer):
        return OptimizerState({weight: {"m": slot}}, extra, lambda: calls.append(optimizer))

    holder = object()
    assert move_training_state([], [holder], device, state_of) is True
    assert slot.device == device and extra[0].device == device and extra[1].device == CPU
    assert calls == [holder]  # told once that its slots moved
    assert move_training_state([], [holder], device, state_of) is False
    assert calls == [holder]  # nothing moved: no call
    module = torch.nn.Linear(2, 2)
    assert move_training_state([module], [holder], device, state_of) is True
    assert calls == [holder, holder]  # its weights moved: what it cached of them is stale


def test_move_in_place_keeps_the_object_and_its_attributes():
    device = leak_device()
    parameter = torch.nn.Parameter(torch.arange(4.0))
    parameter._keras_name = "dense/kernel"
    assert move_in_place(parameter, device) is True
    assert parameter.device == device and parameter._keras_name == "dense/kernel"
    assert isinstance(parameter, torch.nn.Parameter) and parameter.requires_grad
    assert torch.equal(parameter.detach().cpu(), torch.arange(4.0))
    assert move_in_place(parameter, device) is False
