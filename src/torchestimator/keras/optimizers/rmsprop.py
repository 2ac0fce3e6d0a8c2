"""RMSprop, Keras 2.15's update rule.

TF adds epsilon to the mean square *inside* the square root
(`lr * g / sqrt(velocity + epsilon)`), `torch.optim.RMSprop` outside
(`lr * g / (sqrt(v) + eps)`); TF's momentum accumulates the scaled increment
(`momentum = momentum * momentum_ + lr * g / sqrt(...)`). So the rule is written here.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


class RMSpropKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF's RMSprop rule.

    `velocity = rho * velocity + (1 - rho) * g^2`; centered:
    `average_gradient = rho * average_gradient + (1 - rho) * g` and
    `denominator = velocity - average_gradient^2 + epsilon`, else
    `velocity + epsilon`; `increment = lr * g / sqrt(denominator)`;
    with momentum `m = momentum * m + increment; w -= m`, else `w -= increment`.
    """

    elementwise = True

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
    ) -> None:
        defaults = {"lr": lr, "rho": rho, "momentum": momentum, "epsilon": epsilon, "centered": centered}
        super().__init__(params, defaults)

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`velocity`, plus `momentum` when momentum > 0 and `average_gradient` when centered."""
        names = ("velocity",)
        if group["momentum"] > 0:
            names += ("momentum",)
        if group["centered"]:
            names += ("average_gradient",)
        return names

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one RMSprop step."""
        lr, rho, epsilon = group["lr"], group["rho"], group["epsilon"]
        velocities = slots["velocity"]
        torch._foreach_mul_(velocities, rho)
        torch._foreach_addcmul_(velocities, grads, grads, 1 - rho)
        if group["centered"]:
            averages = slots["average_gradient"]
            torch._foreach_mul_(averages, rho)
            torch._foreach_add_(averages, grads, alpha=1 - rho)
            denominators = torch._foreach_addcmul(velocities, averages, averages, -1)
            torch._foreach_add_(denominators, epsilon)
        else:
            denominators = torch._foreach_add(velocities, epsilon)
        torch._foreach_sqrt_(denominators)
        if group["momentum"] > 0:
            momentums = slots["momentum"]
            torch._foreach_mul_(momentums, group["momentum"])
            torch._foreach_addcdiv_(momentums, grads, denominators, value=lr)
            torch._foreach_sub_(params, momentums)
        else:
            torch._foreach_addcdiv_(params, grads, denominators, value=-lr)


class RMSprop(Optimizer):
    """Optimizer that implements the RMSprop algorithm.

    The gist of RMSprop is to maintain a moving (discounted) average of the
    square of gradients and divide the gradient by the root of this average.
    This implementation uses plain momentum, not Nesterov momentum. The
    centered version additionally maintains a moving average of the
    gradients, and uses that average to estimate the variance.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      rho: Discounting factor for the old gradients. Defaults to 0.9.
      momentum: If not 0.0, the optimizer tracks the momentum value, with a
        decay rate equals to `1 - momentum`. Defaults to 0.0.
      epsilon: A small constant for numerical stability, added to the mean
        square inside the square root. Defaults to 1e-7.
      centered: If True, gradients are normalized by the estimated variance
        of the gradient. Defaults to False.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, jit_compile, name: see `tf.keras.optimizers.Optimizer`.
      ema_overwrite_frequency: as in the base class, but defaults to 100
        (Keras 2.15's RMSprop default; only used with `use_ema=True`).
    """

    _kernel_class = RMSpropKernel
    _slot_layout = (("velocity",), ("momentum",), ("average_gradient",))

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = 100,
        jit_compile: bool = True,
        name: str = "RMSprop",
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
        owner = type(self).__name__
        self.rho = _number(rho, "rho", owner)
        self.momentum = _number(momentum, "momentum", owner)
        if self.momentum < 0:
            raise ValueError(f"`momentum` must be >= 0. Received: momentum={momentum}.")
        self.epsilon = _number(epsilon, "epsilon", owner)
        self.centered = bool(centered)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon, "centered": self.centered}

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, rho, momentum, epsilon, centered."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "rho": self.rho,
                "momentum": self.momentum,
                "epsilon": self.epsilon,
                "centered": self.centered,
            }
        )
        return config


_registry.register_builtin(RMSprop)
