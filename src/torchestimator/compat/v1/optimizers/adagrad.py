"""TF1's `AdagradOptimizer` (`ApplyAdagrad`): no epsilon at all.

    accumulator += grad^2
    var -= learning_rate * grad / sqrt(accumulator)

Keras' Adagrad kernel with epsilon 0 (inside the square root) is exactly that.
"""

from __future__ import annotations

from typing import Any

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers import adagrad


class AdagradOptimizer(V1Optimizer, adagrad.Adagrad, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.AdagradOptimizer(learning_rate, initial_accumulator_value=0.1,
    use_locking=False, name='Adagrad')`."""

    _v1_slot_names = {"accumulator": "{name}"}
    _tf1_slots = {"accumulator": "accumulator"}

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value, epsilon=0.0, name=name)
