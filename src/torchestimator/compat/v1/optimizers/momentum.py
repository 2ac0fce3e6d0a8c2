"""TF1's `MomentumOptimizer` (`ApplyMomentum`): the accumulator holds the sum of gradients, not
Keras' learning-rate-scaled velocity, so a TF1 checkpoint's `<var>/Momentum` slot means the same.

    accumulation = momentum * accumulation + grad
    var -= learning_rate * accumulation
    (Nesterov: var -= learning_rate * grad + learning_rate * momentum * accumulation)
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers._args import _number
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer


class MomentumKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF1's momentum rule (slot `momentum`)."""

    def __init__(self, params: Any, lr: float = 0.01, momentum: float = 0.9,
                 use_nesterov: bool = False) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum, "use_nesterov": use_nesterov})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`momentum` (the accumulation)."""
        return ("momentum",)

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors,
               slots: dict[str, Tensors], step: int) -> None:
        """Applies one TF1 momentum step."""
        lr, momentum = group["lr"], group["momentum"]
        accumulations = slots["momentum"]
        torch._foreach_mul_(accumulations, momentum)
        torch._foreach_add_(accumulations, grads)
        if group["use_nesterov"]:
            torch._foreach_add_(params, grads, alpha=-lr)
            torch._foreach_add_(params, accumulations, alpha=-lr * momentum)
        else:
            torch._foreach_add_(params, accumulations, alpha=-lr)


class MomentumOptimizer(V1Optimizer, Optimizer, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.MomentumOptimizer(learning_rate, momentum, use_locking=False,
    name='Momentum', use_nesterov=False)`."""

    _kernel_class = MomentumKernel
    _slot_layout = (("momentum",),)
    _v1_slot_names = {"momentum": "{name}"}
    _tf1_slots = {"momentum": "momentum"}

    def __init__(self, learning_rate: Any, momentum: float, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False):
        super().__init__(name=name)
        self._build_learning_rate(learning_rate)
        self.momentum = _number(momentum, "momentum", type(self).__name__)
        self.use_nesterov = bool(use_nesterov)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"momentum": self.momentum, "use_nesterov": self.use_nesterov}

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments: learning_rate, momentum, use_nesterov, name."""
        return {"learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "momentum": self.momentum, "use_nesterov": self.use_nesterov, "name": self.name}
