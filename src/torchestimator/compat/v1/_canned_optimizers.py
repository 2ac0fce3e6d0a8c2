"""TF1's optimizer defaults for the canned estimators of `tf.compat.v1.estimator`.

The core canned estimators (`estimator/canned`) resolve their `optimizer`
arguments through an `OptimizerDefaults`; TF2's is theirs, this module gives
TF1's: names are `tf.compat.v1.train.*Optimizer`s and need a learning rate,
the DNN's Adagrad runs at 0.05, the linear model's default is `FtrlOptimizer`.
"""

from __future__ import annotations

from typing import Any

from torchestimator.compat.v1 import optimizers as v1
from torchestimator.estimator.canned.optimizers import (
    OptimizerDefaults,
    get_optimizer_instance_from,
)

# The default learning rate of 0.05 is a historical artifact of the initial
# implementation (TF's comment); used for the TF1 DNN.
LEARNING_RATE = 0.05


def _classes() -> dict[str, type]:
    return {
        "Adagrad": v1.AdagradOptimizer,
        "Adam": v1.AdamOptimizer,
        "Ftrl": v1.FtrlOptimizer,
        "RMSProp": v1.RMSPropOptimizer,
        "SGD": v1.GradientDescentOptimizer,
    }


def get_optimizer_instance(opt: Any, learning_rate: float | None = None) -> Any:
    """Returns an optimizer instance, as TF1's canned estimators (`tf.compat.v1.estimator`) do.

    A string names a `tf.compat.v1.train` optimizer and needs `learning_rate`;
    an instance is returned; a callable is called. Raises ValueError otherwise.
    """
    return get_optimizer_instance_from(_classes(), opt, learning_rate)


TF1 = OptimizerDefaults(classes=_classes, resolve=get_optimizer_instance, dnn_learning_rate=LEARNING_RATE,
                        ftrl=v1.FtrlOptimizer)
