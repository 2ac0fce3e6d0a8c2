"""`tf.keras.dtensor.experimental.optimizers`: the DTensor optimizers -- not provided.

`Adadelta`, `Adagrad`, `Adam`, `AdamW`, `RMSprop` and `SGD` here raise NotImplementedError
naming DTensor; use `tf.keras.optimizers.<name>` with a `tf.distribute` strategy instead.
"""

from __future__ import annotations

from typing import Any

from torchestimator.keras.dtensor._refusal import dtensor_unavailable as _dtensor_unavailable

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "RMSprop", "SGD"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        raise _dtensor_unavailable(f"experimental.optimizers.{name}")
    raise AttributeError(
        f"module 'torchestimator.keras.dtensor.experimental.optimizers' has no attribute {name!r}"
    )
