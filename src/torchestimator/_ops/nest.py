"""Flattening and rebuilding nested structures (lists, tuples, dicts) of values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def flatten(structure: Any) -> list:
    """Returns the leaves of `structure` in order (dicts by sorted key, as tf.nest)."""
    out: list = []
    _flatten_into(structure, out)
    return out


def _flatten_into(s: Any, out: list) -> None:
    if isinstance(s, dict):
        for k in sorted(s):
            _flatten_into(s[k], out)
    elif isinstance(s, (list, tuple)) and not hasattr(s, "_fields"):
        for v in s:
            _flatten_into(v, out)
    elif isinstance(s, tuple):  # namedtuple
        for v in s:
            _flatten_into(v, out)
    else:
        out.append(s)


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    """Applies `fn` to every leaf of `structure`, keeping the structure."""
    if isinstance(structure, dict):
        return type(structure)((k, map_structure(fn, v)) for k, v in structure.items())
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(map_structure(fn, v) for v in structure))
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, v) for v in structure)
    return fn(structure)


def pack_sequence_as(structure: Any, flat: list) -> Any:
    """Rebuilds `structure` with the leaves taken in order from `flat`."""
    it = iter(flat)

    def take(_):
        return next(it)

    return map_structure_sorted(take, structure)


def map_structure_sorted(fn: Callable[[Any], Any], structure: Any) -> Any:
    """Like map_structure, but visits dict keys in sorted order (the order of `flatten`)."""
    if isinstance(structure, dict):
        done = {k: map_structure_sorted(fn, structure[k]) for k in sorted(structure)}
        return type(structure)((k, done[k]) for k in structure)
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(map_structure_sorted(fn, v) for v in structure))
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure_sorted(fn, v) for v in structure)
    return fn(structure)
