"""`tf.keras.dtensor.experimental`: `LayoutMap` and `optimizers` -- DTensor, not provided.

Using either raises NotImplementedError naming DTensor and pointing to `tf.distribute`.
"""

from __future__ import annotations

from typing import Any

from torchestimator.keras.dtensor.experimental import optimizers

__all__ = ["LayoutMap", "optimizers"]


def __getattr__(name: str) -> Any:
    if name == "LayoutMap":
        from torchestimator.keras.dtensor._refusal import (  # lazy: keras.dtensor._refusal imports this module at load time
            dtensor_unavailable,
        )

        raise dtensor_unavailable("experimental.LayoutMap")
    raise AttributeError(f"module 'torchestimator.keras.dtensor.experimental' has no attribute {name!r}")
