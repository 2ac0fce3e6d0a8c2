"""`tf.keras.optimizers.legacy.*`: Keras 2.15's pre-2.11 ("OptimizerV2") optimizers.

They share the update rules of the new optimizers, with the legacy API:
`**kwargs` limited to `clipnorm`, `clipvalue`, `global_clipnorm`, `lr` and
`decay` (a time-based decay, `lr / (1 + decay * iterations)`), no weight
decay or EMA, and legacy configs (`decay` key, no `is_legacy_optimizer`).
Three rules differ from the new optimizers, as in TF: Adagrad adds epsilon
outside the square root (`ResourceApplyAdagradV2`), RMSprop adds it outside
the square root without momentum and follows TF's `ApplyRMSProp` kernel with
momentum (`_rmsprop.py`), and Nadam's momentum schedule is `0.96^(0.004 t)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.keras.optimizers import (
    adadelta,
    adagrad,
    adam,
    adamax,
    ftrl,
    nadam,
    rmsprop,
    sgd,
)
from torchestimator.keras.optimizers.legacy._rmsprop import LegacyRMSpropKernel
from torchestimator.keras.optimizers.optimizer import Optimizer, _non_negative
from torchestimator.keras.optimizers.schedules import learning_rate_schedule as lrs

_ALLOWED = ("clipnorm", "clipvalue", "lr", "decay", "global_clipnorm")
_REMOVED = ("weight_decay", "use_ema", "ema_momentum", "ema_overwrite_frequency", "jit_compile", "is_legacy_optimizer")


def _legacy_kwargs(owner: str, kwargs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Validates legacy keyword arguments; returns `(decay, kwargs for the new optimizer)`."""
    for key in kwargs:
        if key not in _ALLOWED:
            raise TypeError(
                f"Unexpected keyword argument passed to optimizer: {key}. Allowed keyword arguments of "
                f"tf.keras.optimizers.legacy.{owner}: {', '.join(_ALLOWED)}."
            )
    decay = _non_negative(kwargs.pop("decay", 0.0), "decay", owner, allow_none=False)
    return decay, kwargs


class _Legacy:
    """Mixin turning a new optimizer class into its legacy (OptimizerV2) twin."""

    _keras_module = "keras.optimizers.legacy"
    #: The order of the slots in `get_weights()` (TF's creation order): groups of slot names,
    #: each group interleaved per variable; None: each slot of `_slot_layout` in turn.
    _legacy_slot_groups: tuple[tuple[str, ...], ...] | None = None
    #: Whether `get_weights()` holds Nadam's `momentum_cache` after `iterations`.
    _momentum_cache_weight = False

    def _finish_legacy(self, decay: float) -> None:
        self._legacy_decay = decay
        self._refresh_learning_rate()

    @property
    def decay(self) -> float:
        """The time-based learning-rate decay: `lr / (1 + decay * iterations)`."""
        return self._legacy_decay

    def _legacy_config(self, **hyperparameters: Any) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self.name}
        for key in ("clipnorm", "clipvalue", "global_clipnorm"):
            if getattr(self, key) is not None:
                config[key] = getattr(self, key)
        config["learning_rate"] = self._serialize_hyperparameter(self._learning_rate)
        config["decay"] = self._legacy_decay
        config.update(hyperparameters)
        return config

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None,
                        experimental_aggregate_gradients: bool = True) -> Any:
        """Applies `(gradient, variable)` pairs (TF's legacy signature); returns the new
        `iterations`. `experimental_aggregate_gradients=False` says the gradients are already
        aggregated across replicas: the update is the same here, where the replicas'
        gradients are averaged (and averaging gradients every replica holds alike changes
        nothing)."""
        del name, experimental_aggregate_gradients
        return super().apply_gradients(grads_and_vars)

    def minimize(self, loss: Any, var_list: Any = None, grad_loss: Any = None,
                 name: str | None = None, tape: Any = None) -> Any:
        """Minimizes `loss` (a tensor, or a zero-argument callable returning one) by updating
        `var_list`, as `tf.keras.optimizers.Optimizer.minimize` (TF's legacy signature; without
        `var_list`, inside a `model_fn`, every trainable weight the loss depends on).
        `grad_loss` is the gradient of the objective with respect to `loss` (the variables
        then get `d loss/d var` contracted with it, as TF's `tape.gradient(loss, vars,
        output_gradients=grad_loss)`); None means `d loss = 1`."""
        del name
        if grad_loss is not None:
            loss = _contracted(loss, grad_loss)
        return super().minimize(loss, var_list, tape=tape)

    def _legacy_weights(self) -> list[torch.Tensor]:
        """The variables in TF's legacy order (OptimizerV2's `weights`): `iterations`, Nadam's
        `momentum_cache`, then the slots slot by slot (Ftrl's per variable), then the slots
        of `add_slot`; [] before the optimizer is built."""
        if not self._vars and not self._extra_variables:
            return []
        out: list[torch.Tensor] = [torch.tensor(self._iterations, dtype=torch.int64)]
        state = self._kernel.state if self._kernel is not None else {}
        if self._has_momentum_cache():  # the product of the momentum schedule after `iterations`
            kernel = self._kernel
            product = kernel.momentum_product(kernel.param_groups[0], self._iterations)
            out.append(torch.tensor(product, dtype=torch.float32))
        groups = self._legacy_slot_groups or tuple((n,) for g in self._slot_layout for n in g)
        for names in groups:
            for p in self._vars:
                slots = state.get(p, {})
                out.extend(slots[n] for n in names if n in slots)
        out.extend(self._extra_variables)
        return out

    @property
    def weights(self) -> list[torch.Tensor]:
        """The optimizer's variables in TF's legacy order (those of `get_weights()`)."""
        return self._legacy_weights()

    def _has_momentum_cache(self) -> bool:
        return bool(self._momentum_cache_weight and self._vars and self._kernel is not None
                    and "mu_product" in self._kernel.state.get(self._vars[0], {}))

    def get_weights(self) -> list[Any]:
        """The optimizer's state as numpy arrays, in TF's legacy order: `iterations`, then the
        slots slot by slot (Adam's m of each variable, then v; Nadam's `momentum_cache` after
        `iterations`); [] before the optimizer is built."""
        return [v.detach().cpu().numpy() for v in self._legacy_weights()]

    def set_weights(self, weights: list[Any]) -> None:
        """Sets the optimizer's state from arrays in the order of `get_weights()` (TF's legacy
        order). Raises ValueError for another number of arrays or a shape that differs."""
        targets = self._legacy_weights()
        if len(targets) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on optimizer {self.name} with a  weight list "
                f"of length {len(weights)}, but the optimizer was expecting {len(targets)} "
                f"weights. Provided weights: {str(weights)[:50]}..."
            )
        if not targets:
            return
        for target, value in zip(targets, weights):
            if tuple(np.shape(value)) != tuple(target.shape):
                raise ValueError(
                    f"Optimizer weight shape {tuple(target.shape)} not compatible with provided "
                    f"weight shape {tuple(np.shape(value))}."
                )
        self.iterations = int(np.asarray(weights[0]))
        start = 2 if self._has_momentum_cache() else 1  # momentum_cache follows iterations
        with torch.no_grad():
            for target, value in zip(targets[start:], weights[start:]):
                target.copy_(torch.as_tensor(np.asarray(value)).to(dtype=target.dtype, device=target.device))
        if self._kernel is not None:
            self._kernel.invalidate_cache()

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Optimizer:
        """Creates the optimizer from a legacy (or new-style) config."""
        config = {k: v for k, v in config.items() if k not in _REMOVED}
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = lrs.deserialize(config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)


def _contracted(loss: Any, grad_loss: Any) -> Any:
    """`sum(loss * grad_loss)` (a callable loss gives a callable): its gradient with respect to
    a variable is `d loss/d var` contracted with `grad_loss`."""
    def contract(value: Any) -> Any:
        if not isinstance(value, torch.Tensor):
            raise ValueError(
                "minimize(): the loss must be a torch tensor (or a callable returning one) when "
                f"grad_loss is given. Received: loss={value!r}"
            )
        weight = torch.as_tensor(grad_loss, dtype=value.dtype, device=value.device).detach()
        return (value * weight).sum()

    if callable(loss) and not isinstance(loss, torch.Tensor):
        return lambda: contract(loss())
    return contract(loss)


class SGD(_Legacy, sgd.SGD):
    """Legacy gradient descent (with momentum) optimizer; learning_rate defaults to 0.01."""
    _checkpoint_slot_names = {"m": "momentum"}
    _sparse_rule = "lazy"  # ResourceSparseApplyKerasMomentum

    def __init__(
        self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False, name: str = "SGD", **kwargs: Any
    ) -> None:
        decay, kwargs = _legacy_kwargs("SGD", kwargs)
        super().__init__(learning_rate=learning_rate, momentum=momentum, nesterov=nesterov, name=name, **kwargs)
        self._finish_legacy(decay)

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay, momentum, nesterov."""
        return self._legacy_config(momentum=self.momentum, nesterov=self.nesterov)


class Adam(_Legacy, adam.Adam):
    """Legacy Adam optimizer (same update rule as `tf.keras.optimizers.Adam`)."""

    _float32_powers = False  # TF's ApplyAdam: moments and bias corrections from the same float32 betas

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float | None = 1e-7,
        amsgrad: bool = False,
        name: str = "Adam",
        **kwargs: Any,
    ) -> None:
        decay, kwargs = _legacy_kwargs("Adam", kwargs)
        super().__init__(
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=1e-7 if epsilon is None else epsilon,
            amsgrad=amsgrad,
            name=name,
            **kwargs,
        )
        self._finish_legacy(decay)

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay, beta_1, beta_2, epsilon, amsgrad."""
        return self._legacy_config(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon, amsgrad=self.amsgrad)


class Adagrad(_Legacy, adagrad.Adagrad):
    """Legacy Adagrad optimizer: `w -= lr * g / (sqrt(accumulator) + epsilon)` (TF's ResourceApplyAdagradV2)."""

    _epsilon_inside_sqrt = False
    _sparse_rule = "lazy"  # ResourceSparseApplyAdagradV2

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float | None = 1e-7,
        name: str = "Adagrad",
        **kwargs: Any,
    ) -> None:
        decay, kwargs = _legacy_kwargs("Adagrad", kwargs)
        super().__init__(
            learning_rate=learning_rate,
            initial_accumulator_value=initial_accumulator_value,
            epsilon=1e-7 if epsilon is None else epsilon,
            name=name,
            **kwargs,
        )
        self._finish_legacy(decay)

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay, initial_accumulator_value, epsilon."""
        return self._legacy_config(initial_accumulator_value=self.initial_accumulator_value, epsilon=self.epsilon)


class RMSprop(_Legacy, rmsprop.RMSprop):
    """Legacy RMSprop optimizer: TF's `ApplyRMSProp` kernel (`sqrt(ms + epsilon)`) with momentum,
    `sqrt(ms) + epsilon` without (see `_rmsprop.LegacyRMSpropKernel`)."""

    _checkpoint_slot_names = {"velocity": "rms", "average_gradient": "mg"}
    _kernel_class = LegacyRMSpropKernel

    def _sparse_update_rule(self) -> str:
        # ResourceSparseApply(Centered)RMSProp with momentum; Python ops (dense slots) without
        return "lazy" if self.momentum > 0 else "dense"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float | None = 1e-7,
        centered: bool = False,
        name: str = "RMSprop",
        **kwargs: Any,
    ) -> None:
        decay, kwargs = _legacy_kwargs("RMSprop", kwargs)
        super().__init__(
            learning_rate=learning_rate,
            rho=rho,
            momentum=momentum,
            epsilon=1e-7 if epsilon is None else epsilon,
            centered=centered,
            name=name,
            **kwargs,
        )
        self._finish_legacy(decay)

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay, rho, momentum, epsilon, centered."""
        return self._legacy_config(rho=self.rho, momentum=self.momentum, epsilon=self.epsilon, centered=self.centered)


class Adadelta(_Legacy, adadelta.Adadelta):
    """Legacy Adadelta optimizer (same update rule as `tf.keras.optimizers.Adadelta`)."""
    _checkpoint_slot_names = {"accumulated_grad": "accum_grad", "accumulated_delta_var": "accum_var"}
    _sparse_rule = "lazy"  # ResourceSparseApplyAdadelta

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.95,
        epsilon: float | None = 1e-7,
        name: str = "Adadelta",
        **kwargs: Any,
    ) -> None:
        decay, kwargs = _legacy_kwargs("Adadelta", kwargs)
        super().__init__(
            learning_rate=learning_rate, rho=rho, epsilon=1e-7 if epsilon is None else epsilon, name=name, **kwargs
        )
        self._finish_legacy(decay)

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay, rho, epsilon."""
        return self._legacy_config(rho=self.rho, epsilon=self.epsilon)


class Adamax(_Legacy, adamax.Adamax):
    """Legacy Adamax optimizer (same update rule as `tf.keras.optimizers.Adamax`)."""
    _checkpoint_slot_names = {"u": "v"}
    _sparse_rule = "lazy"  # gathers and scatters the rows of m, v and the variable

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float | None = 1e-7,
        name: str = "Adamax",
        **kwargs: Any,
    ) -> None:
        decay, kwargs = _legacy_kwargs("Adamax", kwargs)
        super().__init__(
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=1e-7 if epsilon is None else epsilon,
            name=name,
            **kwargs,
        )
        self._finish_legacy(decay)

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay, beta_1, beta_2, epsilon."""
        return self._legacy_config(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)


class Nadam(_Legacy, nadam.Nadam):
    """Legacy Nadam optimizer: momentum schedule `beta_1 * (1 - 0.5 * 0.96^(0.004 t))`.

    As in TF, the legacy Nadam takes no learning-rate schedule; its `decay`
    is the momentum schedule's (`schedule_decay`, 0.004), not a learning-rate decay.
    """

    _momentum_decay = 0.004
    _momentum_cache_weight = True
    _sparse_rule = "rows"  # m and v decay everywhere, the variable moves in the gradient's rows

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float | None = 1e-7,
        name: str = "Nadam",
        **kwargs: Any,
    ) -> None:
        schedule_decay = kwargs.pop("schedule_decay", 0.004)
        kwargs.pop("decay", None)
        _, kwargs = _legacy_kwargs("Nadam", kwargs)
        learning_rate = kwargs.pop("lr", learning_rate)
        if isinstance(learning_rate, lrs.LearningRateSchedule):
            raise ValueError(
                "The Nadam optimizer does not support tf.keras.optimizers.LearningRateSchedules as the "
                "learning rate."
            )
        self._schedule_decay = _non_negative(schedule_decay, "schedule_decay", "Nadam", allow_none=False)
        self._momentum_decay = self._schedule_decay
        super().__init__(
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=1e-7 if epsilon is None else epsilon,
            name=name,
            **kwargs,
        )

    @property
    def decay(self) -> float:
        """The momentum schedule decay (`schedule_decay`), 0.004 by default."""
        return self._schedule_decay

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay, beta_1, beta_2, epsilon."""
        config = self._legacy_config(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        config["decay"] = self._schedule_decay
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Optimizer:
        """Creates the optimizer from its legacy config (`decay` is the momentum schedule decay)."""
        config = dict(config)
        if "decay" in config:
            config["schedule_decay"] = config.pop("decay")
        return super().from_config(config, custom_objects)


class Ftrl(_Legacy, ftrl.Ftrl):
    """Legacy FTRL optimizer (same update rule as `tf.keras.optimizers.Ftrl`)."""

    _sparse_rule = "lazy"  # ResourceSparseApplyFtrl(V2)
    _legacy_slot_groups = (("accumulator", "linear"),)  # TF creates both slots of each variable

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        name: str = "Ftrl",
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        **kwargs: Any,
    ) -> None:
        decay, kwargs = _legacy_kwargs("Ftrl", kwargs)
        super().__init__(
            learning_rate=learning_rate,
            learning_rate_power=learning_rate_power,
            initial_accumulator_value=initial_accumulator_value,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
            l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength,
            beta=beta,
            name=name,
            **kwargs,
        )
        self._finish_legacy(decay)

    def get_config(self) -> dict[str, Any]:
        """Returns the legacy config: name, clipping, learning_rate, decay and the FTRL arguments."""
        return self._legacy_config(**self._kernel_hyperparameters())


LEGACY_CLASSES: dict[str, type[Optimizer]] = {
    "adadelta": Adadelta,
    "adagrad": Adagrad,
    "adam": Adam,
    "adamax": Adamax,
    "ftrl": Ftrl,
    "nadam": Nadam,
    "rmsprop": RMSprop,
    "sgd": SGD,
}
