"""`tf.compat.v1.train.experimental`: TF1's loss scaling (`LossScale`, `FixedLossScale`,
`DynamicLossScale`), `MixedPrecisionLossScaleOptimizer` over a TF1 optimizer,
`enable_mixed_precision_graph_rewrite` / `disable_...`, and `PythonState`."""

from __future__ import annotations

import abc
import types
import warnings
from typing import Any

import torch

from torchestimator._ops import nest
from torchestimator._ops.control_ops._context import NoOp
from torchestimator.compat.v1.optimizers._base import GATE_OP, V1Optimizer


class LossScale(abc.ABC):
    """Base class for all TF1 loss scales (TF's `tf.compat.v1.train.experimental.LossScale`):
    `loss_scale()` is the current scale, `update(grads)` returns `(update_op,
    should_apply_gradients)`."""

    @abc.abstractmethod
    def __call__(self) -> torch.Tensor:
        """Returns the loss scale as a scalar float32 tensor."""

    @abc.abstractmethod
    def update(self, grads: Any) -> tuple[Any, Any]:
        """Updates the loss scale from `grads`; returns (update op, whether to apply them)."""

    @abc.abstractmethod
    def get_config(self) -> dict:
        """The constructor arguments."""

    @classmethod
    def from_config(cls, config: dict) -> LossScale:
        """Creates the LossScale from its config."""
        return cls(**config)


def _all_finite(grads: list) -> bool:
    return all(bool(torch.isfinite(g).all()) for g in grads if isinstance(g, torch.Tensor))


class FixedLossScale(LossScale):
    """Loss scale with a fixed value (TF's `FixedLossScale(loss_scale_value)`)."""

    def __init__(self, loss_scale_value: float):
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError(f"loss_scale_value must be a Python int or float, got {loss_scale_value!r}")
        if loss_scale_value < 1:
            raise ValueError(f"loss_scale_value must be at least 1, got {loss_scale_value}")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self) -> torch.Tensor:
        return torch.tensor(self._loss_scale_value)

    def update(self, grads: Any) -> tuple[None, bool]:
        """Nothing to update; gradients are always applied."""
        return None, True

    def get_config(self) -> dict:
        return {"loss_scale_value": self._loss_scale_value}


class DynamicLossScale(LossScale):
    """Loss scale that dynamically adjusts itself (TF's `DynamicLossScale(initial_loss_scale=2**15,
    increment_period=2000, multiplier=2.0)`): multiplied by `multiplier` after `increment_period`
    steps of finite gradients, divided by it (not below 1) at a step with a non-finite one
    (whose gradients are then skipped)."""

    def __init__(self, initial_loss_scale: float = 2 ** 15, increment_period: int = 2000, multiplier: float = 2.0):
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._initial_loss_scale
        self._num_good_steps = 0

    @property
    def initial_loss_scale(self) -> float:
        """The initial scale."""
        return self._initial_loss_scale

    @property
    def increment_period(self) -> int:
        """Good steps between increases."""
        return self._increment_period

    @property
    def multiplier(self) -> float:
        """The factor of each change."""
        return self._multiplier

    def __call__(self) -> torch.Tensor:
        return torch.tensor(self._current_loss_scale)

    def update(self, grads: Any) -> tuple[None, bool]:
        """Updates the scale from whether every gradient is finite; returns (None, finite)."""

        finite = _all_finite(nest.flatten(grads))
        if finite:
            if self._num_good_steps + 1 >= self._increment_period:
                new = self._current_loss_scale * self._multiplier
                if new != float("inf"):
                    self._current_loss_scale = new
                self._num_good_steps = 0
            else:
                self._num_good_steps += 1
        else:
            self._num_good_steps = 0
            self._current_loss_scale = max(self._current_loss_scale / self._multiplier, 1.0)
        return None, finite

    def get_config(self) -> dict:
        return {"initial_loss_scale": self._initial_loss_scale, "increment_period": self._increment_period,
                "multiplier": self._multiplier}


def _as_loss_scale(loss_scale: Any) -> LossScale:
    if isinstance(loss_scale, LossScale):
        return loss_scale
    if loss_scale == "dynamic":
        return DynamicLossScale()
    if isinstance(loss_scale, (int, float)):
        return FixedLossScale(loss_scale)
    raise ValueError(f"Invalid value for loss_scale: {loss_scale!r}: expected 'dynamic', a number or a LossScale.")


class MixedPrecisionLossScaleOptimizer:
    """An optimizer that applies loss scaling (TF1's `MixedPrecisionLossScaleOptimizer(opt,
    loss_scale)`): `compute_gradients` scales the loss and unscales the gradients;
    `apply_gradients` updates the loss scale and applies the gradients only when they are all
    finite (the global step advances only then, as TF's)."""

    def __init__(self, opt: Any, loss_scale: Any):
        if not isinstance(opt, V1Optimizer):
            raise ValueError('"opt" must be an instance of a tf.compat.v1.train.Optimizer, but got: '
                             f"{type(opt)}")
        self._optimizer = opt
        self._loss_scale = _as_loss_scale(loss_scale)
        self._name = opt.get_name()  # TF's wrapper takes the wrapped optimizer's name

    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: int = GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list:
        """The gradients of `loss` (scaled for the backward pass, returned unscaled)."""
        scale = self._loss_scale()
        if callable(loss) and not isinstance(loss, torch.Tensor):
            inner = loss

            def scaled() -> Any:
                value = inner()
                return value * scale.to(value.dtype)
            scaled_loss: Any = scaled
        else:
            scaled_loss = loss * scale.to(loss.dtype)
        pairs = self._optimizer.compute_gradients(scaled_loss, var_list=var_list, gate_gradients=gate_gradients,
                                                  aggregation_method=aggregation_method,
                                                  colocate_gradients_with_ops=colocate_gradients_with_ops,
                                                  grad_loss=grad_loss)
        return [(None if g is None else g / scale.to(g.dtype), v) for g, v in pairs]

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None, name: str | None = None) -> Any:
        """Updates the loss scale; applies the gradients when every one is finite."""
        pairs = list(grads_and_vars)
        _, should_apply = self._loss_scale.update([g for g, _ in pairs])
        if not should_apply:
            return NoOp()
        return self._optimizer.apply_gradients(pairs, global_step=global_step, name=name)

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None, gate_gradients: int = GATE_OP,
                 aggregation_method: Any = None, colocate_gradients_with_ops: bool = False, name: str | None = None,
                 grad_loss: Any = None) -> Any:
        """`compute_gradients` then `apply_gradients` (TF1's Optimizer.minimize)."""
        pairs = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                       aggregation_method=aggregation_method,
                                       colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        present = [(g, v) for g, v in pairs if g is not None]
        if not present:
            raise ValueError(f"No gradients provided for any variable: {[getattr(v, 'name', v) for _, v in pairs]}.")
        return self.apply_gradients(present, global_step=global_step, name=name)

    def get_slot(self, var: Any, name: str) -> Any:
        """The wrapped optimizer's slot."""
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self) -> list[str]:
        """The wrapped optimizer's slot names."""
        return self._optimizer.get_slot_names()

    def variables(self) -> list:
        """The wrapped optimizer's variables."""
        return self._optimizer.variables()

    def get_name(self) -> str:
        """The optimizer's name: the wrapped optimizer's (`opt.get_name()`), as TF's."""
        return self._name


def enable_mixed_precision_graph_rewrite(opt: Any, loss_scale: Any = "dynamic") -> MixedPrecisionLossScaleOptimizer:
    """TF1's `enable_mixed_precision_graph_rewrite(opt, loss_scale='dynamic')`: returns `opt` wrapped
    in a `MixedPrecisionLossScaleOptimizer`. TF's automatic float16 graph rewrite does not
    happen (there is no graph): a warning says to set `tf.keras.mixed_precision.set_global_policy(
    'mixed_float16')` or to run the model under `torch.autocast` for float16 compute."""
    warnings.warn("enable_mixed_precision_graph_rewrite: there is no graph to rewrite, so ops keep their dtypes; "
                  "the optimizer is wrapped for loss scaling. For float16 compute use "
                  "tf.keras.mixed_precision.set_global_policy('mixed_float16') or torch.autocast.",
                  UserWarning, stacklevel=2)
    return MixedPrecisionLossScaleOptimizer(opt, loss_scale)


def disable_mixed_precision_graph_rewrite() -> None:
    """TF1's `disable_mixed_precision_graph_rewrite()`: there is no rewrite to disable."""


class PythonState(abc.ABC):
    """A mixin for putting Python state in an object-based checkpoint (TF's `PythonState`):
    subclasses define `serialize()` -> str and `deserialize(string_value)`."""

    @abc.abstractmethod
    def serialize(self) -> str:
        """Returns the state as a string."""

    @abc.abstractmethod
    def deserialize(self, string_value: str) -> None:
        """Restores the state from `string_value`."""


__all__ = ["DynamicLossScale", "FixedLossScale", "LossScale", "MixedPrecisionLossScaleOptimizer", "PythonState",
           "disable_mixed_precision_graph_rewrite", "enable_mixed_precision_graph_rewrite"]


def _mixed_precision_module() -> Any:
    """`tf.compat.v1.mixed_precision`: the same loss scaling, under TF1's mixed-precision name."""

    module = types.ModuleType("torchestimator.compat.v1.mixed_precision",
                              "TF1's mixed precision: loss scaling and the graph-rewrite switches.")
    for name in ("DynamicLossScale", "FixedLossScale", "LossScale", "MixedPrecisionLossScaleOptimizer",
                 "disable_mixed_precision_graph_rewrite", "enable_mixed_precision_graph_rewrite"):
        setattr(module, name, globals()[name])
    module.experimental = types.SimpleNamespace(DynamicLossScale=DynamicLossScale, FixedLossScale=FixedLossScale,
                                                LossScale=LossScale)
    return module


mixed_precision = _mixed_precision_module()
