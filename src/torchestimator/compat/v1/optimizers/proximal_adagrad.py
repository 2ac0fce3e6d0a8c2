"""TF1's `ProximalAdagradOptimizer` (`ApplyProximalAdagrad`): Adagrad's step, then the proximal
step of the l1/l2 penalties with the per-element learning rate `lr_t = lr / sqrt(accum)`:

    accum += grad^2
    prox = var - lr_t * grad
    var = sign(prox) * max(|prox| - lr_t * l1, 0) / (1 + lr_t * l2)
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers._args import _number
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer


def proximal_step(params: Tensors, rates: Tensors, l1: float, l2: float) -> None:
    """`var = sign(var) * max(|var| - rate * l1, 0) / (1 + rate * l2)` in place, where each
    `params[i]` already holds the gradient step and `rates[i]` is its (per-element) rate."""
    for var, rate in zip(params, rates):
        if l1 > 0:
            shrunk = (var.abs() - rate * l1).clamp_min_(0)
            var.copy_(torch.sign(var) * shrunk)
        if l2 > 0:
            var.div_(1 + rate * l2)


class ProximalAdagradKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF1's proximal Adagrad rule (slot `accumulator`)."""

    def __init__(self, params: Any, lr: float = 0.001, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0) -> None:
        super().__init__(params, {"lr": lr, "initial_accumulator_value": initial_accumulator_value,
                                  "l1": l1_regularization_strength, "l2": l2_regularization_strength})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`accumulator`."""
        return ("accumulator",)

    def initial_slot_value(self, name: str, group: dict[str, Any]) -> float:
        """The accumulator starts at `initial_accumulator_value`."""
        return group["initial_accumulator_value"]

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors,
               slots: dict[str, Tensors], step: int) -> None:
        """Applies one TF1 proximal Adagrad step."""
        accumulators = slots["accumulator"]
        torch._foreach_addcmul_(accumulators, grads, grads)
        rates = torch._foreach_rsqrt(accumulators)
        torch._foreach_mul_(rates, group["lr"])
        torch._foreach_sub_(params, torch._foreach_mul(grads, rates))
        proximal_step(params, rates, group["l1"], group["l2"])


class ProximalAdagradOptimizer(V1Optimizer, Optimizer, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.ProximalAdagradOptimizer(learning_rate,
    initial_accumulator_value=0.1, l1_regularization_strength=0.0,
    l2_regularization_strength=0.0, use_locking=False, name='ProximalAdagrad')`."""

    _kernel_class = ProximalAdagradKernel
    _slot_layout = (("accumulator",),)
    _v1_slot_names = {"accumulator": "{name}"}
    _tf1_slots = {"accumulator": "accumulator"}

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "ProximalAdagrad"):
        super().__init__(name=name)
        self._build_learning_rate(learning_rate)
        owner = type(self).__name__
        self.initial_accumulator_value = _number(initial_accumulator_value,
                                                 "initial_accumulator_value", owner)
        if self.initial_accumulator_value <= 0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        self.l1_regularization_strength = _number(l1_regularization_strength,
                                                  "l1_regularization_strength", owner)
        self.l2_regularization_strength = _number(l2_regularization_strength,
                                                  "l2_regularization_strength", owner)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength}

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {"learning_rate": self._serialize_hyperparameter(self._learning_rate),
                **self._kernel_hyperparameters(), "name": self.name}
