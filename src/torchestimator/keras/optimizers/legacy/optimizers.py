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

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Optimizer:
        """Creates the optimizer from a legacy (or new-style) config."""
        config = {k: v for k, v in config.items() if k not in _REMOVED}
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = lrs.deserialize(config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)


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
