"""`tf.keras.dtensor.experimental.optimizers`: the DTensor optimizers -- not provided.

`Adadelta`, `Adagrad`, `Adam`, `AdamW`, `RMSprop` and `SGD` here raise NotImplementedError
naming DTensor; use `tf.keras.optimizers.<name>` with a `tf.distribute` strategy instead.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "RMSprop", "SGD"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from torchestimator.keras.dtensor._refusal import (  # lazy: keras.dtensor._refusal imports this module at load time
            dtensor_unavailable,
        )

        raise dtensor_unavailable(f"experimental.optimizers.{name}")
    raise AttributeError(
        f"module 'torchestimator.keras.dtensor.experimental.optimizers' has no attribute {name!r}"
    )
