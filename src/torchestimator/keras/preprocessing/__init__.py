"""`tf.keras.preprocessing`: Keras 2.15's legacy preprocessing namespace. `sequence` holds
`pad_sequences`, `image` the image utilities (`load_img`, `smart_resize`, ...), `text` the
`Tokenizer` and its helpers; the dataset builders `image_dataset_from_directory`,
`text_dataset_from_directory` and `timeseries_dataset_from_array` are the same functions as
`tf.keras.utils`'. A submodule loads on first use (a module file here is one)."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__all__ = [
    "image", "image_dataset_from_directory", "sequence", "text", "text_dataset_from_directory",
    "timeseries_dataset_from_array",
]

_FUNCTIONS = {
    "image_dataset_from_directory": "torchestimator.keras.utils._dataset_from_directory",
    "text_dataset_from_directory": "torchestimator.keras.utils._dataset_from_directory",
    "timeseries_dataset_from_array": "torchestimator.keras.utils._timeseries",
}


def __getattr__(name: str) -> Any:
    if name in _FUNCTIONS:
        value = getattr(importlib.import_module(_FUNCTIONS[name]), name)
    elif name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    else:
        value = importlib.import_module(f"{__name__}.{name}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
