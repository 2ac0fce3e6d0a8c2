"""AdamW: Adam with decoupled weight decay (Loshchilov & Hutter), Keras 2.15.

The decay is the base optimizer's `w -= w * weight_decay * lr`, applied before
the Adam update; the update is `adam.AdamKernel`.
"""

from __future__ import annotations

from typing import Any

from torchestimator.keras import _registry
from torchestimator.keras.optimizers.adam import Adam


class AdamW(Adam):
    """Optimizer that implements the AdamW algorithm.

    AdamW optimization is a stochastic gradient descent method that is based
    on adaptive estimation of first-order and second-order moments with an
    added method to decay weights ('Decoupled Weight Decay Regularization').

    Args:
      learning_rate: A float or a `LearningRateSchedule`. Defaults to 0.001.
      weight_decay: Float, required. Defaults to 0.004.
      beta_1, beta_2, epsilon, amsgrad: as for `Adam`.
      clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
      ema_overwrite_frequency, jit_compile, name: see
        `tf.keras.optimizers.Optimizer`.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        jit_compile: bool = True,
        name: str = "AdamW",
        **kwargs: Any,
    ) -> None:
        if weight_decay is None:
            raise ValueError("Missing value of `weight_decay` which is required and must be a float value.")
        super().__init__(
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=epsilon,
            amsgrad=amsgrad,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            jit_compile=jit_compile,
            name=name,
            **kwargs,
        )


_registry.register_builtin(AdamW)
