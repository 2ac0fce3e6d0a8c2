"""Adafactor, Keras 2.15's update rule (Shazeer & Stern, 2018).

For a variable of rank >= 2 the second moment is factored over its last two
dimensions: `r` (shape `var.shape[:-1]`) and `c` (`var.shape[:-2] + var.shape[-1:]`)
average the regulated squared gradient `g^2 + epsilon_1` along the last and
second-to-last axis with the decay `beta_2_t = 1 - t^beta_2_decay`, and
`v = r / mean(r, -1) (x) c`; a variable of rank < 2 keeps the full `v`. Then
`u = g / sqrt(v)`, `u_hat = u / max(1, rms(u) / clip_threshold)` and
`w -= max(epsilon_2, rms(w)) * min(lr, 1 / sqrt(t)) * u_hat`, with `t` the
optimizer's `iterations + 1`. (Keras 2.15 applies `min(lr, 1 / sqrt(t))`
whatever `relative_step` says; so does this rule.)
"""

from __future__ import annotations

import math
from typing import Any

import torch

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


def _rms(x: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(torch.mean(x * x))


class AdafactorKernel(TorchKernel):
    """`torch.optim.Optimizer` with Keras' Adafactor rule.

    Slots: `r` and `c` (factored second moments, only for parameters of rank >= 2,
    as Keras creates them) and `v`.
    """

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
    ) -> None:
        defaults = {
            "lr": lr, "beta_2_decay": beta_2_decay, "epsilon_1": epsilon_1,
            "epsilon_2": epsilon_2, "clip_threshold": clip_threshold,
        }
        super().__init__(params, defaults)

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`r`, `c` and `v` (`r` and `c` exist only for parameters of rank >= 2)."""
        return ("r", "c", "v")

    def init_state(self, p: torch.Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        """Creates `v` like `p` and, for rank >= 2, the factored `r` and `c`."""
        state = self.state[p]
        if "v" not in state:
            state["v"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        if p.dim() >= 2:
            if "r" not in state:
                state["r"] = p.new_zeros(p.shape[:-1])
            if "c" not in state:
                state["c"] = p.new_zeros(p.shape[:-2] + p.shape[-1:])
        return state

    def slots_for(self, group: dict[str, Any], params: Tensors) -> dict[str, Tensors]:
        """Returns `{slot name: [slot of each of params, None where a rank < 2 has no r/c]}`."""
        slots: dict[str, list] = {"r": [], "c": [], "v": []}
        for p in params:
            state = self.init_state(p, group)
            for name in slots:
                slots[name].append(state.get(name))
        return slots

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one Adafactor step to each parameter."""
        t = float(step + 1)
        rho = min(group["lr"], 1.0 / math.sqrt(t))
        beta_2_t = 1.0 - t ** group["beta_2_decay"]
        eps_1, eps_2 = group["epsilon_1"], group["epsilon_2"]
        clip = group["clip_threshold"]
        for p, g, r, c, v in zip(params, grads, slots["r"], slots["c"], slots["v"]):
            alpha = torch.clamp(_rms(p), min=eps_2) * rho
            square = g * g + eps_1
            if p.dim() >= 2:
                r.mul_(beta_2_t).add_(square.mean(dim=-1), alpha=1 - beta_2_t)
                c.mul_(beta_2_t).add_(square.mean(dim=-2), alpha=1 - beta_2_t)
                v.copy_((r / r.mean(dim=-1, keepdim=True)).unsqueeze(-1) * c.unsqueeze(-2))
            else:
                v.mul_(beta_2_t).add_(square, alpha=1 - beta_2_t)
            u = g * torch.rsqrt(v)
            u_hat = u / torch.clamp(_rms(u) / clip, min=1.0)
            p.sub_(alpha * u_hat)


class Adafactor(Optimizer):
    """Optimizer that implements the Adafactor algorithm.

    Adafactor is commonly used in NLP tasks, and has the advantage of taking
    less memory because it only saves partial information of previous
    gradients (a factored second moment).

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      beta_2_decay: float, defaults to -0.8. The decay rate of `beta_2`.
      epsilon_1: float, defaults to 1e-30. A small offset to keep the
        denominator away from 0.
      epsilon_2: float, defaults to 1e-3. A small offset to avoid the learning
        rate becoming too small by time.
      clip_threshold: float, defaults to 1.0. Clipping threshold. This is a
        part of the Adafactor algorithm, independent from `clipnorm`,
        `clipvalue` and `global_clipnorm`.
      relative_step: bool, defaults to True. If `learning_rate` is a constant
        and `relative_step=True`, the learning rate is adjusted based on
        current iterations (`min(lr, 1 / sqrt(t))`).
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.

    Reference: Shazeer, Noam et al., 2018 (https://arxiv.org/abs/1804.04235).
    """

    _kernel_class = AdafactorKernel
    _slot_layout = (("r", "c", "v"),)

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
        relative_step: bool = True,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "Adafactor",
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
        self.beta_2_decay = _number(beta_2_decay, "beta_2_decay", "Adafactor")
        self.epsilon_1 = _number(epsilon_1, "epsilon_1", "Adafactor")
        self.epsilon_2 = _number(epsilon_2, "epsilon_2", "Adafactor")
        self.clip_threshold = _number(clip_threshold, "clip_threshold", "Adafactor")
        self.relative_step = bool(relative_step)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {
            "beta_2_decay": self.beta_2_decay, "epsilon_1": self.epsilon_1,
            "epsilon_2": self.epsilon_2, "clip_threshold": self.clip_threshold,
        }

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, beta_2_decay,
        epsilon_1, epsilon_2, clip_threshold, relative_step."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "beta_2_decay": self.beta_2_decay,
                "epsilon_1": self.epsilon_1,
                "epsilon_2": self.epsilon_2,
                "clip_threshold": self.clip_threshold,
                "relative_step": self.relative_step,
            }
        )
        return config


_registry.register_builtin(Adafactor)
