"""TF1's variable store: `tf.compat.v1.get_variable`, `variable_scope`, `get_variable_scope`,
`AUTO_REUSE`, `trainable_variables`, `global_variables`, and TF1's initializer names.

TF1 kept variables in the graph's store, by full scoped name (`outer/inner/w`).
Here a `model_fn` runs eagerly on every batch, so the store lives in the
Estimator's object scope (`_engine.object_scope`): within one `model_fn` call
the rules are TF1's — a name may be created once, `reuse=True` requires it
to exist, `AUTO_REUSE` gets or creates it — and across calls the variable
created by the first call is handed back, so its value persists and the
Estimator trains and checkpoints it under its TF name.

Outside a `model_fn` (plain eager code) one module-level store plays the
part of TF1's default graph: names stay taken for the life of the process
(`tf.compat.v1.reset_default_graph()` empties it), so running the same
`get_variable` twice without reuse raises, as it did in a TF1 graph.

`tf.compat.v1.layers` names its layers through the same store, so layers
inside `variable_scope('encoder')` get `encoder/dense/kernel`.

This module holds the scope objects and `get_variable`; the store itself (with the
thread's current scope and TF1's reuse rules) is in `train._variable_store`, the collections
read from it in `train._graph_collections` (both low enough for `tf.train`'s
ExponentialMovingAverage and global step, issue 27), and the initializer names in
`_tf1_initializers` (all re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator.compat.v1._tf1_initializers import (  # noqa: F401 (re-exported)
    _dtype_or,
    _initial_value,
    _shape_tuple,
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    ones_initializer,
    orthogonal_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    variance_scaling_initializer,
    zeros_initializer,
)
from torchestimator.train._graph_collections import (  # noqa: F401 (re-exported)
    GraphKeys,
    _filtered,
    _is_trainable,
    add_to_collection,
    add_to_collections,
    get_collection,
    get_collection_ref,
    global_variables,
    local_variables,
    regularization_losses,
    trainable_variables,
)
from torchestimator.train._variable_store import (  # noqa: F401 (re-exported)
    _LAYER_KEY,
    _LOCAL,
    _VARIABLE_KEY,
    AUTO_REUSE,
    _compatible,
    _default_device,
    _get_or_create,
    _join,
    _ReuseMode,
    _Store,
    _store,
    mark_global,
    reset_default_graph,
)

__all__ = [
    "AUTO_REUSE",
    "VariableScope",
    "get_variable",
    "variable_scope",
    "get_variable_scope",
    "trainable_variables",
    "global_variables",
    "local_variables",
    "reset_default_graph",
    "GraphKeys",
    "get_collection",
    "get_collection_ref",
    "add_to_collection",
    "add_to_collections",
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "ones_initializer",
    "orthogonal_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
]


# --------------------------------------------------------------------------- variable scopes
class VariableScope:
    """A TF1 variable scope: a name prefix plus defaults (`reuse`, `initializer`, `regularizer`,
    `dtype`, `constraint`) for the `get_variable` calls and `tf.compat.v1.layers` inside it."""

    def __init__(self, reuse: Any, name: str = "", initializer: Any = None, regularizer: Any = None,
                 caching_device: Any = None, partitioner: Any = None, custom_getter: Any = None,
                 name_scope: str = "", dtype: Any = torch.float32, use_resource: Any = None,
                 constraint: Any = None) -> None:
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = _dtypes.as_dtype(dtype) if dtype is not None else torch.float32
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self) -> str:
        """The scope's full name ('outer/inner'; '' at the top)."""
        return self._name

    @property
    def original_name_scope(self) -> str:
        """The name scope the scope opened ('outer/inner/'; '' at the top)."""
        return self._name_scope

    @property
    def reuse(self) -> Any:
        """False, True or AUTO_REUSE."""
        return self._reuse

    @property
    def initializer(self) -> Any:
        """The default initializer of the variables created in this scope, or None."""
        return self._initializer

    @property
    def regularizer(self) -> Any:
        """The default regularizer of the variables created in this scope, or None."""
        return self._regularizer

    @property
    def dtype(self) -> torch.dtype:
        """The default dtype of the variables created in this scope."""
        return self._dtype

    @property
    def constraint(self) -> Any:
        """The default constraint of the variables created in this scope, or None."""
        return self._constraint

    @property
    def caching_device(self) -> Any:
        """Accepted for compatibility (always None here)."""
        return self._caching_device

    @property
    def partitioner(self) -> Any:
        """Accepted for compatibility; variables are never partitioned here."""
        return self._partitioner

    @property
    def custom_getter(self) -> Any:
        """The custom getter of this scope, or None."""
        return self._custom_getter

    @property
    def use_resource(self) -> Any:
        """Accepted for compatibility (every variable is a torch tensor)."""
        return self._use_resource

    def reuse_variables(self) -> None:
        """Makes `get_variable` in this scope reuse existing variables from now on."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        """Sets the scope's default initializer."""
        self._initializer = initializer

    def set_regularizer(self, regularizer: Any) -> None:
        """Sets the scope's default regularizer."""
        self._regularizer = regularizer

    def set_dtype(self, dtype: Any) -> None:
        """Sets the scope's default dtype."""
        self._dtype = _dtypes.as_dtype(dtype)

    def set_caching_device(self, caching_device: Any) -> None:
        """Accepted for compatibility."""
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Any) -> None:
        """Accepted for compatibility."""
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Any) -> None:
        """Sets the scope's custom getter."""
        self._custom_getter = custom_getter

    def set_use_resource(self, use_resource: Any) -> None:
        """Accepted for compatibility."""
        self._use_resource = use_resource

    def get_variable(self, var_store: Any, name: str, *args: Any, **kwargs: Any) -> torch.Tensor:
        """`get_variable(name, ...)` inside this scope (`var_store` is ignored)."""
        with variable_scope(self):
            return get_variable(name, *args, **kwargs)

    def get_collection(self, name: str) -> list:
        """The items of collection `name` whose name starts with this scope's name (all of them
        in the top scope, named ''): `tf.compat.v1.get_collection(name, scope)`."""
        return get_collection(name, re.escape(self._name + "/") if self._name else None)

    def local_variables(self) -> list:
        """This scope's local variables: the LOCAL_VARIABLES collection (`get_variable(...,
        collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])`, `add_to_collection`) filtered by
        this scope's name."""
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def global_variables(self) -> list:
        """The variables whose name starts with this scope's name."""
        return global_variables(re.escape(self._name + "/") if self._name else None)

    def trainable_variables(self) -> list:
        """The trainable variables whose name starts with this scope's name."""
        return trainable_variables(re.escape(self._name + "/") if self._name else None)

    def __repr__(self) -> str:
        return f"<VariableScope name={self._name!r} reuse={self._reuse!r}>"


def get_variable_scope() -> VariableScope:
    """Returns the current variable scope (the top one, named '', outside any `variable_scope`)."""
    current = getattr(_LOCAL, "scope", None)
    if current is None:
        current = _LOCAL.scope = VariableScope(False)
    return current


@contextmanager
def variable_scope(name_or_scope: Any, default_name: str | None = None, values: Any = None,
                   initializer: Any = None, regularizer: Any = None, caching_device: Any = None,
                   partitioner: Any = None, custom_getter: Any = None, reuse: Any = None,
                   dtype: Any = None, use_resource: Any = None, constraint: Any = None,
                   auxiliary_name_scope: bool = True) -> Iterator[VariableScope]:
    """A context manager opening a TF1 variable scope; yields its `VariableScope`.

    `name_or_scope` is a name (nested under the current scope: 'outer/inner')
    or a `VariableScope` (re-entered by its full name); with None,
    `default_name` is made unique ('block', 'block_1', ...). `reuse` is
    True, `AUTO_REUSE` or None/False (inherit: a reusing scope's sub-scopes
    reuse too); `initializer`, `regularizer`, `dtype` and `constraint` are
    the defaults of `get_variable` and of `tf.compat.v1.layers` inside it.
    """
    if default_name is None and name_or_scope is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:  # TF: reuse=False is the same as None (inherit)
        reuse = None
    if not (reuse is None or reuse is True or reuse is AUTO_REUSE):
        raise ValueError(f"The reuse parameter must be True or False or None. Received: {reuse!r}.")
    parent = get_variable_scope()
    store = _store()
    if isinstance(name_or_scope, VariableScope):
        template = name_or_scope
        full = template.name
        inherited = template
    elif name_or_scope is not None:
        if not isinstance(name_or_scope, str):
            raise TypeError(f"VariableScope: name_or_scope must be a string or VariableScope; "
                            f"received {name_or_scope!r}.")
        full = _join(parent.name, name_or_scope)
        inherited = parent
    else:
        if reuse is not None and reuse is not AUTO_REUSE:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        full = store.unique_scope(_join(parent.name, default_name))
        inherited = parent
    if reuse is None:  # TF1: reuse is inherited by sub-scopes
        reuse = inherited.reuse if isinstance(name_or_scope, VariableScope) else parent.reuse
    scope = VariableScope(
        reuse,
        name=full,
        initializer=initializer if initializer is not None else inherited.initializer,
        regularizer=regularizer if regularizer is not None else inherited.regularizer,
        caching_device=caching_device if caching_device is not None else inherited.caching_device,
        partitioner=partitioner if partitioner is not None else inherited.partitioner,
        custom_getter=custom_getter if custom_getter is not None else inherited.custom_getter,
        name_scope=full + "/" if full else "",
        dtype=dtype if dtype is not None else inherited.dtype,
        use_resource=use_resource if use_resource is not None else inherited.use_resource,
        constraint=constraint if constraint is not None else inherited.constraint,
    )
    store.open_scope(full)
    _LOCAL.scope = scope
    try:
        yield scope
    finally:
        _LOCAL.scope = parent


# ------------------------------------------------------------------------------- get_variable
def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Any = None, trainable: bool | None = None, collections: Any = None,
                 caching_device: Any = None, partitioner: Any = None, validate_shape: bool = True,
                 use_resource: Any = None, custom_getter: Any = None, constraint: Any = None,
                 synchronization: Any = None, aggregation: Any = None) -> torch.Tensor:
    """Gets an existing variable with these parameters or creates a new one (TF1's store).

    The variable's full name is the current variable scope's name joined
    with `name` ('outer/inner/w'). Without reuse, a name defined earlier in
    this `model_fn` call (or, outside a model_fn, in this process) raises
    ValueError "Variable ... already exists, disallowed"; in a scope with
    `reuse=True` the variable must exist; with `AUTO_REUSE` it is created
    when missing. A variable created on the first `model_fn` call is
    returned by later calls, so training and checkpoints see one variable.
    `initializer` is an initializer (`tf.compat.v1.zeros_initializer()`, a
    Keras initializer, a class of one) called with `(shape, dtype=)`, or a
    tensor/array (then `shape` must be omitted); the default is the scope's
    initializer, else glorot-uniform for floats and zeros for integers.
    Returns a `tf.Variable` (a torch Parameter).
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"get_variable: name must be a non-empty string; received {name!r}.")
    scope = get_variable_scope()
    full = _join(scope.name, name)
    if custom_getter is None:
        custom_getter = scope.custom_getter
    if custom_getter is not None:  # TF1: custom_getter(getter, name, ...) with the full name
        return custom_getter(
            _get_variable, name=full, shape=shape, dtype=dtype, initializer=initializer,
            regularizer=regularizer, trainable=trainable, collections=collections,
            caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
            use_resource=use_resource, constraint=constraint,
        )
    return _get_variable(full, shape=shape, dtype=dtype, initializer=initializer,
                         regularizer=regularizer, trainable=trainable, collections=collections,
                         validate_shape=validate_shape, constraint=constraint)


def _get_variable(full: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                  regularizer: Any = None, trainable: bool | None = None, collections: Any = None,
                  validate_shape: bool = True, constraint: Any = None, **_: Any) -> torch.Tensor:
    """get_variable's store lookup/creation of the variable of full name `full` (the store's
    rules are `train._variable_store._get_or_create`'s; the initial value, from `initializer` or
    the scope's, is made here only when the variable is new)."""
    scope = get_variable_scope()
    wanted_shape = _shape_tuple(shape)
    wanted_dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
    value_dtype = wanted_dtype or scope.dtype
    if initializer is None:
        initializer = scope.initializer
    if trainable is None:
        trainable = True  # TF's default, in LOCAL_VARIABLES too (get_local_variable says False)
    variable = _get_or_create(
        full, scope.reuse, wanted_shape, wanted_dtype,
        lambda: _initial_value(full, wanted_shape, value_dtype, initializer), bool(trainable),
        constraint if constraint is not None else scope.constraint,
        regularizer if regularizer is not None else scope.regularizer, validate_shape)
    _add_to_named_collections(variable, collections)
    mark_global(variable, collections)
    return variable


#: The collections `get_collection` reads from the variable store itself.
_STORE_COLLECTIONS = frozenset((GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES,
                                GraphKeys.TRAINABLE_VARIABLES,
                                GraphKeys.TRAINABLE_RESOURCE_VARIABLES))


def _add_to_named_collections(variable: torch.Tensor, collections: Any) -> None:
    """Puts `variable` in each of `get_variable`'s `collections` that the store does not answer
    itself (LOCAL_VARIABLES, a user's collection), once: in a model_fn the collections last one
    call, so a variable handed back by a later call joins them again."""
    if collections is None:
        return
    for key in [collections] if isinstance(collections, str) else list(dict.fromkeys(collections)):
        if key in _STORE_COLLECTIONS:
            continue
        items = get_collection_ref(key)
        if not any(item is variable for item in items):
            items.append(variable)
