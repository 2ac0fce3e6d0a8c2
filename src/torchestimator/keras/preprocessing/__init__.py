"""`tf.keras.preprocessing`: Keras 2.15's legacy preprocessing namespace. `sequence` holds
`pad_sequences`, `image` the image utilities (`load_img`, `smart_resize`, ...); a submodule loads on first use (a module file here is one)."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__all__ = ["image", "sequence"]


def __getattr__(name: str) -> Any:
    if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = importlib.import_module(f"{__name__}.{name}")
    globals()[name] = value
    return value
