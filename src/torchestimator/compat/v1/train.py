"""`tf.compat.v1.train`: TF1 optimizer names over the Keras optimizers, and the global step.

Inside a `model_fn`, `minimize(loss, global_step=...)` returns the train op
the Estimator runs (`global_step` is accepted; the Estimator advances it).
"""

from __future__ import annotations

from typing import Any

from torchestimator.keras import optimizers as _opt
from torchestimator.train import get_global_step, get_or_create_global_step  # noqa: F401


class _V1Mixin:
    # TF1's slot names (`<variable>/<name>` in a checkpoint), as templates over the optimizer's name.
    _v1_slot_names: dict[str, str] = {}

    def checkpoint_slot_name(self, slot: str) -> str:
        """TF1's name of slot `slot` of a variable: `<optimizer name>`, `<optimizer name>_1`, ..."""
        return self._v1_slot_names.get(slot, "{name}_" + slot).format(name=self.name)

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None, **kwargs: Any) -> Any:
        """Returns the train op minimizing `loss` over `var_list` (default: every trainable
        weight the loss depends on). Inside a model_fn in EVAL or PREDICT mode the op is made
        but never run, as a TF graph's train op there."""
        from torchestimator._engine.object_scope import current_scope

        scope = current_scope()
        if scope is not None and scope.extra.get("mode") in ("eval", "infer"):
            from torchestimator._engine.train_op import TrainOp

            return TrainOp([(self, loss, var_list)])
        return super().minimize(loss, var_list=var_list)


class GradientDescentOptimizer(_V1Mixin, _opt.SGD):
    """TF1 `GradientDescentOptimizer(learning_rate)`: plain SGD."""

    def __init__(self, learning_rate: float, use_locking: bool = False, name: str = "GradientDescent"):
        super().__init__(learning_rate=learning_rate, name=name)


class MomentumOptimizer(_V1Mixin, _opt.SGD):
    """TF1 `MomentumOptimizer(learning_rate, momentum, use_nesterov=False)`."""

    _v1_slot_names = {"m": "{name}"}

    def __init__(self, learning_rate: float, momentum: float, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False):
        super().__init__(learning_rate=learning_rate, momentum=momentum, nesterov=use_nesterov, name=name)


class AdagradOptimizer(_V1Mixin, _opt.Adagrad):
    """TF1 `AdagradOptimizer(learning_rate, initial_accumulator_value=0.1)`."""

    _v1_slot_names = {"accumulator": "{name}"}

    def __init__(self, learning_rate: float, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad"):
        super().__init__(learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value, name=name)


class AdamOptimizer(_V1Mixin, _opt.Adam):
    """TF1 `AdamOptimizer(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08)`."""

    _v1_slot_names = {"m": "{name}", "v": "{name}_1"}

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-08, use_locking: bool = False, name: str = "Adam"):
        super().__init__(learning_rate=learning_rate, beta_1=beta1, beta_2=beta2, epsilon=epsilon, name=name)


class RMSPropOptimizer(_V1Mixin, _opt.RMSprop):
    """TF1 `RMSPropOptimizer(learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False)`."""

    _v1_slot_names = {"velocity": "{name}", "momentum": "{name}_1", "average_gradient": "{name}_2"}

    def __init__(self, learning_rate: float, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp"):
        super().__init__(learning_rate=learning_rate, rho=decay, momentum=momentum, epsilon=epsilon,
                         centered=centered, name=name)


class FtrlOptimizer(_V1Mixin, _opt.Ftrl):
    """TF1 `FtrlOptimizer(learning_rate, learning_rate_power=-0.5, ...)`."""

    def __init__(self, learning_rate: float, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False, name: str = "Ftrl",
                 accum_name: Any = None, linear_name: Any = None,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: Any = None):
        super().__init__(
            learning_rate=learning_rate, learning_rate_power=learning_rate_power,
            initial_accumulator_value=initial_accumulator_value,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
            l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength,
            beta=beta or 0.0, name=name,
        )
        self._v1_slot_names = {"accumulator": accum_name or "{name}", "linear": linear_name or "{name}_1"}

_HOOKS = (
    "CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook",
    "GlobalStepWaiterHook", "LoggingTensorHook", "NanLossDuringTrainingError", "NanTensorHook",
    "ProfilerHook", "SecondOrStepTimer", "SessionRunArgs", "SessionRunContext", "SessionRunHook",
    "SessionRunValues", "StepCounterHook", "StopAtStepHook", "SummarySaverHook",
)


def __getattr__(name: str) -> Any:
    """`tf.compat.v1.train.<Hook>`: the session-run hooks, shared with `tf.estimator`."""
    if name in _HOOKS:
        from torchestimator.estimator import hooks

        return getattr(hooks, name)
    raise AttributeError(f"module 'torchestimator.compat.v1.train' has no attribute {name!r}")
