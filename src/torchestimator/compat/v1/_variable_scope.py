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
"""

from __future__ import annotations

import enum
import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine.object_scope import ObjectScope, current_scope
from torchestimator.keras import initializers as _init

__all__ = [
    "AUTO_REUSE",
    "VariableScope",
    "get_variable",
    "variable_scope",
    "get_variable_scope",
    "trainable_variables",
    "global_variables",
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


class _ReuseMode(enum.Enum):
    """Mode of variable reuse beyond True/False: `AUTO_REUSE` gets a variable or creates it."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE

_VARIABLE_KEY = "tf1.get_variable"
_LAYER_KEY = "tf1.layer"


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
        from torchestimator._variable import Variable
        from torchestimator.keras.engine.base_layer import Layer

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
            if isinstance(obj, Layer):
                add_layer(obj)
            elif isinstance(obj, Variable):
                add(obj._tf_name, obj)
        if self.scope is not None:
            for layer in list(self.scope.used_layers.values()):
                add_layer(layer)
        return out


_GLOBAL_STORE = _Store(None)


def _store() -> _Store:
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

    def global_variables(self) -> list:
        """The variables whose name starts with this scope's name."""
        return global_variables(re.escape(self._name + "/") if self._name else None)

    def trainable_variables(self) -> list:
        """The trainable variables whose name starts with this scope's name."""
        return trainable_variables(re.escape(self._name + "/") if self._name else None)

    def __repr__(self) -> str:
        return f"<VariableScope name={self._name!r} reuse={self._reuse!r}>"


_LOCAL = threading.local()


def get_variable_scope() -> VariableScope:
    """Returns the current variable scope (the top one, named '', outside any `variable_scope`)."""
    current = getattr(_LOCAL, "scope", None)
    if current is None:
        current = _LOCAL.scope = VariableScope(False)
    return current


def _join(prefix: str, name: str) -> str:
    return f"{prefix}/{name}" if prefix else name


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
def _shape_tuple(shape: Any) -> tuple[int, ...] | None:
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, torch.Tensor):
        return tuple(int(d) for d in shape.tolist())
    dims = getattr(shape, "as_list", None)
    values = dims() if callable(dims) else list(shape)
    return tuple(int(d) if d is not None else -1 for d in values)


def _default_device() -> torch.device:
    """Where a TF1 variable (and an RNN cell's zero state) is created: the innermost
    `tf.device` block's device, else the default device -- inside a model_fn or not, as TF."""
    from torchestimator._ops.control_ops._context import creation_device

    return creation_device()


def _initial_value(name: str, shape: tuple[int, ...] | None, dtype: torch.dtype,
                   initializer: Any) -> torch.Tensor:
    if isinstance(initializer, type):  # TF1 accepts the class: `initializer=tf.zeros_initializer`
        initializer = initializer()
    if initializer is None:  # TF1's defaults: glorot-uniform for floats, zeros for integers/bools
        initializer = _init.GlorotUniform() if dtype.is_floating_point else _init.Zeros()
    if isinstance(initializer, str):
        initializer = _init.get(initializer)
    if callable(initializer) and not isinstance(initializer, torch.Tensor):
        if shape is None or any(d < 0 for d in shape):
            raise ValueError(
                f"Variable {name} did not get an initializer, so its `shape` argument must be "
                "specified." if shape is None else
                f"Shape of a new variable ({name}) must be fully defined, but instead was {shape}."
            )
        with torch.no_grad():
            value = initializer(shape, dtype=dtype)
        value = torch.as_tensor(value) if not isinstance(value, torch.Tensor) else value
        return value.detach().to(dtype).reshape(shape).clone()
    value = initializer.detach() if isinstance(initializer, torch.Tensor) else torch.as_tensor(np.asarray(initializer))
    if shape is not None and tuple(value.shape) != shape:
        raise ValueError("If initializer is a constant, do not specify shape.")
    if not value.is_floating_point() and dtype.is_floating_point and not isinstance(initializer, torch.Tensor):
        value = value.to(dtype)
    return value.clone()


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
    """get_variable's store lookup/creation of the variable of full name `full`."""
    from torchestimator._variable import Variable

    scope = get_variable_scope()
    reuse = scope.reuse
    store = _store()
    wanted_shape = _shape_tuple(shape)
    wanted_dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
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
        if wanted_shape is not None and validate_shape and not _compatible(wanted_shape, tuple(variable.shape)):
            raise ValueError(
                f"Trying to share variable {full}, but specified shape {wanted_shape} and found "
                f"shape {tuple(variable.shape)}."
            )
        if wanted_dtype is not None and wanted_dtype != variable.dtype:
            raise ValueError(
                f"Trying to share variable {full}, but specified dtype "
                f"{_dtypes.dtype_name(wanted_dtype)} and found dtype {_dtypes.dtype_name(variable.dtype)}."
            )
        store.defined.add(full)
        return variable
    value_dtype = wanted_dtype or scope.dtype
    if initializer is None:
        initializer = scope.initializer
    value = _initial_value(full, wanted_shape, value_dtype, initializer)
    device = _default_device()
    if device is not None and value.device != device:
        value = value.to(device)
    if trainable is None:
        trainable = not (collections is not None and "local_variables" in collections)
    variable = Variable.create(value, bool(trainable), full, constraint if constraint is not None
                               else scope.constraint)
    variable._keras_constraint = variable._tf_constraint  # optimizers apply it after each update
    variable._keras_name = full
    variable._tf1_regularizer = regularizer if regularizer is not None else scope.regularizer
    store.objects[key] = variable
    store.defined.add(full)
    return variable


def _compatible(wanted: tuple[int, ...], found: tuple[int, ...]) -> bool:
    return len(wanted) == len(found) and all(w < 0 or w == f for w, f in zip(wanted, found))


# ------------------------------------------------------------------------- collections
def _filtered(variables: list[tuple[str, torch.Tensor]], scope: str | None) -> list[torch.Tensor]:
    if scope is None:
        return [v for _, v in variables]
    return [v for name, v in variables if re.match(scope, name)]


def global_variables(scope: str | None = None) -> list[torch.Tensor]:
    """Every variable model_fn created so far (layer weights, `get_variable`, `tf.Variable`);
    outside a model_fn, those of `get_variable` and `tf.compat.v1.layers`. `scope` filters the
    names with `re.match`."""
    return _filtered(_store().variables(), scope)


def trainable_variables(scope: str | None = None) -> list[torch.Tensor]:
    """The trainable variables among `global_variables(scope)`."""
    return [v for v in global_variables(scope) if _is_trainable(v)]


def _is_trainable(v: torch.Tensor) -> bool:
    flag = getattr(v, "_tf_trainable", None)
    if flag is None:
        flag = getattr(v, "_keras_trainable", True)
    return bool(flag) and v.requires_grad


def regularization_losses(scope: str | None = None) -> list[torch.Tensor]:
    """The regularization losses of the variables `get_variable` created with a regularizer and of
    the `tf.compat.v1.layers` weights with one (TF1's REGULARIZATION_LOSSES collection), computed
    from the current values."""
    out = []
    for name, v in _store().variables():
        if scope is not None and not re.match(scope, name):
            continue
        reg = getattr(v, "_tf1_regularizer", None) or getattr(v, "_keras_regularizer", None)
        if reg is not None:
            loss = reg(v)
            if loss is not None:
                out.append(loss)
    return out


class GraphKeys:
    """TF1's standard collection names, for `get_collection`."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


def get_collection(key: str, scope: str | None = None) -> list:
    """The items of collection `key` (names filtered by `scope` with `re.match`): the variable
    collections from the variable store, `REGULARIZATION_LOSSES` from the regularizers of
    `get_variable`/`tf.compat.v1.layers`, `GLOBAL_STEP` in a model_fn; `UPDATE_OPS` is empty
    (`tf.compat.v1.layers.batch_normalization` updates its moving statistics in place, so
    `tf.control_dependencies(update_ops)` has nothing to wait for); plus what
    `add_to_collection` added (in a model_fn: during this call)."""
    if key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        items: list = global_variables(scope)
    elif key in (GraphKeys.TRAINABLE_VARIABLES, GraphKeys.TRAINABLE_RESOURCE_VARIABLES):
        items = trainable_variables(scope)
    elif key == GraphKeys.REGULARIZATION_LOSSES:
        items = regularization_losses(scope)
    elif key == GraphKeys.GLOBAL_STEP:
        from torchestimator.train import get_global_step

        step = get_global_step()
        items = [] if step is None else [step]
    else:
        items = []
    added = _store().collections.get(key, [])
    if scope is not None:
        added = [x for x in added if re.match(scope, getattr(x, "name", "") or "")]
    return items + [x for x in added if not any(x is y for y in items)]


def get_collection_ref(key: str) -> list:
    """The list `add_to_collection` appends to for `key` (the items added so far)."""
    return _store().collections.setdefault(key, [])


def add_to_collection(name: str, value: Any) -> None:
    """Adds `value` to collection `name` (in a model_fn, for the rest of this call)."""
    get_collection_ref(name).append(value)


def add_to_collections(names: Any, value: Any) -> None:
    """Adds `value` to each collection of `names` (a name or a list of names)."""
    for name in [names] if isinstance(names, str) else list(dict.fromkeys(names)):
        add_to_collection(name, value)


# ------------------------------------------------------------------------- TF1 initializers
def _dtype_or(dtype: Any, default: Any) -> Any:
    return default if dtype is None else dtype


class zeros_initializer(_init.Zeros):
    """TF1 `zeros_initializer(dtype=tf.float32)`: tensors of zeros."""

    def __init__(self, dtype: Any = torch.float32) -> None:
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class ones_initializer(_init.Ones):
    """TF1 `ones_initializer(dtype=tf.float32)`: tensors of ones."""

    def __init__(self, dtype: Any = torch.float32) -> None:
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class constant_initializer(_init.Constant):
    """TF1 `constant_initializer(value=0, dtype=tf.float32, verify_shape=False)`: a scalar
    filled in, or a list/array of exactly the variable's size reshaped to it."""

    def __init__(self, value: Any = 0, dtype: Any = torch.float32, verify_shape: bool = False) -> None:
        self.value = value
        self.dtype = dtype
        self.verify_shape = verify_shape

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = _dtypes.as_dtype(_dtype_or(dtype, self.dtype))
        shape = tuple(_shape_tuple(shape) or ())
        value = np.asarray(self.value)
        if value.ndim == 0:
            return torch.full(shape, value.item(), dtype=dtype)
        if self.verify_shape and tuple(value.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {tuple(value.shape)}.")
        if value.size != int(np.prod(shape)):
            raise TypeError(
                f"constant_initializer: value has {value.size} elements, but the variable of shape "
                f"{shape} has {int(np.prod(shape))}."
            )
        return torch.as_tensor(value.reshape(shape)).to(dtype)


class random_normal_initializer(_init.RandomNormal):
    """TF1 `random_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=tf.float32)`."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = torch.float32) -> None:
        super().__init__(mean=mean, stddev=stddev, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class truncated_normal_initializer(_init.TruncatedNormal):
    """TF1 `truncated_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=tf.float32)`."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = torch.float32) -> None:
        super().__init__(mean=mean, stddev=stddev, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class random_uniform_initializer(_init.RandomUniform):
    """TF1 `random_uniform_initializer(minval=0.0, maxval=None, seed=None, dtype=tf.float32)`:
    uniform on [minval, maxval) (maxval None means 1 for floats)."""

    def __init__(self, minval: float = 0.0, maxval: float | None = None, seed: int | None = None,
                 dtype: Any = torch.float32) -> None:
        super().__init__(minval=minval, maxval=1.0 if maxval is None else maxval, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class variance_scaling_initializer(_init.VarianceScaling):
    """TF1 `variance_scaling_initializer(scale=1.0, mode='fan_in', distribution='truncated_normal',
    seed=None, dtype=tf.float32)`."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class glorot_uniform_initializer(_init.GlorotUniform):
    """TF1 `glorot_uniform_initializer(seed=None, dtype=tf.float32)`: uniform on
    [-limit, limit], limit = sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class glorot_normal_initializer(_init.GlorotNormal):
    """TF1 `glorot_normal_initializer(seed=None, dtype=tf.float32)`: truncated normal with
    stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class orthogonal_initializer(_init.Orthogonal):
    """TF1 `orthogonal_initializer(gain=1.0, seed=None, dtype=tf.float32)`."""

    def __init__(self, gain: float = 1.0, seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(gain=gain, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))
