"""TF1's learning-rate decay functions (`tf.compat.v1.train.exponential_decay`, ...).

Inside an Estimator's `model_fn` (TF1's graph) each returns the decayed learning rate for
the current global step as a float32 scalar tensor; the model_fn runs again at every step,
so an optimizer built with it (`GradientDescentOptimizer(learning_rate)`) trains with the
rate of that step. Outside a model_fn (TF2's eager execution) each returns, as TF does, a
function of no arguments that computes the decayed rate when called (reading the global
step then, when it is a variable).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from torchestimator._engine.model_fn_context import in_model_fn


def _float(value: Any) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach().to(device="cpu", dtype=torch.float32).reshape(())
    return torch.tensor(float(value), dtype=torch.float32)


def _step(global_step: Any, name: str) -> torch.Tensor:
    if global_step is None:
        raise ValueError(f"global_step is required for {name} (None values not supported); pass "
                         "tf.compat.v1.train.get_global_step() inside a model_fn.")
    return _float(global_step)


def _deliver(compute: Callable[[], torch.Tensor]) -> Any:
    """The rate now inside a model_fn (graph mode), else TF's eager callable."""
    if in_model_fn():
        return compute()
    return compute


def _check_steps(value: Any, arg: str, name: str) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
        raise ValueError(f"{name}: {arg} must be positive; got {value!r}")


def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Any:
    """Applies exponential decay to the learning rate:
    `learning_rate * decay_rate ** (global_step / decay_steps)` (the exponent floored when
    `staircase`). Returns the decayed rate (a float32 scalar tensor inside a model_fn; a
    no-argument function of it under eager execution)."""
    _step(global_step, "exponential_decay")
    _check_steps(decay_steps, "decay_steps", "exponential_decay")

    def compute() -> torch.Tensor:
        p = _step(global_step, "exponential_decay") / _float(decay_steps)
        if staircase:
            p = torch.floor(p)
        return _float(learning_rate) * torch.pow(_float(decay_rate), p)

    return _deliver(compute)


def natural_exp_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Any:
    """Applies natural exponential decay to the initial learning rate:
    `learning_rate * exp(-decay_rate * global_step / decay_steps)` (the step ratio floored
    when `staircase`)."""
    _step(global_step, "natural_exp_decay")
    _check_steps(decay_steps, "decay_steps", "natural_exp_decay")

    def compute() -> torch.Tensor:
        p = _step(global_step, "natural_exp_decay") / _float(decay_steps)
        if staircase:
            p = torch.floor(p)
        return _float(learning_rate) * torch.pow(torch.exp(-_float(decay_rate)), p)

    return _deliver(compute)


def inverse_time_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                       staircase: bool = False, name: str | None = None) -> Any:
    """Applies inverse time decay to the initial learning rate:
    `learning_rate / (1 + decay_rate * global_step / decay_steps)` (the step ratio floored
    when `staircase`)."""
    _step(global_step, "inverse_time_decay")
    _check_steps(decay_steps, "decay_steps", "inverse_time_decay")

    def compute() -> torch.Tensor:
        p = _step(global_step, "inverse_time_decay") / _float(decay_steps)
        if staircase:
            p = torch.floor(p)
        return _float(learning_rate) / (1 + _float(decay_rate) * p)

    return _deliver(compute)


def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                     end_learning_rate: Any = 0.0001, power: Any = 1.0, cycle: bool = False,
                     name: str | None = None) -> Any:
    """Applies a polynomial decay to the learning rate: `(learning_rate - end_learning_rate)
    * (1 - step / decay_steps) ** power + end_learning_rate`, with `step` capped at
    `decay_steps`, or with `cycle` the decay restarted every `decay_steps` (stretched to the
    next multiple of `decay_steps` above the step)."""
    _step(global_step, "polynomial_decay")
    _check_steps(decay_steps, "decay_steps", "polynomial_decay")

    def compute() -> torch.Tensor:
        step = _step(global_step, "polynomial_decay")
        steps = _float(decay_steps)
        if cycle:
            multiplier = torch.where(step == 0, torch.ones_like(step), torch.ceil(step / steps))
            steps = steps * multiplier
        else:
            step = torch.minimum(step, steps)
        p = step / steps
        end = _float(end_learning_rate)
        return (_float(learning_rate) - end) * torch.pow(1 - p, _float(power)) + end

    return _deliver(compute)


def piecewise_constant(x: Any, boundaries: list, values: list, name: str | None = None) -> Any:
    """Piecewise constant from boundaries and interval values: `values[0]` while `x <=
    boundaries[0]`, `values[1]` while `boundaries[0] < x <= boundaries[1]`, ..., and
    `values[-1]` after `boundaries[-1]`."""
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    if x is None:
        raise ValueError("piecewise_constant: x (the global step) is required (None values not supported).")

    def compute() -> torch.Tensor:
        step = float(_float(x)) if not isinstance(x, int) else x
        index = sum(1 for b in boundaries if step > float(b))
        value = values[index]
        if isinstance(value, torch.Tensor):
            return value.detach().reshape(())
        return torch.tensor(value, dtype=torch.float32 if isinstance(value, float) else None)

    return _deliver(compute)


piecewise_constant_decay = piecewise_constant


def cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, alpha: Any = 0.0,
                 name: str | None = None) -> Any:
    """Applies cosine decay to the learning rate: `learning_rate * ((1 - alpha) * 0.5 * (1 +
    cos(pi * step / decay_steps)) + alpha)`, with `step` capped at `decay_steps`."""
    _step(global_step, "cosine_decay")
    _check_steps(decay_steps, "decay_steps", "cosine_decay")

    def compute() -> torch.Tensor:
        steps = _float(decay_steps)
        step = torch.minimum(_step(global_step, "cosine_decay"), steps)
        cosine = 0.5 * (1.0 + torch.cos(math.pi * step / steps))
        a = _float(alpha)
        return _float(learning_rate) * ((1 - a) * cosine + a)

    return _deliver(compute)


def cosine_decay_restarts(learning_rate: Any, global_step: Any, first_decay_steps: Any,
                          t_mul: Any = 2.0, m_mul: Any = 1.0, alpha: Any = 0.0,
                          name: str | None = None) -> Any:
    """Applies cosine decay with restarts (SGDR) to the learning rate: a cosine decay over
    `first_decay_steps`, then restarts whose length is multiplied by `t_mul` and whose
    initial rate is multiplied by `m_mul` at each restart; `alpha` is the floor (a fraction
    of `learning_rate`)."""
    _step(global_step, "cosine_decay_restarts")
    _check_steps(first_decay_steps, "first_decay_steps", "cosine_decay_restarts")

    def compute() -> torch.Tensor:
        fraction = _step(global_step, "cosine_decay_restarts") / _float(first_decay_steps)
        t = _float(t_mul)
        if float(t) == 1.0:
            i_restart = torch.floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = torch.floor(torch.log(1.0 - fraction * (1.0 - t)) / torch.log(t))
            sum_r = (1.0 - t ** i_restart) / (1.0 - t)
            fraction = (fraction - sum_r) / t ** i_restart
        m_fac = _float(m_mul) ** i_restart
        cosine = 0.5 * m_fac * (1.0 + torch.cos(math.pi * fraction))
        a = _float(alpha)
        return _float(learning_rate) * ((1 - a) * cosine + a)

    return _deliver(compute)


def _linear_cosine(global_step: Any, decay_steps: Any, num_periods: Any, name: str) -> tuple:
    steps = _float(decay_steps)
    step = torch.minimum(_step(global_step, name), steps)
    linear = (steps - step) / steps
    fraction = 2.0 * _float(num_periods) * step / steps
    cosine = 0.5 * (1.0 + torch.cos(math.pi * fraction))
    return step, linear, cosine


def linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, num_periods: Any = 0.5,
                        alpha: Any = 0.0, beta: Any = 0.001, name: str | None = None) -> Any:
    """Applies linear cosine decay to the learning rate: `learning_rate * ((alpha + linear)
    * cosine + beta)` with `linear = (decay_steps - step) / decay_steps` and `cosine = 0.5 *
    (1 + cos(pi * 2 * num_periods * step / decay_steps))`, `step` capped at `decay_steps`."""
    _step(global_step, "linear_cosine_decay")
    _check_steps(decay_steps, "decay_steps", "linear_cosine_decay")

    def compute() -> torch.Tensor:
        _, linear, cosine = _linear_cosine(global_step, decay_steps, num_periods, "linear_cosine_decay")
        return _float(learning_rate) * ((_float(alpha) + linear) * cosine + _float(beta))

    return _deliver(compute)


def noisy_linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                              initial_variance: Any = 1.0, variance_decay: Any = 0.55,
                              num_periods: Any = 0.5, alpha: Any = 0.0, beta: Any = 0.001,
                              name: str | None = None) -> Any:
    """Applies noisy linear cosine decay to the learning rate: `linear_cosine_decay` with
    Gaussian noise of variance `initial_variance / (1 + step) ** variance_decay` added to the
    linear term (drawn from torch's global generator: seed it with `tf.random.set_seed`)."""
    _step(global_step, "noisy_linear_cosine_decay")
    _check_steps(decay_steps, "decay_steps", "noisy_linear_cosine_decay")

    def compute() -> torch.Tensor:
        step, linear, cosine = _linear_cosine(global_step, decay_steps, num_periods,
                                              "noisy_linear_cosine_decay")
        variance = _float(initial_variance) / torch.pow(1.0 + step, _float(variance_decay))
        noisy = linear + torch.randn(()) * torch.sqrt(variance)
        return _float(learning_rate) * ((_float(alpha) + noisy) * cosine + _float(beta))

    return _deliver(compute)
