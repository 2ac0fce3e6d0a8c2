"""`tf.keras.estimator`: `model_to_estimator`, a compiled Keras model as an Estimator.

The function lives in `torchestimator.estimator` (the Estimator sits above Keras,
docs/design.md section 8); this namespace re-exports it lazily, as Keras 2 re-exports
`tensorflow_estimator`'s, so that importing `tf.keras` never imports the Estimator.
"""

from typing import Any

__all__ = ["model_to_estimator"]


def __getattr__(name: str) -> Any:
    if name == "model_to_estimator":
        from torchestimator.estimator._model_to_estimator import (  # lazy: upward dependency (keras → estimator), loaded when used
            model_to_estimator,  # lazy re-export (see above)
        )

        return model_to_estimator
    raise AttributeError(f"module 'tf.keras.estimator' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
