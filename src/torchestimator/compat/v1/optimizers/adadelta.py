"""TF1's `AdadeltaOptimizer` (`ApplyAdadelta`):

    accum = rho * accum + (1 - rho) * grad^2
    update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad
    accum_update = rho * accum_update + (1 - rho) * update^2
    var -= learning_rate * update

The math of Keras' Adadelta, with TF1's two slots only (Keras' kernel runs torch's
Adadelta, which also keeps a per-variable step counter a TF1 checkpoint does not have).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers._args import _number
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer


class AdadeltaKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF1's Adadelta rule (slots `accum`, `accum_update`)."""

    def __init__(self, params: Any, lr: float = 0.001, rho: float = 0.95, epsilon: float = 1e-8) -> None:
        super().__init__(params, {"lr": lr, "rho": rho, "epsilon": epsilon})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`accum` (mean square gradient) and `accum_update` (mean square update)."""
        return ("accum", "accum_update")

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors,
               slots: dict[str, Tensors], step: int) -> None:
        """Applies one TF1 Adadelta step."""
        lr, rho, epsilon = group["lr"], group["rho"], group["epsilon"]
        accums, accum_updates = slots["accum"], slots["accum_update"]
        torch._foreach_mul_(accums, rho)
        torch._foreach_addcmul_(accums, grads, grads, 1 - rho)
        numerators = torch._foreach_add(accum_updates, epsilon)
        torch._foreach_sqrt_(numerators)
        denominators = torch._foreach_add(accums, epsilon)
        torch._foreach_sqrt_(denominators)
        torch._foreach_div_(numerators, denominators)
        updates = torch._foreach_mul(numerators, grads)
        torch._foreach_mul_(accum_updates, rho)
        torch._foreach_addcmul_(accum_updates, updates, updates, 1 - rho)
        torch._foreach_add_(params, updates, alpha=-lr)


class AdadeltaOptimizer(V1Optimizer, Optimizer, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.AdadeltaOptimizer(learning_rate=0.001, rho=0.95, epsilon=1e-08,
    use_locking=False, name='Adadelta')`."""

    _kernel_class = AdadeltaKernel
    _slot_layout = (("accum", "accum_update"),)
    _v1_slot_names = {"accum": "{name}", "accum_update": "{name}_1"}
    _tf1_slots = {"accum": "accum", "accum_update": "accum_update"}

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-08,
                 use_locking: bool = False, name: str = "Adadelta"):
        super().__init__(name=name)
        self._build_learning_rate(learning_rate)
        self.rho = _number(rho, "rho", type(self).__name__)
        self.epsilon = _number(epsilon, "epsilon", type(self).__name__)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"rho": self.rho, "epsilon": self.epsilon}

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments: learning_rate, rho, epsilon, name."""
        return {"learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "rho": self.rho, "epsilon": self.epsilon, "name": self.name}
