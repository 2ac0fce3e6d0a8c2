"""Adagrad, Keras 2.15's update rule.

TF's accumulators start at `initial_accumulator_value=0.1` (torch's at 0) and
Keras 2.15 puts epsilon inside the square root:
`w -= lr * g / sqrt(accumulator + epsilon)`; `torch.optim.Adagrad` computes
`lr * g / (sqrt(accumulator) + eps)` — which is what the legacy Keras
optimizer (`ResourceApplyAdagradV2`) does, selected by `epsilon_inside_sqrt=False`.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


def _fusable(params: Tensors, grads: Tensors, accumulators: Tensors) -> bool:
    """True when torch's fused Adagrad kernel applies: dense float32/float64 CPU tensors of one
    dtype (it has no CUDA, sparse or mixed-dtype version)."""
    first = params[0] if params else None
    if first is None or first.device.type != "cpu" or first.dtype not in (torch.float32, torch.float64):
        return False
    dtype = first.dtype
    for tensors in (params, grads, accumulators):
        for t in tensors:
            if t.dtype is not dtype or t.device.type != "cpu" or t.layout is not torch.strided:
                return False
    return True


class AdagradKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF's Adagrad rule.

    `accumulator += g^2`, then `w -= lr * g / sqrt(accumulator + epsilon)`
    (or `/ (sqrt(accumulator) + epsilon)` with `epsilon_inside_sqrt=False`).
    """

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        epsilon_inside_sqrt: bool = True,
    ) -> None:
        defaults = {
            "lr": lr,
            "initial_accumulator_value": initial_accumulator_value,
            "epsilon": epsilon,
            "epsilon_inside_sqrt": epsilon_inside_sqrt,
        }
        # The rule is elementwise either way; with epsilon outside the square root it runs as
        # torch's fused kernel, which gains nothing from flattening (`TorchKernel.elementwise`).
        self.elementwise = bool(epsilon_inside_sqrt)
        super().__init__(params, defaults)

    def _fusable(self, params: Tensors, grads: Tensors, accumulators: Tensors) -> bool:
        """`_fusable` of these lists, the variables' part remembered while the same list objects
        (held here, so their ids cannot be reused), lengths and first variable's device and dtype
        come back (the optimizer passes its own lists each full step); the gradients, new each
        step, are checked by their first one (autograd gives each its variable's dtype)."""
        first = params[0] if params else None
        if first is None:
            return False
        memo = self.__dict__.get("_fusable_memo")
        if (memo is None or memo[0] is not params or memo[1] is not accumulators or memo[2] != len(params)
                or memo[3] != first.device or memo[4] is not first.dtype):
            verdict = _fusable(params, params, accumulators)
            memo = self.__dict__["_fusable_memo"] = (params, accumulators, len(params), first.device,
                                                     first.dtype, verdict)
        g = grads[0]
        return memo[5] and len(grads) == len(params) and g.dtype is first.dtype and g.layout is torch.strided

    def _unused_steps(self, count: int) -> Tensors:
        """The per-parameter step tensors the fused kernel takes (unused with lr_decay 0)."""
        steps = self.__dict__.get("_fused_steps")
        if steps is None or len(steps) != count:
            steps = self.__dict__["_fused_steps"] = [torch.zeros(()) for _ in range(count)]
        return steps

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`accumulator`."""
        return ("accumulator",)

    def initial_slot_value(self, name: str, group: dict[str, Any]) -> float:
        """The accumulator starts at `initial_accumulator_value`."""
        return group["initial_accumulator_value"]

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one Adagrad step."""
        accumulators = slots["accumulator"]
        if not group["epsilon_inside_sqrt"] and self._fusable(params, grads, accumulators):
            # torch's fused CPU kernel computes this very rule (`accumulator += g^2`, then
            # `w -= lr * g / (sqrt(accumulator) + epsilon)`, lr_decay 0 makes its step count
            # unused) in one call instead of four multi-tensor ops (about 50 us less per step
            # on a small DNN); it rounds `lr * g / denominator` in TF's order, so weights may
            # differ from the multi-tensor path in the last bit.
            torch._fused_adagrad_(
                params, grads, accumulators, self._unused_steps(len(params)), lr=group["lr"],
                lr_decay=0.0, weight_decay=0.0, eps=group["epsilon"], maximize=False,
            )
            return
        torch._foreach_addcmul_(accumulators, grads, grads)
        if group["epsilon_inside_sqrt"]:
            denominators = torch._foreach_add(accumulators, group["epsilon"])
            torch._foreach_sqrt_(denominators)
        else:
            denominators = torch._foreach_sqrt(accumulators)
            torch._foreach_add_(denominators, group["epsilon"])
        torch._foreach_addcdiv_(params, grads, denominators, value=-group["lr"])


class Adagrad(Optimizer):
    """Optimizer that implements the Adagrad algorithm.

    Adagrad is an optimizer with parameter-specific learning rates, which are
    adapted relative to how frequently a parameter gets updated during
    training. The more updates a parameter receives, the smaller the updates.

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      initial_accumulator_value: Starting value for the accumulators
        (per-parameter momentum values). Must be non-negative. Defaults to 0.1.
      epsilon: Small floating point value used to maintain numerical
        stability. Defaults to 1e-7.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    _kernel_class = AdagradKernel
    _slot_layout = (("accumulator",),)
    _epsilon_inside_sqrt = True

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "Adagrad",
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
        value = _number(initial_accumulator_value, "initial_accumulator_value", type(self).__name__)
        if value < 0:
            raise ValueError(
                f"`initial_accumulator_value` must be non-negative. Received: initial_accumulator_value={value}."
            )
        self.initial_accumulator_value = value
        self.epsilon = _number(epsilon, "epsilon", type(self).__name__)

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
            "epsilon_inside_sqrt": self._epsilon_inside_sqrt,
        }

    def update_step(self, grad: torch.Tensor, variable: torch.Tensor) -> None:
        """`Optimizer.update_step` under TF's parameter names for this class (`grad`,
        `variable`); the built-in rule is applied by `apply_gradients`/`minimize`."""
        super().update_step(grad, variable)

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate, initial_accumulator_value, epsilon."""
        config = super().get_config()
        config.update(
            {
                "learning_rate": self._serialize_hyperparameter(self._learning_rate),
                "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon,
            }
        )
        return config


_registry.register_builtin(Adagrad)
