"""TF1's optimizers (`tf.compat.v1.train.*Optimizer`) with TF1's update rules, one per file."""

from torchestimator.compat.v1.optimizers._base import V1Optimizer
from torchestimator.compat.v1.optimizers.adadelta import AdadeltaOptimizer
from torchestimator.compat.v1.optimizers.adagrad import AdagradOptimizer
from torchestimator.compat.v1.optimizers.adam import AdamOptimizer
from torchestimator.compat.v1.optimizers.ftrl import FtrlOptimizer
from torchestimator.compat.v1.optimizers.gradient_descent import GradientDescentOptimizer
from torchestimator.compat.v1.optimizers.momentum import MomentumOptimizer
from torchestimator.compat.v1.optimizers.proximal_adagrad import ProximalAdagradOptimizer
from torchestimator.compat.v1.optimizers.proximal_gradient_descent import (
    ProximalGradientDescentOptimizer,
)
from torchestimator.compat.v1.optimizers.rmsprop import RMSPropOptimizer

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "V1Optimizer",
]
