"""Adamax, Keras 2.15's update rule.

Keras: `u = max(beta_2 * u, |g|)`, `w -= lr * m / ((1 - beta_1^t) * (u + epsilon))`;
`torch.optim.Adamax` folds epsilon into the max (`max(beta_2 * u, |g| + eps)`),
so the rule is written here.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


class AdamaxKernel(TorchKernel):
    """`torch.optim.Optimizer` with Keras' Adamax rule.

    `m += (g - m) * (1 - beta_1)`, `u = max(beta_2 * u, |g|)`,
    `w -= lr * m / ((1 - beta_1^t) * (u + epsilon))` with `t = iterations + 1`.
    """

    elementwise = True

    def __init__(
        self, params: Any, lr: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7
    ) -> None:
        super().__init__(params, {"lr": lr, "beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`m` (first moment) and `u` (exponentially weighted infinity norm)."""
        return ("m", "u")

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one Adamax step."""
        beta_1, beta_2 = group["beta_1"], group["beta_2"]
        m, u = slots["m"], slots["u"]
        torch._foreach_lerp_(m, grads, 1 - beta_1)
        torch._foreach_mul_(u, beta_2)
        torch._foreach_maximum_(u, torch._foreach_abs(grads))
        denominators = torch._foreach_add(u, group["epsilon"])
        step_size = group["lr"] / (1 - beta_1 ** (step + 1))
        torch._foreach_addcdiv_(params, m, denominators, value=-step_size)


class Adamax(Optimizer):
    """Optimizer that implements the Adamax algorithm.

    Adamax, a variant of Adam based on the infinity norm, is a first-order
    gradient-based optimization method.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      beta_1: The exponential decay rate for the 1st moment estimates.
        Defaults to 0.9.
      beta_2: The exponential decay rate for the exponentially weighted
        infinity norm. Defaults to 0.999.
      epsilon: A small constant for numerical stability. Defaults to 1e-7.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    _kernel_class = AdamaxKernel
    _slot_layout = (("m", "u"),)

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "Adamax",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            name=name,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            jit_compile=jit_compile,
            **kwargs,
        )
        self._build_learning_rate(learning_rate)
        self.beta_1 = _number(beta_1, "beta_1", type(self).__name__)
        self.beta_2 = _number(beta_2, "beta_2", type(self).__name__)
        self.epsilon = _number(epsilon, "epsilon", type(self).__name__)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, beta_1, beta_2, epsilon."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "beta_1": self.beta_1,
                "beta_2": self.beta_2,
                "epsilon": self.epsilon,
            }
        )
        return config


_registry.register_builtin(Adamax)
