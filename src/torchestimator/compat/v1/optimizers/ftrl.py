"""TF1's `FtrlOptimizer` (`ApplyFtrl`, `ApplyFtrlV2` with l2 shrinkage): the rule of Keras'
FTRL kernel (see `keras/optimizers/ftrl.py`); TF1's slots are `accum` and `linear`, saved as
`<var>/Ftrl` and `<var>/Ftrl_1` (or `accum_name`/`linear_name`)."""

from __future__ import annotations

from typing import Any

from torchestimator.compat.v1.optimizers._base import V1Optimizer, V1OptimizerMeta
from torchestimator.keras.optimizers import ftrl


class FtrlOptimizer(V1Optimizer, ftrl.Ftrl, metaclass=V1OptimizerMeta):
    """TF1 `tf.compat.v1.train.FtrlOptimizer(learning_rate, learning_rate_power=-0.5,
    initial_accumulator_value=0.1, l1_regularization_strength=0.0,
    l2_regularization_strength=0.0, use_locking=False, name='Ftrl', accum_name=None,
    linear_name=None, l2_shrinkage_regularization_strength=0.0, beta=None)`."""

    _tf1_slots = {"accum": "accumulator", "linear": "linear"}

    def __init__(self, learning_rate: Any, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "Ftrl", accum_name: str | None = None, linear_name: str | None = None,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float | None = None):
        super().__init__(
            learning_rate=learning_rate, learning_rate_power=learning_rate_power,
            initial_accumulator_value=initial_accumulator_value,
            l1_regularization_strength=l1_regularization_strength,
            l2_regularization_strength=l2_regularization_strength,
            l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength,
            beta=beta or 0.0, name=name,
        )
        self._v1_slot_names = {"accumulator": accum_name or "{name}", "linear": linear_name or "{name}_1"}
