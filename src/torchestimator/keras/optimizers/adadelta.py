"""Adadelta, Keras 2.15's update rule — which is `torch.optim.Adadelta`'s math.

Both compute `accumulated_grad = rho * accumulated_grad + (1 - rho) * g^2`,
`delta = sqrt(accumulated_delta_var + epsilon) / sqrt(accumulated_grad + epsilon) * g`,
`accumulated_delta_var = rho * accumulated_delta_var + (1 - rho) * delta^2`,
`w -= lr * delta`; the kernel calls torch's functional multi-tensor Adadelta.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.optim.adadelta import adadelta as torch_adadelta

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


class AdadeltaKernel(TorchKernel):
    """`torch.optim.Optimizer` running `torch.optim.adadelta.adadelta` on Keras-named slots."""

    def __init__(self, params: Any, lr: float = 0.001, rho: float = 0.95, epsilon: float = 1e-7) -> None:
        super().__init__(params, {"lr": lr, "rho": rho, "epsilon": epsilon})

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`accumulated_grad`, `accumulated_delta_var`, and torch's per-parameter `step` counter."""
        return ("accumulated_grad", "accumulated_delta_var", "step")

    def init_state(self, p: torch.Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        """Creates the slots of `p` (the `step` counter as torch keeps it: a 0-d CPU tensor)."""
        state = self.state[p]
        if "step" not in state:
            state["step"] = torch.tensor(float(self.iterations))
        return super().init_state(p, group)

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one Adadelta step with torch's functional implementation."""
        torch_adadelta(
            params,
            grads,
            slots["accumulated_grad"],
            slots["accumulated_delta_var"],
            slots["step"],
            foreach=True,
            lr=group["lr"],
            rho=group["rho"],
            eps=group["epsilon"],
            weight_decay=0.0,
            maximize=False,
        )


class Adadelta(Optimizer):
    """Optimizer that implements the Adadelta algorithm.

    Adadelta optimization is a stochastic gradient descent method that is
    based on adaptive learning rate per dimension to address two drawbacks:
    the continual decay of learning rates throughout training, and the need
    for a manually selected global learning rate.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001
        (use 1.0 to match the original paper).
      rho: The decay rate. Defaults to 0.95.
      epsilon: Small floating point value used to maintain numerical
        stability. Defaults to 1e-7.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    _kernel_class = AdadeltaKernel
    _slot_layout = (("accumulated_grad", "accumulated_delta_var"),)

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.95,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "Adadelta",
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
        self.rho = _number(rho, "rho", type(self).__name__)
        self.epsilon = _number(epsilon, "epsilon", type(self).__name__)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {"rho": self.rho, "epsilon": self.epsilon}

    def update_step(self, grad: torch.Tensor, variable: torch.Tensor) -> None:
        """`Optimizer.update_step` under TF's parameter names for this class (`grad`,
        `variable`); the built-in rule is applied by `apply_gradients`/`minimize`."""
        super().update_step(grad, variable)

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, rho, epsilon."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "rho": self.rho,
                "epsilon": self.epsilon,
            }
        )
        return config


_registry.register_builtin(Adadelta)
