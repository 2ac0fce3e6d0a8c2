"""Objects created inside a function that runs every step (an Estimator's `model_fn`).

TensorFlow's `model_fn` built a graph once; its variables lived in the graph.
Here `model_fn` runs eagerly on every batch, so the layers, optimizers and
metrics it constructs must be the same objects on every call. While an
`ObjectScope` is active, constructing a class whose metaclass is
`ReusableMeta` (Keras layers, optimizers, metrics) returns the object made
by the first call instead — matched by explicit `name=`, or else by class
and order of construction, as TF's variable scopes matched variables by
name. Objects constructed inside another object's constructor (a Dense
inside a Sequential) belong to that object and are not matched separately.
Constructing a different configuration under the same name is an error.

The scope also records every layer called at the top level during a
`model_fn` call (including Keras models built outside `model_fn` and closed
over), so the Estimator can checkpoint all of them, and gives layers
per-scope default names (`dense`, `dense_1`, ...) so checkpoint names do not
depend on what else the process created.

`scope.context` (a `ModelFnContext`, see `model_fn_context.py`) says what the running
`model_fn` call is: its mode, its global step, the summaries it recorded.
"""

from __future__ import annotations

import abc
import types
from collections import Counter
from typing import Any

import numpy as np
import torch

from torchestimator._engine.model_fn_context import _LOCAL, ModelFnContext


def current_scope() -> ObjectScope | None:
    """The active ObjectScope of this thread, or None."""
    return getattr(_LOCAL, "scope", None)


_PLAIN = frozenset((int, float, str, bool, bytes, type(None)))


def _same_value(a: Any, b: Any) -> bool:
    """True if two constructor arguments configure an object the same way (tensors and arrays
    by shape and dtype, functions by name, containers item by item)."""
    if a is b:
        return True
    kind = type(a)
    if kind is type(b):
        if kind in _PLAIN:
            return a == b or (a != a and b != b)  # NaN equals NaN here
        if kind is tuple or kind is list:
            return len(a) == len(b) and all(x is y or _same_value(x, y) for x, y in zip(a, b))
        if kind is dict:
            return a.keys() == b.keys() and all(a[k] is b[k] or _same_value(a[k], b[k]) for k in a)
    return _same_value_slow(a, b)


def _same_value_slow(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (
            isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
            and a.shape == b.shape and a.dtype == b.dtype
        )
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if callable(a) and callable(b):
        return getattr(a, "__qualname__", a) == getattr(b, "__qualname__", b)
    try:
        return bool(a == b)
    except Exception:
        return type(a) is type(b)


_EQUAL_BY_EQ = _PLAIN | {types.FunctionType, types.BuiltinFunctionType, types.MethodType}


def _plainly_equal(args_a: tuple, args_b: tuple, kwargs_a: dict, kwargs_b: dict) -> bool:
    """The common case of `_same_value` in one C-level comparison: arguments that are all names,
    numbers, None or functions (flat or in tuples/lists), compared with `==`. Anything else
    (tensors, arrays, objects) is False here and goes to `_same_value`."""
    for value in (*args_b, *kwargs_b.values()):
        kind = type(value)
        if kind in _EQUAL_BY_EQ:
            continue
        if (kind is tuple or kind is list) and all(type(v) in _EQUAL_BY_EQ for v in value):
            continue
        return False
    try:  # the first call's arguments may still hold a tensor where this call has a number
        return bool(args_a == args_b and kwargs_a == kwargs_b)
    except Exception:  # noqa: BLE001 - no plain truth value: let _same_value decide
        return False


class ObjectScope:
    """The objects a `model_fn` created, and the layers it used, across its calls."""

    def __init__(self) -> None:
        self.objects: dict[tuple, Any] = {}
        self.arguments: dict[tuple, tuple] = {}
        self.used_layers: dict[int, Any] = {}
        self.name_counts: Counter[str] = Counter()
        self._order: dict[str, int] = {}
        self._depth = 0
        self.call_index = 0
        self.context: ModelFnContext = ModelFnContext()

    def __enter__(self) -> ObjectScope:
        self._previous = current_scope()
        _LOCAL.scope = self
        self._order = {}
        return self

    def __exit__(self, *exc: Any) -> None:
        _LOCAL.scope = self._previous
        self.call_index += 1

    def construct(self, cls: type, args: tuple, kwargs: dict) -> Any:
        """Returns the object of `cls(*args, **kwargs)` for this position in model_fn."""
        if self._depth > 0:
            return _plain_construct(cls, args, kwargs, self)
        name = kwargs.get("name")
        if isinstance(name, str) and name:
            key = ("name", cls.__qualname__, name)
        else:
            qualname = cls.__qualname__
            index = self._order.get(qualname, 0)
            self._order[qualname] = index + 1
            key = ("order", qualname, index)
        found = self.objects.get(key)
        if found is not None:
            first_args, first_kwargs = self.arguments[key]
            if not (_plainly_equal(first_args, args, first_kwargs, kwargs)
                    or (_same_value(first_args, args) and _same_value(first_kwargs, kwargs))):
                label = f"name {name!r}" if key[0] == "name" else f"position {key[2]} among {cls.__name__}s"
                raise ValueError(
                    f"model_fn constructed a {cls.__name__} with {label} again, but with a different "
                    f"configuration: first call args={first_args!r} kwargs={first_kwargs!r}, now "
                    f"args={args!r} kwargs={kwargs!r}. Objects created in model_fn are created once "
                    "and reused on every call; give differently configured objects different names."
                )
            return found
        obj = _plain_construct(cls, args, kwargs, self)
        self.objects[key] = obj
        self.arguments[key] = (args, dict(kwargs))
        return obj

    def unique_name(self, base: str, zero_based: bool = True) -> str:
        """Per-scope default names: `dense`, `dense_1`, ... (or `input_1`, ... when not zero-based)."""
        self.name_counts[base] += 1
        n = self.name_counts[base]
        if not zero_based:
            return f"{base}_{n}"
        return base if n == 1 else f"{base}_{n - 1}"

    def record_layer_call(self, layer: Any) -> None:
        """Remembers a layer called at the top level of model_fn."""
        self.used_layers.setdefault(id(layer), layer)

    def created(self, kind: type | tuple) -> list:
        """The objects of type `kind` this scope created, in creation order."""
        return [o for o in self.objects.values() if isinstance(o, kind)]


def _plain_construct(cls: type, args: tuple, kwargs: dict, scope: ObjectScope | None) -> Any:
    if scope is not None:
        scope._depth += 1
    try:
        return type.__call__(cls, *args, **kwargs)
    finally:
        if scope is not None:
            scope._depth -= 1


class ReusableMeta(type):
    """Metaclass of the classes whose instances an active ObjectScope reuses across calls."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        scope = current_scope()
        if scope is None:
            return type.__call__(cls, *args, **kwargs)
        return scope.construct(cls, args, kwargs)


class ReusableABCMeta(ReusableMeta, abc.ABCMeta):
    """ReusableMeta for abstract base classes (Keras metrics)."""
