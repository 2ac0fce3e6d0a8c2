"""TF1's `AdamOptimizer` (`ApplyAdam`): the "epsilon hat" form of Keras' Adam, with TF1's
arithmetic of the bias correction.

    lr_t = learning_rate * sqrt(1 - beta2_power) / (1 - beta1_power)
    m = m + (grad - m) * (1 - beta1);  v = v + (grad^2 - v) * (1 - beta2)
    var -= lr_t * m / (sqrt(v) + epsilon)

TF1 kept `beta1_power`/`beta2_power` as float32 variables multiplied by beta
after every step, and its hyperparameters as float32 tensors; `1 - beta2_power`
magnifies float32 rounding (about 1e-5 relative early on), so the kernel
computes the powers the same way, from the optimizer's step count (`<name>/iter`
in a checkpoint).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers._args import _number
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer


def f32(value: float) -> float:
    """`value` rounded to float32, as TF1 held its hyperparameters."""
    return float(np.float32(value))


class AdamKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF1's Adam rule (slots `m`, `v`)."""

    def __init__(self, params: Any, lr: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8) -> None:
        self._powers: tuple[int, np.float32, np.float32] | None = None
        super().__init__(params, {"lr": lr, "beta1": beta1, "beta2": beta2, "epsilon": epsilon})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`m` and `v`."""
        return ("m", "v")

    def beta_powers(self, t: int, beta1: float, beta2: float) -> tuple[float, float]:
        """`(beta1^t, beta2^t)` as TF1's float32 accumulators hold them at step `t` (1-based)."""
        b1, b2 = np.float32(beta1), np.float32(beta2)
        cached = self._powers
        if cached is not None and cached[0] == t - 1 and t > 1:
            p1, p2 = cached[1] * b1, cached[2] * b2
        else:
            p1, p2 = b1, b2
            for _ in range(t - 1):
                p1, p2 = p1 * b1, p2 * b2
        self._powers = (t, p1, p2)
        return float(p1), float(p2)

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors,
               slots: dict[str, Tensors], step: int) -> None:
        """Applies one TF1 Adam step."""
        beta1, beta2 = f32(group["beta1"]), f32(group["beta2"])
        p1, p2 = self.beta_powers(step + 1, beta1, beta2)
        alpha = f32(group["lr"]) * math.sqrt(1 - p2) / (1 - p1)
        m, v = slots["m"], slots["v"]
        torch._foreach_lerp_(m, grads, 1 - beta1)
        torch._foreach_mul_(v, beta2)
        torch._foreach_addcmul_(v, grads, grads, 1 - beta2)
        denominators = torch._foreach_sqrt(v)
        torch._foreach_add_(denominators, f32(group["epsilon"]))
        torch._foreach_addcdiv_(params, m, denominators, value=-alpha)


class AdamOptimizer(V1Optimizer, Optimizer, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.AdamOptimizer(learning_rate=0.001, beta1=0.9, beta2=0.999,
    epsilon=1e-08, use_locking=False, name='Adam')`."""

    _kernel_class = AdamKernel
    _slot_layout = (("m", "v"),)
    _v1_slot_names = {"m": "{name}", "v": "{name}_1"}
    _tf1_slots = {"m": "m", "v": "v"}

    def __init__(self, learning_rate: Any = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-08, use_locking: bool = False, name: str = "Adam"):
        super().__init__(name=name)
        self._build_learning_rate(learning_rate)
        owner = type(self).__name__
        self.beta1 = _number(beta1, "beta1", owner)
        self.beta2 = _number(beta2, "beta2", owner)
        self.epsilon = _number(epsilon, "epsilon", owner)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments: learning_rate, beta1, beta2, epsilon, name."""
        return {"learning_rate": self._serialize_hyperparameter(self._learning_rate),
                **self._kernel_hyperparameters(), "name": self.name}
