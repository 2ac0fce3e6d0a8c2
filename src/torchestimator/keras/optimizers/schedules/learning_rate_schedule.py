"""Learning-rate schedules: `tf.keras.optimizers.schedules.*` of Keras 2.15.

A schedule maps the optimizer step (the number of updates already applied) to
a learning rate. The built-in schedules compute in Python floats
(`value(step)`), so an optimizer evaluates one per training step without
touching the accelerator; calling a schedule (`schedule(step)`) returns a
0-d float32 tensor, as Keras returns a scalar tensor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator.keras import _registry

_MODULE = "keras.optimizers.schedules"


def _step_to_int(step: Any) -> int | float:
    """Returns `step` (int, float, numpy or torch scalar) as a Python int, or a float when it is
    a fractional float (TF casts the step to float before dividing, so 2.5 stays 2.5)."""
    if isinstance(step, int):
        return step
    if isinstance(step, (torch.Tensor, np.generic)):
        step = step.item()
    if isinstance(step, float) and not step.is_integer():
        return step
    return int(step)


def _check_number(value: Any, arg: str, schedule: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"{schedule}: `{arg}` must be a number. Received: {arg}={value!r} "
                f"of type {type(value).__name__}."
            ) from None
    return float(value)


def _check_positive(value: Any, arg: str, schedule: str) -> float:
    number = _check_number(value, arg, schedule)
    if number <= 0:
        raise ValueError(
            f"{schedule}: `{arg}` must be positive (it divides the step). Received: {arg}={value!r}."
        )
    return number


class LearningRateSchedule:
    """The learning rate schedule base class.

    A `LearningRateSchedule` instance can be passed as the `learning_rate`
    argument of any optimizer; the optimizer calls it with its current step
    (`optimizer.iterations`) before each update. To write your own schedule,
    subclass it, implement `__call__(self, step)` (`step` is a 0-d int64
    tensor; return a Python number or a 0-d tensor) and, to make it
    serializable, `get_config()`.
    """

    def __call__(self, step: Any) -> Any:
        """Returns the learning rate at `step`."""
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' must override `__call__(self, step)`."
        )

    def get_config(self) -> dict[str, Any]:
        """Returns the schedule's constructor arguments as a JSON-able dict."""
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' must override `get_config()` "
            "in order to be serializable."
        )

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LearningRateSchedule:
        """Instantiates a `LearningRateSchedule` from its config (the output of `get_config()`)."""
        return cls(**config)


class _BuiltinSchedule(LearningRateSchedule):
    """A schedule whose value is computed in Python floats by `value(step: int) -> float`,
    which each built-in schedule defines."""

    value: Any

    def __call__(self, step: Any) -> torch.Tensor:
        """Returns the learning rate at `step` as a 0-d float32 tensor (for an array or tensor
        of steps, a float32 tensor of the learning rate at each, as TF's tensor arithmetic)."""
        if np.ndim(step) > 0 if not isinstance(step, torch.Tensor) else step.dim() > 0:
            steps = np.asarray(step.detach().cpu() if isinstance(step, torch.Tensor) else step)
            values = [self.value(_step_to_int(s)) for s in steps.reshape(-1).tolist()]
            return torch.tensor(values, dtype=torch.float32).reshape(steps.shape)
        return torch.tensor(self.value(_step_to_int(step)), dtype=torch.float32)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class ExponentialDecay(_BuiltinSchedule):
    """A LearningRateSchedule that uses an exponential decay schedule.

    `initial_learning_rate * decay_rate ** (step / decay_steps)`; with
    `staircase=True`, `step / decay_steps` is an integer division and the
    learning rate follows a staircase function.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str | None = None,
    ) -> None:
        self._initial = _check_number(initial_learning_rate, "initial_learning_rate", "ExponentialDecay")
        self._steps = _check_positive(decay_steps, "decay_steps", "ExponentialDecay")
        self._rate = _check_number(decay_rate, "decay_rate", "ExponentialDecay")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def value(self, step: int) -> float:
        """Returns the decayed learning rate at `step`."""
        p = step / self._steps
        if self.staircase:
            p = math.floor(p)
        return self._initial * self._rate**p

    def get_config(self) -> dict[str, Any]:
        """Returns the constructor arguments."""
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(_BuiltinSchedule):
    """A LearningRateSchedule that uses a piecewise constant decay schedule.

    The learning rate is `values[0]` when `step <= boundaries[0]`, `values[1]`
    when `boundaries[0] < step <= boundaries[1]`, ..., and `values[-1]` when
    `step > boundaries[-1]`.
    """

    def __init__(self, boundaries: Sequence[float], values: Sequence[float], name: str | None = None) -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. Received: "
                f"boundaries={list(boundaries)} of length {len(boundaries)}, and values={list(values)} "
                f"of length {len(values)}."
            )
        self._bounds = [_check_number(b, "boundaries", "PiecewiseConstantDecay") for b in boundaries]
        self._values = [_check_number(v, "values", "PiecewiseConstantDecay") for v in values]
        if any(b2 <= b1 for b1, b2 in zip(self._bounds, self._bounds[1:])):
            raise ValueError(
                "PiecewiseConstantDecay: `boundaries` must be strictly increasing. "
                f"Received: boundaries={list(boundaries)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def value(self, step: int) -> float:
        """Returns the value of the interval that holds `step`."""
        for bound, value in zip(self._bounds, self._values):
            if step <= bound:
                return value
        return self._values[-1]

    def get_config(self) -> dict[str, Any]:
        """Returns the constructor arguments."""
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(_BuiltinSchedule):
    """A LearningRateSchedule that uses a polynomial decay schedule.

    `(initial_learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power
    + end_learning_rate` with `step = min(step, decay_steps)`; with `cycle=True`,
    `decay_steps` is multiplied by `ceil(step / decay_steps)` instead (the first
    multiple of `decay_steps` not below `step`, 1 at step 0).
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str | None = None,
    ) -> None:
        self._initial = _check_number(initial_learning_rate, "initial_learning_rate", "PolynomialDecay")
        self._steps = _check_positive(decay_steps, "decay_steps", "PolynomialDecay")
        self._end = _check_number(end_learning_rate, "end_learning_rate", "PolynomialDecay")
        self._power = _check_number(power, "power", "PolynomialDecay")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def value(self, step: int) -> float:
        """Returns the decayed learning rate at `step`."""
        decay_steps = self._steps
        if self.cycle:
            multiplier = 1.0 if step == 0 else math.ceil(step / self._steps)
            decay_steps = decay_steps * multiplier
        else:
            step = min(step, decay_steps)
        p = step / decay_steps
        return (self._initial - self._end) * (1 - p) ** self._power + self._end

    def get_config(self) -> dict[str, Any]:
        """Returns the constructor arguments."""
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class InverseTimeDecay(_BuiltinSchedule):
    """A LearningRateSchedule that uses an inverse time decay schedule.

    `initial_learning_rate / (1 + decay_rate * step / decay_steps)`; with
    `staircase=True`, `step / decay_steps` is floored.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        decay_rate: float,
        staircase: bool = False,
        name: str | None = None,
    ) -> None:
        self._initial = _check_number(initial_learning_rate, "initial_learning_rate", "InverseTimeDecay")
        self._steps = _check_positive(decay_steps, "decay_steps", "InverseTimeDecay")
        self._rate = _check_number(decay_rate, "decay_rate", "InverseTimeDecay")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def value(self, step: int) -> float:
        """Returns the decayed learning rate at `step`."""
        p = step / self._steps
        if self.staircase:
            p = math.floor(p)
        return self._initial / (1.0 + self._rate * p)

    def get_config(self) -> dict[str, Any]:
        """Returns the constructor arguments."""
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class CosineDecay(_BuiltinSchedule):
    """A LearningRateSchedule that uses a cosine decay with optional warmup.

    Without warmup (`warmup_target=None`):
    `initial_learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)`
    with `step = min(step, decay_steps)`. With `warmup_target`, the rate first
    rises linearly from `initial_learning_rate` to `warmup_target` over
    `warmup_steps`, then decays from `warmup_target` over `decay_steps`.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        alpha: float = 0.0,
        name: str | None = None,
        warmup_target: float | None = None,
        warmup_steps: int = 0,
    ) -> None:
        self._initial = _check_number(initial_learning_rate, "initial_learning_rate", "CosineDecay")
        self._steps = _check_positive(decay_steps, "decay_steps", "CosineDecay")
        self._alpha = _check_number(alpha, "alpha", "CosineDecay")
        self._target = None if warmup_target is None else _check_number(
            warmup_target, "warmup_target", "CosineDecay"
        )
        self._warmup = _check_number(warmup_steps, "warmup_steps", "CosineDecay")
        if self._warmup < 0:
            raise ValueError(f"CosineDecay: `warmup_steps` must be >= 0. Received: warmup_steps={warmup_steps!r}.")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decay(self, step: float, decay_from: float) -> float:
        cosine = 0.5 * (1.0 + math.cos(math.pi * step / self._steps))
        return decay_from * ((1 - self._alpha) * cosine + self._alpha)

    def value(self, step: int) -> float:
        """Returns the warmed-up or decayed learning rate at `step`."""
        if self._target is None:
            return self._decay(min(step, self._steps), self._initial)
        step = min(step, self._steps + self._warmup)
        if step < self._warmup:
            return (self._target - self._initial) * (step / self._warmup) + self._initial
        return self._decay(step - self._warmup, self._target)

    def get_config(self) -> dict[str, Any]:
        """Returns the constructor arguments."""
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(_BuiltinSchedule):
    """A LearningRateSchedule that uses a cosine decay schedule with restarts (SGDR).

    The multiplier decays from 1 to `alpha` over `first_decay_steps` steps;
    then a warm restart begins, each period `t_mul` times longer than the last
    and starting from `m_mul` times the previous initial rate.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        first_decay_steps: int,
        t_mul: float = 2.0,
        m_mul: float = 1.0,
        alpha: float = 0.0,
        name: str | None = None,
    ) -> None:
        schedule = "CosineDecayRestarts"
        self._initial = _check_number(initial_learning_rate, "initial_learning_rate", schedule)
        self._steps = _check_positive(first_decay_steps, "first_decay_steps", schedule)
        self._t_mul = _check_positive(t_mul, "t_mul", schedule)
        self._m_mul = _check_number(m_mul, "m_mul", schedule)
        self._alpha = _check_number(alpha, "alpha", schedule)
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul_arg = t_mul
        self._m_mul_arg = m_mul
        self.alpha = alpha
        self.name = name

    def value(self, step: int) -> float:
        """Returns the learning rate at `step` within its restart period."""
        fraction = step / self._steps
        if self._t_mul == 1.0:
            i_restart = math.floor(fraction)
            fraction -= i_restart
        else:
            t_mul = self._t_mul
            i_restart = math.floor(math.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
            sum_r = (1.0 - t_mul**i_restart) / (1.0 - t_mul)
            fraction = (fraction - sum_r) / t_mul**i_restart
        m_fac = self._m_mul**i_restart
        cosine = 0.5 * m_fac * (1.0 + math.cos(math.pi * fraction))
        return self._initial * ((1 - self._alpha) * cosine + self._alpha)

    def get_config(self) -> dict[str, Any]:
        """Returns the constructor arguments."""
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul_arg,
            "m_mul": self._m_mul_arg,
            "alpha": self.alpha,
            "name": self.name,
        }


_BUILTINS = (
    ExponentialDecay,
    PiecewiseConstantDecay,
    PolynomialDecay,
    InverseTimeDecay,
    CosineDecay,
    CosineDecayRestarts,
)
for _cls in _BUILTINS:
    _registry.register_builtin(_cls)
    _cls._registered_name = None  # Keras writes `registered_name: None` for built-ins
_registry.register_builtin(LearningRateSchedule)


def serialize(learning_rate_schedule: LearningRateSchedule, use_legacy_format: bool = False) -> dict[str, Any]:
    """Serializes a `LearningRateSchedule` into a JSON-compatible dict.

    Returns `{'module': 'keras.optimizers.schedules', 'class_name': ...,
    'config': {...}, 'registered_name': None}` for a built-in schedule (the
    legacy format has only `class_name` and `config`).
    """
    if not isinstance(learning_rate_schedule, LearningRateSchedule):
        raise ValueError(
            "`serialize` expects a LearningRateSchedule instance. Received: "
            f"{learning_rate_schedule!r} of type {type(learning_rate_schedule).__name__}."
        )
    config = learning_rate_schedule.get_config()
    if use_legacy_format:
        return {"class_name": type(learning_rate_schedule).__name__, "config": config}
    if type(learning_rate_schedule) in _BUILTINS:
        return {
            "module": _MODULE,
            "class_name": type(learning_rate_schedule).__name__,
            "config": config,
            "registered_name": None,
        }
    return _registry.serialize_keras_object(learning_rate_schedule)


def deserialize(
    config: dict[str, Any], custom_objects: dict[str, Any] | None = None, use_legacy_format: bool = False
) -> LearningRateSchedule:
    """Instantiates a `LearningRateSchedule` from its serialized form.

    `config` is a dict `{'class_name': str, 'config': dict}` (as written by
    `serialize`); custom schedules are found through `custom_objects` or
    `tf.keras.saving.register_keras_serializable`. Returns the schedule.
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(
            "`deserialize` expects a dict with 'class_name' and 'config' keys, as written by "
            f"tf.keras.optimizers.schedules.serialize(). Received: {config!r}."
        )
    schedule = _registry.deserialize_keras_object(config, custom_objects=custom_objects)
    if not isinstance(schedule, LearningRateSchedule):
        raise ValueError(
            f"Class {config['class_name']!r} is not a LearningRateSchedule (got "
            f"{type(schedule).__name__}). Pass a learning-rate schedule config."
        )
    return schedule
