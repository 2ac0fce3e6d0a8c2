"""Loss scaling of a torch optimizer under 'mixed_float16' (`compile(optimizer=torch.optim...)`):
`torch.amp.GradScaler` does what `LossScaleOptimizer` does for a Keras optimizer."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.backward import backward
from torchestimator.keras.mixed_precision import LossScaleOptimizer
from torchestimator.keras.mixed_precision._autocast import model_autocast_dtype
from torchestimator.keras.optimizers import Optimizer


def needs_grad_scaler(model: Any) -> bool:
    """Whether `model` computes in float16 (a 'mixed_float16' layer) with a torch optimizer
    (`compile(optimizer=torch.optim...)`), which loss scaling must guard as `LossScaleOptimizer`
    guards a Keras one."""
    optimizer = model.optimizer
    return (isinstance(getattr(optimizer, "optimizer", None), torch.optim.Optimizer)
            and hasattr(optimizer, "lr_scheduler")
            and model_autocast_dtype(model) == torch.float16)


class _WrappedStep:
    """What `GradScaler.step` takes for a `TorchOptimizer`: the torch optimizer's parameter
    groups (to unscale and check the gradients) and the wrapper's `step` (its scheduler too)."""

    def __init__(self, optimizer: Any):
        self.param_groups = optimizer.optimizer.param_groups
        self.step = optimizer.step


def grad_scaler(optimizer: Any, device: torch.device) -> tuple | None:
    """`(device type, torch.amp.GradScaler, the step it takes)` for a torch optimizer on
    `device`; None where torch has no GradScaler for the device."""
    try:
        scaler = torch.amp.GradScaler(device.type)
    except (RuntimeError, ValueError, AssertionError, AttributeError):
        return None
    if not scaler.is_enabled():
        return None
    return (device.type, scaler, _WrappedStep(optimizer))


def scaled_torch_step(scaler: Any, step: _WrappedStep, loss: torch.Tensor, optimizer: Any) -> None:
    """One loss-scaled update: back-propagates `loss` times the scale, unscales the gradients,
    steps the optimizer unless one is not finite (then the scale shrinks), clears them."""
    backward(scaler.scale(loss))
    scaler.step(step)
    scaler.update()
    optimizer.zero_grad()


def loss_scaled_for_float16(model: Any, optimizer: Any) -> Any:
    """`optimizer`, wrapped in a `LossScaleOptimizer` when `model`'s dtype policy is
    'mixed_float16' (as Keras' compile does); a torch optimizer or a wrapped one as it is."""
    if (getattr(model, "_dtype_policy_name", None) == "mixed_float16"
            and isinstance(optimizer, Optimizer)):
        return LossScaleOptimizer(optimizer)
    return optimizer
