"""Adam, Keras 2.15's update rule.

Keras' epsilon is "epsilon hat" of Kingma & Ba (the formula just before
section 2.1): `w -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)`,
whereas `torch.optim.Adam` adds epsilon to the bias-corrected `sqrt(v_hat)`;
the two differ, so the rule is written here. The step `t` is the optimizer's
global `iterations + 1`.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import torch

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


def _f32(value: float) -> float:
    """`value` rounded to float32, as TF casts a Python hyperparameter to the variable's dtype."""
    return struct.unpack("f", struct.pack("f", value))[0]


class AdamKernel(TorchKernel):
    """`torch.optim.Optimizer` with Keras' Adam rule (and AMSGrad).

    `m += (g - m) * (1 - beta_1)`, `v += (g^2 - v) * (1 - beta_2)`,
    with AMSGrad `vhat = max(vhat, v)` used in place of `v`, then
    `w -= m * alpha / (sqrt(v) + epsilon)` where
    `alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)`.
    """

    elementwise = True

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        float32_powers: bool = False,
    ) -> None:
        defaults = {
            "lr": lr, "beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon, "amsgrad": amsgrad,
            "float32_powers": float32_powers,
        }
        super().__init__(params, defaults)

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`m` and `v`, plus `vhat` with AMSGrad."""
        return ("m", "v", "vhat") if group["amsgrad"] else ("m", "v")

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one Adam step."""
        beta_1, beta_2 = group["beta_1"], group["beta_2"]
        t = step + 1
        if group.get("float32_powers"):
            # Keras 2.15's Adam raises float32 betas to the power t (0.999 is 0.99900001 then)
            # while its moment updates use the Python floats: 1 - beta_2^t is off by ~1e-5.
            alpha = group["lr"] * math.sqrt(1 - _f32(beta_2) ** t) / (1 - _f32(beta_1) ** t)
        else:
            alpha = group["lr"] * math.sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m, v = slots["m"], slots["v"]
        torch._foreach_lerp_(m, grads, 1 - beta_1)
        torch._foreach_mul_(v, beta_2)
        torch._foreach_addcmul_(v, grads, grads, 1 - beta_2)
        if group["amsgrad"]:
            v_hat = slots["vhat"]
            torch._foreach_maximum_(v_hat, v)
            v = v_hat
        denominators = torch._foreach_sqrt(v)
        torch._foreach_add_(denominators, group["epsilon"])
        torch._foreach_addcdiv_(params, m, denominators, value=-alpha)


class Adam(Optimizer):
    """Optimizer that implements the Adam algorithm.

    Adam optimization is a stochastic gradient descent method that is based
    on adaptive estimation of first-order and second-order moments.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      beta_1: The exponential decay rate for the 1st moment estimates.
        Defaults to 0.9.
      beta_2: The exponential decay rate for the 2nd moment estimates.
        Defaults to 0.999.
      epsilon: A small constant for numerical stability ("epsilon hat" in
        the Kingma and Ba paper). Defaults to 1e-7.
      amsgrad: Whether to apply the AMSGrad variant. Defaults to False.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    _kernel_class = AdamKernel
    _float32_powers = True  # bias corrections from float32 betas, as Keras 2.15 (see AdamKernel)
    _slot_layout = (("m", "v"), ("vhat",))

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "Adam",
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
        self.amsgrad = bool(amsgrad)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {
            "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon, "amsgrad": self.amsgrad,
            "float32_powers": self._float32_powers,
        }

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, beta_1, beta_2, epsilon, amsgrad."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "beta_1": self.beta_1,
                "beta_2": self.beta_2,
                "epsilon": self.epsilon,
                "amsgrad": self.amsgrad,
            }
        )
        return config


_registry.register_builtin(Adam)
