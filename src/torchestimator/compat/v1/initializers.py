"""`tf.compat.v1.initializers`: TF1's initializer namespace (TF 2.15's), not Keras'.

The classes are TF1's (`tf.compat.v1.random_normal_initializer`, ...: TF1's defaults, a
`dtype` argument, `partition_info` in the call): `tf.compat.v1.initializers.random_normal()`
draws with stddev 1.0 and `random_uniform()` on [0, 1), where Keras' draw with 0.05. The
`he_*` / `lecun_*` functions return TF1's variance-scaling initializers, and
`global_variables`, `local_variables`, `variables`, `tables_initializer` are the no-op
variable initializers of `tf.compat.v1` (a variable is initialized when it is made).
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.compat.v1._legacy_ops import _initialized
from torchestimator.compat.v1._tf1_extras import (
    uniform_unit_scaling_initializer as uniform_unit_scaling,
)
from torchestimator.compat.v1._tf1_initializers import (
    _dtype_or,
)
from torchestimator.compat.v1._tf1_initializers import (
    constant_initializer as constant,
)
from torchestimator.compat.v1._tf1_initializers import (
    glorot_normal_initializer as glorot_normal,
)
from torchestimator.compat.v1._tf1_initializers import (
    glorot_uniform_initializer as glorot_uniform,
)
from torchestimator.compat.v1._tf1_initializers import (
    ones_initializer as ones,
)
from torchestimator.compat.v1._tf1_initializers import (
    orthogonal_initializer as orthogonal,
)
from torchestimator.compat.v1._tf1_initializers import (
    random_normal_initializer as random_normal,
)
from torchestimator.compat.v1._tf1_initializers import (
    random_uniform_initializer as random_uniform,
)
from torchestimator.compat.v1._tf1_initializers import (
    truncated_normal_initializer as truncated_normal,
)
from torchestimator.compat.v1._tf1_initializers import (
    variance_scaling_initializer as variance_scaling,
)
from torchestimator.compat.v1._tf1_initializers import (
    zeros_initializer as zeros,
)
from torchestimator.keras import initializers as _init


class identity(_init.Identity):  # noqa: N801 (TF1's class name)
    """TF1 `tf.compat.v1.initializers.identity(gain=1.0, dtype=tf.float32)`: `gain` times the
    identity matrix (2-D shapes)."""

    def __init__(self, gain: float = 1.0, dtype: Any = torch.float32) -> None:
        super().__init__(gain=gain)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


def he_normal(seed: int | None = None) -> variance_scaling:
    """He normal initializer: truncated normal with stddev `sqrt(2 / fan_in)`."""
    return variance_scaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed: int | None = None) -> variance_scaling:
    """He uniform initializer: uniform in `[-limit, limit]`, `limit = sqrt(6 / fan_in)`."""
    return variance_scaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


def lecun_normal(seed: int | None = None) -> variance_scaling:
    """LeCun normal initializer: truncated normal with stddev `sqrt(1 / fan_in)`."""
    return variance_scaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed: int | None = None) -> variance_scaling:
    """LeCun uniform initializer: uniform in `[-limit, limit]`, `limit = sqrt(3 / fan_in)`."""
    return variance_scaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


global_variables = _initialized
local_variables = _initialized
variables = _initialized
tables_initializer = _initialized

__all__ = ["constant", "global_variables", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
           "identity", "lecun_normal", "lecun_uniform", "local_variables", "ones", "orthogonal",
           "random_normal", "random_uniform", "tables_initializer", "truncated_normal", "uniform_unit_scaling",
           "variables", "variance_scaling", "zeros"]
