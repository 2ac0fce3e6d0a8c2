"""Process-wide Keras state: unique layer names, default float type, epsilon."""

from __future__ import annotations

import collections
import re
import threading

import numpy as np
import torch

from torchestimator import _variable
from torchestimator._engine.object_scope import current_scope

_LOCK = threading.Lock()
_NAME_COUNTS: collections.Counter[str] = collections.Counter()
_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_CLEAR_SESSION_CALLBACKS: list = []


def _snake_case(name: str) -> str:
    """Keras' name rule: `Conv2D` -> `conv2d`, `MaxPooling2D` -> `max_pooling2d`, `PReLU` -> `p_re_lu`."""
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def get_uid(prefix: str = "") -> int:
    """Returns a counter for `prefix`: 1 on the first call, then 2, 3, ... (Keras' `get_uid`)."""
    with _LOCK:
        _NAME_COUNTS[prefix] += 1
        return _NAME_COUNTS[prefix]


def unique_object_name(class_name: str, zero_based: bool = True) -> str:
    """Returns Keras' default name for a new object: `dense`, then `dense_1`, `dense_2`, ...

    With `zero_based=False` the first name is numbered too (`input_1`, `input_2`, as Keras
    names inputs).
    """
    base = _snake_case(class_name)

    scope = current_scope()
    if scope is not None:  # inside an Estimator's model_fn: names restart per model
        return scope.unique_name(base, zero_based)
    n = get_uid(base)
    if not zero_based:
        return f"{base}_{n}"
    return base if n == 1 else f"{base}_{n - 1}"


def clear_session() -> None:
    """Resets the global state: default layer names start again from `dense`, `dense_1`, ...,
    and default `tf.Variable` names from `Variable`, `Variable_1`, ..."""

    with _LOCK:
        _NAME_COUNTS.clear()
        _variable._NAME_COUNTS.clear()
    for fn in list(_CLEAR_SESSION_CALLBACKS):
        fn()


def floatx() -> str:
    """Returns the default float type as a string, 'float32' unless changed."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Sets the default float type ('float16', 'bfloat16', 'float32' or 'float64')."""
    global _FLOATX
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(
            f"Unknown `floatx` value: {value}. "
            "Expected one of {'float16', 'bfloat16', 'float32', 'float64'}"
        )
    _FLOATX = value


def epsilon() -> float:
    """Returns the fuzz factor used in numeric expressions (1e-7, as Keras)."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Sets the fuzz factor returned by `epsilon()`."""
    global _EPSILON
    _EPSILON = float(value)


def image_data_format() -> str:
    """Returns the default image layout, 'channels_last' unless changed."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Sets the default image layout: 'channels_last' or 'channels_first'."""
    global _IMAGE_DATA_FORMAT
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"Unknown `data_format`: {data_format}. "
            "Expected one of {'channels_last', 'channels_first'}"
        )
    _IMAGE_DATA_FORMAT = str(data_format)


def get_value(x: object) -> object:
    """Returns the value of a variable, tensor or optimizer hyperparameter as numpy / Python."""
    if hasattr(x, "numpy"):
        return x.numpy()
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return x


def set_value(x: object, value: object) -> None:
    """Sets a variable (a weight, a metric state, an optimizer's learning rate) to `value`."""
    if hasattr(x, "assign"):
        x.assign(value)
        return

    if isinstance(x, torch.Tensor):
        with torch.no_grad():
            x.copy_(torch.as_tensor(np.asarray(value), dtype=x.dtype))
        return
    raise TypeError(f"set_value() needs a variable or tensor; received {type(x).__name__}")
