"""TF1's variable store: the per-"graph" record of variables, layers, names and collections
behind `tf.compat.v1.get_variable`, `variable_scope` and `tf.compat.v1.layers`.

Inside a `model_fn` the store lives in the Estimator's object scope
(`_engine.object_scope`), so the variables created by the first call are handed back on
later calls; outside a model_fn one module-level store plays the part of TF1's default
graph until `tf.compat.v1.reset_default_graph()`.
"""

from __future__ import annotations

import enum
from collections import Counter
from typing import Any

import torch

from torchestimator._engine.object_scope import ObjectScope, current_scope
from torchestimator._variable import Variable


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
        from torchestimator.keras.engine.base_layer import Layer  # lazy: keras.engine is heavy

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
