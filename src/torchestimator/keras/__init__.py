"""`tf.keras`: layers, models, training, saving — Keras' API on PyTorch.

Every layer and model is a `torch.nn.Module`; `compile`/`fit` run on the
project's one training loop. Sub-namespaces load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBMODULES = (
    "activations", "backend", "callbacks", "constraints", "initializers", "layers", "losses",
    "metrics", "models", "optimizers", "regularizers", "saving", "utils", "estimator",
    "experimental", "mixed_precision", "preprocessing", "datasets", "applications", "export", "dtensor",
)
_ATTRIBUTES = {
    "Input": "torchestimator.keras.engine.input_layer",
    "Model": "torchestimator.keras.engine.model",
    "Sequential": "torchestimator.keras.engine.sequential",
}

__all__ = sorted(_SUBMODULES + tuple(_ATTRIBUTES))


def __getattr__(name: str) -> Any:
    if name in _ATTRIBUTES:
        value = getattr(importlib.import_module(_ATTRIBUTES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"torchestimator.keras.{name}")
    else:
        raise AttributeError(f"module 'torchestimator.keras' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(__all__))
