"""SGD: gradient descent with optional (Nesterov) momentum, Keras 2.15's update rule.

Keras keeps the learning rate inside the velocity (`v = momentum * v - lr * g;
w += v`), so a learning rate that changes during training (a schedule,
ReduceLROnPlateau) acts as in TF; `torch.optim.SGD` keeps it outside
(`b = momentum * b + g; w -= lr * b`), which is why this rule is written here.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


class SGDKernel(TorchKernel):
    """`torch.optim.Optimizer` with Keras' SGD rule.

    Without momentum: `w -= lr * g`. With momentum:
    `v = momentum * v - lr * g; w += v`, or with Nesterov
    `w += momentum * v - lr * g`.
    """

    def __init__(self, params: Any, lr: float = 0.01, momentum: float = 0.0, nesterov: bool = False) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum, "nesterov": nesterov})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`m` (the velocity) when momentum is used."""
        return ("m",) if group["momentum"] else ()

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one SGD step."""
        lr = group["lr"]
        momentum = group["momentum"]
        if not momentum:
            torch._foreach_add_(params, grads, alpha=-lr)
            return
        velocities = slots["m"]
        torch._foreach_mul_(velocities, momentum)
        torch._foreach_add_(velocities, grads, alpha=-lr)
        if group["nesterov"]:
            torch._foreach_add_(params, grads, alpha=-lr)
            torch._foreach_add_(params, velocities, alpha=momentum)
        else:
            torch._foreach_add_(params, velocities)


class SGD(Optimizer):
    """Gradient descent (with momentum) optimizer.

    Update rule for parameter `w` with gradient `g` when `momentum` is 0:
    `w = w - learning_rate * g`. When `momentum` is larger than 0:
    `velocity = momentum * velocity - learning_rate * g; w = w + velocity`;
    with `nesterov=True`: `w = w + momentum * velocity - learning_rate * g`.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.01.
      momentum: Float in [0, 1] that accelerates gradient descent in the
        relevant direction and dampens oscillations. Defaults to 0.
      nesterov: Whether to apply Nesterov momentum. Defaults to False.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    _kernel_class = SGDKernel
    _slot_layout = (("m",),)

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "SGD",
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
        momentum = _number(momentum, "momentum", "SGD")
        if momentum < 0 or momentum > 1:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum}.")
        self.momentum = momentum
        self.nesterov = bool(nesterov)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"momentum": self.momentum, "nesterov": self.nesterov}

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, momentum, nesterov."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "momentum": self.momentum,
                "nesterov": self.nesterov,
            }
        )
        return config


_registry.register_builtin(SGD)
