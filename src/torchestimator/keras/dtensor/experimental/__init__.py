"""`tf.keras.dtensor.experimental`: `LayoutMap` and `optimizers` -- DTensor, not provided.

Using either raises NotImplementedError naming DTensor and pointing to `tf.distribute`.
"""

from __future__ import annotations

from typing import Any

from torchestimator.keras.dtensor._refusal import dtensor_unavailable as _dtensor_unavailable
from torchestimator.keras.dtensor.experimental import optimizers

__all__ = ["LayoutMap", "optimizers"]


def __getattr__(name: str) -> Any:
    if name == "LayoutMap":
        raise _dtensor_unavailable("experimental.LayoutMap")
    raise AttributeError(f"module 'torchestimator.keras.dtensor.experimental' has no attribute {name!r}")
