"""FTRL-Proximal ("Follow The Regularized Leader"), Keras 2.15's update rule.

There is no FTRL in `torch.optim`. Keras' rule (the same as TF's
`ApplyFtrlV2` kernel, used by the Estimator's linear models):

    g_shrink = g + 2 * l2_shrinkage * w
    n_new = n + g^2
    z += g_shrink - (n_new^-p - n^-p) / lr * w        (p = learning_rate_power)
    quadratic = n_new^-p / lr + 2 * (l2 + beta / (2 * lr))
    w = (clip(z, -l1, l1) - z) / quadratic            (0 where |z| <= l1)
    n = n_new
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._torch_private import version
from torchestimator.keras import _registry
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _number


class FtrlKernel(TorchKernel):
    """`torch.optim.Optimizer` with TF's FTRL-Proximal rule (slots `accumulator` and `linear`)."""

    elementwise = True

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
    ) -> None:
        defaults = {
            "lr": lr,
            "learning_rate_power": learning_rate_power,
            "initial_accumulator_value": initial_accumulator_value,
            "l1_regularization_strength": l1_regularization_strength,
            "l2_regularization_strength": l2_regularization_strength,
            "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength,
            "beta": beta,
        }
        self._kept_powers: tuple | None = None
        super().__init__(params, defaults)

    def slot_names(self, group: dict[str, Any]) -> tuple[str, ...]:
        """`accumulator` (n, the sum of squared gradients) and `linear` (z)."""
        return ("accumulator", "linear")

    def initial_slot_value(self, name: str, group: dict[str, Any]) -> float:
        """The accumulator starts at `initial_accumulator_value`, `linear` at 0."""
        return group["initial_accumulator_value"] if name == "accumulator" else 0.0

    def update(self, group: dict[str, Any], params: Tensors, grads: Tensors, slots: dict[str, Tensors], step: int) -> None:
        """Applies one FTRL step."""
        lr = group["lr"]
        power = -group["learning_rate_power"]
        l1 = group["l1_regularization_strength"]
        l2 = group["l2_regularization_strength"] + group["beta"] / (2.0 * lr)
        shrinkage = group["l2_shrinkage_regularization_strength"]
        accumulators, linears = slots["accumulator"], slots["linear"]
        old_powers = self._powers_before(accumulators, power)
        torch._foreach_addcmul_(accumulators, grads, grads)  # n += g^2
        new_powers = _powers(accumulators, power)
        sigmas = torch._foreach_sub(new_powers, old_powers)  # lr * sigma
        if shrinkage:
            torch._foreach_add_(linears, torch._foreach_add(grads, params, alpha=2.0 * shrinkage))
        else:
            torch._foreach_add_(linears, grads)
        torch._foreach_addcmul_(linears, sigmas, params, value=-1.0 / lr)  # z += g - sigma * w
        self._remember_powers(accumulators, new_powers, power)
        # w = (clip(z, -l1, l1) - z) / (n^p / lr + 2 l2) = lr * (clip(z, -l1, l1) - z) / (n^p + 2 l2 lr)
        denominators = torch._foreach_add(new_powers, 2.0 * l2 * lr) if l2 else new_powers
        torch._foreach_zero_(params)
        if l1:
            numerators = torch._foreach_clamp_min(linears, -l1)
            torch._foreach_clamp_max_(numerators, l1)
            torch._foreach_sub_(numerators, linears)
            torch._foreach_addcdiv_(params, numerators, denominators, value=lr)
        else:
            torch._foreach_addcdiv_(params, linears, denominators, value=-lr)

    def _powers_before(self, accumulators: Tensors, power: float) -> Tensors:
        """`n ** -learning_rate_power` of the accumulators as they are now: the previous step's
        `new_powers` when the accumulators were not touched since (same tensors, same versions),
        else computed afresh (after a restore, or for a partial update)."""
        kept = self._kept_powers
        if (
            kept is not None and kept[0] is accumulators and kept[1] == power
            and kept[2] == [version(a) for a in accumulators]
        ):
            return kept[3]
        return _powers(accumulators, power)

    def _remember_powers(self, accumulators: Tensors, powers: Tensors, power: float) -> None:
        """Keeps `powers` (of the updated `accumulators`) for the next step, unless the slots are
        large (the copy would cost as much memory as a slot)."""
        if sum(a.numel() for a in accumulators) > _MAX_KEPT_POWERS:
            self._kept_powers = None
            return
        self._kept_powers = (accumulators, power, [version(a) for a in accumulators], powers)

    def invalidate_cache(self) -> None:
        """Forgets the cached slot lists and the kept accumulator powers."""
        super().invalidate_cache()
        self._kept_powers = None

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._kept_powers = None

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_kept_powers", None)
        return state


_MAX_KEPT_POWERS = 1 << 22  # elements (16 MB of float32) of accumulator powers kept between steps


def _powers(values: Tensors, power: float) -> Tensors:
    """`values ** power` (a square root for TF's default learning_rate_power -0.5)."""
    return torch._foreach_sqrt(values) if power == 0.5 else torch._foreach_pow(values, power)


class Ftrl(Optimizer):
    """Optimizer that implements the FTRL algorithm.

    "Follow The Regularized Leader" (FTRL) is an optimization algorithm
    developed at Google for click-through rate prediction; it is most
    suitable for shallow models with large and sparse feature spaces. It
    supports online L2 regularization and shrinkage-type L2 regularization
    (an L2 penalty added to the loss).

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      learning_rate_power: Float <= 0; controls how the learning rate
        decreases during training (0 for a fixed rate). Defaults to -0.5.
      initial_accumulator_value: The starting value for accumulators; zero or
        positive. Defaults to 0.1.
      l1_regularization_strength: Float >= 0. Defaults to 0.
      l2_regularization_strength: Float >= 0 (a stabilization penalty).
        Defaults to 0.
      l2_shrinkage_regularization_strength: Float >= 0 (a magnitude penalty).
        Defaults to 0.
      beta: Float, the beta value from the paper. Defaults to 0.
      weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema,
      ema_momentum, ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    _kernel_class = FtrlKernel
    _slot_layout = (("accumulator", "linear"),)

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "Ftrl",
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
        owner = type(self).__name__
        values = {
            "initial_accumulator_value": _number(initial_accumulator_value, "initial_accumulator_value", owner),
            "learning_rate_power": _number(learning_rate_power, "learning_rate_power", owner),
            "l1_regularization_strength": _number(l1_regularization_strength, "l1_regularization_strength", owner),
            "l2_regularization_strength": _number(l2_regularization_strength, "l2_regularization_strength", owner),
            "l2_shrinkage_regularization_strength": _number(
                l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength", owner
            ),
            "beta": _number(beta, "beta", owner),
        }
        if values["initial_accumulator_value"] < 0.0:
            raise ValueError(
                "`initial_accumulator_value` needs to be positive or zero. Received: "
                f"initial_accumulator_value={initial_accumulator_value}."
            )
        if values["learning_rate_power"] > 0.0:
            raise ValueError(
                f"`learning_rate_power` needs to be negative or zero. Received: learning_rate_power={learning_rate_power}."
            )
        for key in ("l1_regularization_strength", "l2_regularization_strength", "l2_shrinkage_regularization_strength"):
            if values[key] < 0.0:
                raise ValueError(f"`{key}` needs to be positive or zero. Received: {key}={values[key]}.")
        self._build_learning_rate(learning_rate)
        self.learning_rate_power = values["learning_rate_power"]
        self.initial_accumulator_value = values["initial_accumulator_value"]
        self.l1_regularization_strength = values["l1_regularization_strength"]
        self.l2_regularization_strength = values["l2_regularization_strength"]
        self.l2_shrinkage_regularization_strength = values["l2_shrinkage_regularization_strength"]
        self.beta = values["beta"]

    def _kernel_hyperparameters(self) -> dict[str, Any]:
        return {
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta,
        }

    def get_config(self) -> dict[str, Any]:
        """Returns the config: the base optimizer's keys plus learning_rate and the FTRL arguments."""
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter(self._learning_rate)})
        config.update(self._kernel_hyperparameters())
        return config


_registry.register_builtin(Ftrl)
