"""`tf.autograph.experimental`: AutoGraph's options. Code runs eagerly here, so these keep
TensorFlow's signatures and leave the functions as they are."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any


class Feature(enum.Enum):
    """The optional AutoGraph conversions (`tf.autograph.experimental.Feature`)."""

    ALL = "ALL"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def do_not_convert(func: Callable | None = None) -> Any:
    """Marks `func` as not to be converted by AutoGraph; returns it (as a decorator too)."""
    if func is None:
        return lambda f: f
    return func


def set_loop_options(parallel_iterations: Any = None, swap_memory: Any = None,
                     maximum_iterations: Any = None, shape_invariants: Any = None) -> None:
    """Specifies options for the loop it is called in (graph-loop tuning: no effect eagerly)."""


__all__ = ["Feature", "do_not_convert", "set_loop_options"]
