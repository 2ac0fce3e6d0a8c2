"""`tf.autograph`: AutoGraph converts Python control flow into TensorFlow graph ops. Here every
function runs eagerly on PyTorch (`tf.function` included), so there is nothing to convert:
`to_graph` returns the function itself, `to_code` its source, `set_verbosity` records the level
(`get_verbosity`) and `trace` prints its arguments, as TensorFlow's eager `trace` does."""

from __future__ import annotations

import inspect
from typing import Any

from torchestimator.autograph import experimental

_verbosity = 0


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """Sets the AutoGraph verbosity level (kept for `get_verbosity`; nothing is converted here,
    so nothing is logged)."""
    global _verbosity
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError(f"set_verbosity(level): level must be a non-negative int; received {level!r}.")
    _verbosity = level


def get_verbosity() -> int:
    """Returns the level `set_verbosity` set (0 by default)."""
    return _verbosity


def trace(*args: Any) -> None:
    """Prints `args` (TensorFlow's `tf.autograph.trace` prints them when the code runs eagerly,
    as all code does here)."""
    print(*args)


def to_graph(entity: Any, recursive: bool = True, experimental_optional_features: Any = None) -> Any:
    """Returns `entity` unchanged: functions run eagerly on PyTorch, with Python control flow
    as it is (TensorFlow returns the converted function)."""
    if not callable(entity):
        raise ValueError(f"to_graph(entity): entity must be a function or class; received {entity!r}.")
    return entity


def to_code(entity: Any, recursive: bool = True, experimental_optional_features: Any = None) -> str:
    """Returns the source code of `entity` (nothing is converted: it is the code that runs)."""
    if not callable(entity):
        raise ValueError(f"to_code(entity): entity must be a function or class; received {entity!r}.")
    return inspect.getsource(entity)


__all__ = ["experimental", "set_verbosity", "to_code", "to_graph", "trace"]
