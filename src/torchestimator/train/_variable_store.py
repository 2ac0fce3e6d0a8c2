"""TF1's variable store: the per-"graph" record of variables, layers, names and collections
behind `tf.compat.v1.get_variable`, `variable_scope` and `tf.compat.v1.layers`, the thread's
current variable scope, and the store's side of `get_variable` (TF1's reuse rules).

It lives with `tf.train` (issue 27: the lowest layer that uses it -- `ExponentialMovingAverage`
keeps its shadow variables here inside a `model_fn`, and TF1's global step outside one is its
`global_step` variable); `tf.compat.v1` re-exports these names (`compat.v1._variable_store`,
`_variable_scope`: the same objects) and adds `VariableScope`, `variable_scope` and
`get_variable`'s initializers (which come from Keras), passing the initial value in.

Inside a `model_fn` the store lives in the Estimator's object scope
(`_engine.object_scope`, in its `ModelFnContext.variable_store`), so the variables created by
the first call are handed back on later calls; outside a model_fn one module-level store plays
the part of TF1's default graph until `tf.compat.v1.reset_default_graph()`.

Keras' `Layer` (a layer above `tf.train`) is known here through the class Keras registers with
`train._object_graph.register_keras_class("layer", Layer)` when `keras.engine.base_layer` loads;
before that no Keras layer can exist.
"""

from __future__ import annotations

import enum
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._engine.object_scope import ObjectScope, current_scope
from torchestimator._ops.control_ops._context import creation_device
from torchestimator._variable import Variable
from torchestimator.train._object_graph import KERAS_CLASSES


class _ReuseMode(enum.Enum):
    """Mode of variable reuse beyond True/False: `AUTO_REUSE` gets a variable or creates it."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE

_VARIABLE_KEY = "tf1.get_variable"
_LAYER_KEY = "tf1.layer"


def _layer_class() -> type | tuple:
    """Keras' `Layer` once `keras.engine.base_layer` has loaded (it registers itself with
    `train._object_graph`), else `()` (no object is an instance)."""
    return KERAS_CLASSES.get("layer", ())


# ---------------------------------------------------------------------------------- the store
class _Store:
    """The variables and layers of one TF1 "graph": an Estimator's model_fn (kept in its object
    scope) or the process (outside any model_fn), with TF1's per-graph name bookkeeping."""

    def __init__(self, scope: ObjectScope | None) -> None:
        self.scope = scope
        self.objects: dict = scope.objects if scope is not None else {}
        self.layer_names: dict[tuple[str, int], str] = {}  # (full base, position) -> name
        self.uids: Counter[str] = Counter()  # default names given, per full base (outside model_fn)
        self.call: int | None = scope.call_index if scope is not None else None
        self.begin_call()

    def begin_call(self) -> None:
        """Starts a new model_fn call: a new TF1 graph as far as name rules go."""
        self.positions: Counter[str] = Counter()  # default layer names taken, per full base
        self.scope_counts: Counter[str] = Counter()  # openings of each variable scope
        self.defined: set[str] = set()  # variables and layers defined in this call
        self.collections: dict[str, list] = {}  # add_to_collection's lists, per call

    def layer_name(self, full_base: str) -> str:
        """The default name of the next layer of base `full_base` ('encoder/dense' -> 'encoder/
        dense', 'encoder/dense_1', ...), the same object's name on every model_fn call."""
        position = self.positions[full_base]
        self.positions[full_base] = position + 1
        key = (full_base, position)
        name = self.layer_names.get(key)
        if name is None:
            if self.scope is not None:  # shared with Keras' default layer names in model_fn
                name = self.scope.unique_name(full_base)
            else:
                self.uids[full_base] += 1
                n = self.uids[full_base]
                name = full_base if n == 1 else f"{full_base}_{n - 1}"
            self.layer_names[key] = name
        return name

    def open_scope(self, name: str) -> None:
        """Records an opening of variable scope `name`; resets the name counts below it (TF1)."""
        self.scope_counts[name] += 1
        prefix = name + "/"
        for counts in (self.scope_counts, self.positions):
            for key in [k for k in counts if k.startswith(prefix)]:
                counts[key] = 0

    def unique_scope(self, full_base: str) -> str:
        """TF1's default variable-scope name: `full_base`, else `full_base_1`, ... (first unused)."""
        if self.scope_counts[full_base] == 0:
            return full_base
        index = 1
        while self.scope_counts[f"{full_base}_{index}"] > 0:
            index += 1
        return f"{full_base}_{index}"

    def variables(self) -> list[tuple[str, torch.Tensor]]:
        """`(TF name, variable)` of every variable this store knows, in creation order: layer
        weights, get_variable's variables and (in model_fn) `tf.Variable`s."""
        layer_class = _layer_class()
        out: list[tuple[str, torch.Tensor]] = []
        seen: set[int] = set()

        def add(name: str, tensor: torch.Tensor) -> None:
            if id(tensor) not in seen:
                seen.add(id(tensor))
                out.append((name, tensor))

        def add_layer(layer: Any) -> None:
            for weight in layer.weights:
                add(getattr(weight, "_keras_name", None) or getattr(weight, "_tf_name", "weight"), weight)

        for obj in list(self.objects.values()):
            if isinstance(obj, layer_class):
                add_layer(obj)
            elif isinstance(obj, Variable):
                add(obj._tf_name, obj)
        if self.scope is not None:
            for layer in list(self.scope.used_layers.values()):
                add_layer(layer)
        return out


_GLOBAL_STORE = _Store(None)


def _store() -> _Store:
    """The current store: the model_fn's (in its `ModelFnContext`) inside one, else the process's."""
    scope = current_scope()
    if scope is None:
        return _GLOBAL_STORE
    context = scope.context
    store = context.variable_store
    if store is None:
        store = context.variable_store = _Store(scope)
    elif store.call != scope.call_index:
        store.call = scope.call_index
        store.begin_call()
    return store


def reset_default_graph() -> None:
    """Empties the variable store used outside a model_fn (TF1: clears the default graph's
    variables), so the names of `get_variable` and `tf.compat.v1.layers` can be taken again."""
    global _GLOBAL_STORE
    _GLOBAL_STORE = _Store(None)


# ------------------------------------------------------------------ variables of the store
#: The thread's current variable scope: `_LOCAL.scope` is the `VariableScope` that
#: `tf.compat.v1.variable_scope` entered (`compat.v1._variable_scope` keeps it here, next to the
#: store its names refer to); absent or None means the top scope (name '', no reuse, no defaults).
_LOCAL = threading.local()


def _join(prefix: str, name: str) -> str:
    return f"{prefix}/{name}" if prefix else name


def _default_device() -> torch.device:
    """Where a TF1 variable (and an RNN cell's zero state) is created: the innermost
    `tf.device` block's device, else the default device -- inside a model_fn or not, as TF."""
    return creation_device()


def _compatible(wanted: tuple[int, ...], found: tuple[int, ...]) -> bool:
    return len(wanted) == len(found) and all(w < 0 or w == f for w, f in zip(wanted, found))


def _get_or_create(full: str, reuse: Any, shape: tuple[int, ...] | None, dtype: torch.dtype | None,
                   initial_value: Callable[[], torch.Tensor], trainable: bool, constraint: Any,
                   regularizer: Any, validate_shape: bool = True) -> Variable:
    """The store's part of `tf.compat.v1.get_variable`: the variable of full name `full` under
    `reuse` (False/None, True or AUTO_REUSE) with TF1's rules, checked against `shape`/`dtype`
    when it exists, else a new one holding `initial_value()` (called only then).

    Raises:
      ValueError: `reuse` is True and `full` was not defined in this call/graph; `reuse` is
        False and it was; or the existing variable's shape/dtype differs.
    """
    store = _store()
    if reuse is True and full not in store.defined:
        raise ValueError(
            f"Variable {full} does not exist, or was not created with tf.get_variable(). Did you "
            "mean to set reuse=tf.AUTO_REUSE in VarScope?"
        )
    if reuse is not True and reuse is not AUTO_REUSE and full in store.defined:
        raise ValueError(
            f"Variable {full} already exists, disallowed. Did you mean to set reuse=True or "
            "reuse=tf.AUTO_REUSE in VarScope?"
        )
    key = (_VARIABLE_KEY, full)
    variable = store.objects.get(key)
    if variable is not None:
        if shape is not None and validate_shape and not _compatible(shape, tuple(variable.shape)):
            raise ValueError(
                f"Trying to share variable {full}, but specified shape {shape} and found "
                f"shape {tuple(variable.shape)}."
            )
        if dtype is not None and dtype != variable.dtype:
            raise ValueError(
                f"Trying to share variable {full}, but specified dtype "
                f"{_dtypes.dtype_name(dtype)} and found dtype {_dtypes.dtype_name(variable.dtype)}."
            )
        store.defined.add(full)
        return variable
    value = initial_value()
    device = _default_device()
    if device is not None and value.device != device:
        value = value.to(device)
    variable = Variable.create(value, bool(trainable), full, constraint)
    variable._keras_constraint = variable._tf_constraint  # optimizers apply it after each update
    variable._keras_name = full
    variable._tf1_regularizer = regularizer
    store.objects[key] = variable
    store.defined.add(full)
    return variable


def _current_scope() -> Any:
    return getattr(_LOCAL, "scope", None)


def get_or_create_variable(name: str, initial: torch.Tensor, trainable: bool) -> Variable:
    """`tf.compat.v1.get_variable(name, initializer=initial)` under `AUTO_REUSE`, `name` being
    the full name (not prefixed by the current variable scope, whose constraint and regularizer
    still apply): the existing variable, else a new one holding a copy of `initial`. Used by
    `ExponentialMovingAverage` for its shadow variables inside a `model_fn`."""
    scope = _current_scope()
    return _get_or_create(name, AUTO_REUSE, tuple(initial.shape), initial.dtype,
                          lambda: initial.detach().clone(), trainable,
                          None if scope is None else scope.constraint,
                          None if scope is None else scope.regularizer)


def _value_getter(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                  regularizer: Any = None, trainable: Any = None, collections: Any = None,
                  validate_shape: bool = True, constraint: Any = None, **_: Any) -> Variable:
    """The getter `create_variable` hands a scope's `custom_getter`: `initializer` is the
    callable `(shape, dtype=)` it was given (or a tensor, if the custom getter swapped it)."""
    scope = _current_scope()
    shape = None if shape is None else tuple(int(d) for d in shape)
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)

    def initial_value() -> torch.Tensor:
        value = initializer(shape, dtype=dtype) if callable(initializer) else initializer
        return torch.as_tensor(value, dtype=dtype).detach().clone()

    variable = _get_or_create(
        name, None if scope is None else scope.reuse, shape, dtype, initial_value,
        True if trainable is None else trainable,
        constraint if constraint is not None else (None if scope is None else scope.constraint),
        regularizer if regularizer is not None else (None if scope is None else scope.regularizer),
        validate_shape)
    mark_global(variable, collections)
    return variable


def mark_global(variable: torch.Tensor, collections: Any) -> None:
    """Records whether `get_variable(collections=...)` put `variable` in GLOBAL_VARIABLES (the
    default, `collections=None`), which `global_variables()` lists; a variable created with
    `collections=[LOCAL_VARIABLES]` is local only, as in TF."""
    if collections is None:
        return
    keys = [collections] if isinstance(collections, str) else list(collections)
    variable._tf1_global = "variables" in keys


def create_variable(name: str, initial: torch.Tensor, trainable: bool) -> Variable:
    """`tf.compat.v1.get_variable(name, initializer=initial)` in the current variable scope (its
    name prefix, reuse and custom getter): a new variable holding a copy of `initial` (with
    `reuse=True`/`AUTO_REUSE`, the existing one). Used by `tf.compat.v1.train.create_global_step`.

    Raises:
      ValueError: the name is already defined and the scope does not reuse.
    """
    scope = _current_scope()
    full = _join("" if scope is None else scope.name, name)
    custom_getter = None if scope is None else scope.custom_getter
    kwargs: dict[str, Any] = dict(
        shape=tuple(initial.shape), dtype=initial.dtype,
        initializer=lambda *a, **k: initial.detach().clone(), regularizer=None,
        trainable=trainable, collections=None, caching_device=None, partitioner=None,
        validate_shape=True, use_resource=None, constraint=None)
    if custom_getter is not None:  # TF1: custom_getter(getter, name=<full name>, ...)
        return custom_getter(_value_getter, name=full, **kwargs)
    return _value_getter(full, **kwargs)
