"""Nadam, Keras 2.15's update rule — `torch.optim.NAdam`'s math with `momentum_decay=1`.

Keras: `u_t = beta_1 * (1 - 0.5 * 0.96^t)`, `u_product_t = u_1 * ... * u_t`,
`m_hat = u_{t+1} * m / (1 - u_product_{t+1}) + (1 - u_t) * g / (1 - u_product_t)`,
`v_hat = v / (1 - beta_2^t)`, `w -= lr * m_hat / (sqrt(v_hat) + epsilon)`.
`torch.optim.NAdam` computes the same with `0.96^(t * momentum_decay)`; Keras
2.15 uses `momentum_decay=1`, the legacy Keras Nadam `0.004`. Torch counts
steps per parameter and Keras globally, so the kernel re-aligns torch's
counters (and the momentum product) with `iterations` whenever they could differ.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.optim.nadam import nadam as torch_nadam

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


class NadamKernel(TorchKernel):
    """`torch.optim.Optimizer` running `torch.optim.nadam.nadam` with Keras' schedule and global step."""

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        momentum_decay: float = 1.0,
    ) -> None:
        self._synced_step: int | None = None
        self._product_cache: dict[tuple[float, float], tuple[int, float]] = {}
        defaults = {"lr": lr, "beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon, "momentum_decay": momentum_decay}
        super().__init__(params, defaults)

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`m`, `v`, and torch's per-parameter `step` and `mu_product`."""
        return ("m", "v", "step", "mu_product")

    def init_state(self, p: torch.Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        """Creates the slots of `p` (`step` and `mu_product` as 0-d CPU tensors, as torch keeps them)."""
        state = self.state[p]
        if "step" not in state:
            state["step"] = torch.tensor(float(self.iterations))
            state["mu_product"] = torch.tensor(self.momentum_product(group, self.iterations))
        self._synced_step = None
        return super().init_state(p, group)

    def momentum_product(self, group: dict[str, Any], t: int) -> float:
        """Returns `u_1 * ... * u_t` (1 for t = 0), Keras' `u_product` after `t` steps."""
        beta_1, decay = group["beta_1"], group["momentum_decay"]
        start, product = self._product_cache.get((beta_1, decay), (0, 1.0))
        if t < start:
            start, product = 0, 1.0
        for i in range(start + 1, t + 1):
            product *= beta_1 * (1.0 - 0.5 * 0.96 ** (i * decay))
        self._product_cache[(beta_1, decay)] = (t, product)
        return product

    def resync(self) -> None:
        """Marks torch's step counters as out of date (after `iterations` was set)."""
        self._synced_step = None

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one Nadam step with torch's functional implementation."""
        full = len(params) == len(group["params"])
        if not full or self._synced_step != step:
            product = self.momentum_product(group, step)
            for counter in slots["step"]:
                counter.fill_(float(step))
            for mu_product in slots["mu_product"]:
                mu_product.fill_(product)
        torch_nadam(
            params,
            grads,
            slots["m"],
            slots["v"],
            slots["mu_product"],
            slots["step"],
            foreach=True,
            beta1=group["beta_1"],
            beta2=group["beta_2"],
            lr=group["lr"],
            weight_decay=0.0,
            momentum_decay=group["momentum_decay"],
            eps=group["epsilon"],
        )
        self._synced_step = step + 1 if full else None

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._synced_step = None
        self._product_cache = {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state dict; keeps torch's counters on the CPU (reading them never syncs a device)."""
        super().load_state_dict(state_dict)
        for state in self.state.values():
            for key in ("step", "mu_product"):
                if key in state:
                    state[key] = state[key].detach().to(device="cpu", dtype=torch.get_default_dtype())
        self.invalidate_cache()
        self._synced_step = None


class Nadam(Optimizer):
    """Optimizer that implements the Nadam algorithm.

    Much like Adam is essentially RMSprop with momentum, Nadam is Adam with
    Nesterov momentum.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      beta_1: The exponential decay rate for the 1st moment estimates.
        Defaults to 0.9.
      beta_2: The exponential decay rate for the 2nd moment estimates.
        Defaults to 0.999.
      epsilon: A small constant for numerical stability ("epsilon hat").
        Defaults to 1e-7.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    _kernel_class = NadamKernel
    _slot_layout = (("m", "v"),)
    _momentum_decay = 1.0

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
        name: str = "Nadam",
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
        return {
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "momentum_decay": self._momentum_decay,
        }

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


_registry.register_builtin(Nadam)
