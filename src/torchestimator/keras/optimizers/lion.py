"""Lion (EvoLved Sign Momentum), Keras 2.15's update rule.

`w -= lr * sign(beta_1 * m + (1 - beta_1) * g)`, then `m = beta_2 * m + (1 - beta_2) * g`.
TF's sparse branch (IndexedSlices) computes the same values through `m` as a buffer, so
a sparse gradient is applied as its dense equivalent.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


class LionKernel(TorchKernel):
    """`torch.optim.Optimizer` with Keras' Lion rule (one slot, the momentum `m`)."""

    elementwise = True

    def __init__(self, params: Any, lr: float = 1e-4, beta_1: float = 0.9, beta_2: float = 0.99) -> None:
        super().__init__(params, {"lr": lr, "beta_1": beta_1, "beta_2": beta_2})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """The momentum `m`."""
        return ("m",)

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one Lion step."""
        m = slots["m"]
        directions = torch._foreach_lerp(m, grads, 1 - group["beta_1"])
        torch._foreach_sign_(directions)
        torch._foreach_add_(params, directions, alpha=-group["lr"])
        torch._foreach_lerp_(m, grads, 1 - group["beta_2"])


class Lion(Optimizer):
    """Optimizer that implements the Lion algorithm.

    The Lion optimizer is a stochastic-gradient-descent method that uses the
    sign operator to control the magnitude of the update, unlike other adaptive
    optimizers such as Adam that rely on second-order moments. A suitable
    learning rate for Lion is typically 3-10x smaller than that for AdamW, and
    its weight decay 3-10x larger.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.0001.
      beta_1: The rate to combine the current gradient and the 1st moment
        estimate, in ]0, 1]. Defaults to 0.9.
      beta_2: The exponential decay rate for the 1st moment estimate. Defaults to 0.99.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.

    Reference: Chen et al., 2023 (http://arxiv.org/abs/2302.06675).
    """

    _kernel_class = LionKernel
    _slot_layout = (("m",),)

    def __init__(
        self,
        learning_rate: Any = 0.0001,
        beta_1: float = 0.9,
        beta_2: float = 0.99,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "Lion",
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
        self.beta_1 = _number(beta_1, "beta_1", "Lion")
        self.beta_2 = _number(beta_2, "beta_2", "Lion")
        if self.beta_1 <= 0 or self.beta_1 > 1:
            raise ValueError(
                f"`beta_1`={beta_1} must be between ]0, 1]. Otherwise, the optimizer degenerates "
                "to SignSGD."
            )

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"beta_1": self.beta_1, "beta_2": self.beta_2}

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, beta_1, beta_2."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "beta_1": self.beta_1,
                "beta_2": self.beta_2,
            }
        )
        return config


_registry.register_builtin(Lion)
