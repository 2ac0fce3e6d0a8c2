"""TF1's `GradientDescentOptimizer`: `var -= learning_rate * grad` (Keras' SGD kernel without
momentum computes exactly that)."""

from __future__ import annotations

from typing import Any

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers import sgd


class GradientDescentOptimizer(V1Optimizer, sgd.SGD, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.GradientDescentOptimizer(learning_rate, use_locking=False,
    name='GradientDescent')`: plain gradient descent, no slots."""

    def __init__(self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent"):
        super().__init__(learning_rate=learning_rate, name=name)
