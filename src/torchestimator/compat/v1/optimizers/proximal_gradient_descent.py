"""TF1's `ProximalGradientDescentOptimizer` (`ApplyProximalGradientDescent`):

    prox = var - lr * grad
    var = sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.compat.v1.optimizers.proximal_adagrad import proximal_step
from torchestimator.keras.optimizers._args import _number
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer


class ProximalGradientDescentKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF1's proximal gradient descent rule (no slots)."""

    def __init__(self, params: Any, lr: float = 0.001, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0) -> None:
        super().__init__(params, {"lr": lr, "l1": l1_regularization_strength,
                                  "l2": l2_regularization_strength})

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors,
               slots: dict[str, Tensors], step: int) -> None:
        """Applies one TF1 proximal gradient descent step."""
        lr = group["lr"]
        torch._foreach_add_(params, grads, alpha=-lr)
        proximal_step(params, [lr] * len(params), group["l1"], group["l2"])


class ProximalGradientDescentOptimizer(V1Optimizer, Optimizer, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.ProximalGradientDescentOptimizer(learning_rate,
    l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
    name='ProximalGradientDescent')`."""

    _kernel_class = ProximalGradientDescentKernel

    def __init__(self, learning_rate: Any, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent"):
        super().__init__(name=name)
        self._build_learning_rate(learning_rate)
        owner = type(self).__name__
        self.l1_regularization_strength = _number(l1_regularization_strength,
                                                  "l1_regularization_strength", owner)
        self.l2_regularization_strength = _number(l2_regularization_strength,
                                                  "l2_regularization_strength", owner)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength}

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {"learning_rate": self._serialize_hyperparameter(self._learning_rate),
                **self._kernel_hyperparameters(), "name": self.name}
