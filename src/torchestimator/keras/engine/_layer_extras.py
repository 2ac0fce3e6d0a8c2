"""Keras 2.15 `Layer` methods besides building and calling: metrics added in `call`
(`add_metric`), callable updates (`add_update`), the deprecated `add_variable`, the graph
node accessors by node index (`get_input_at`, ...), the per-layer weights store hooks of the
Keras v3 format (`save_own_variables` / `load_own_variables`) and `tf.Module`'s
`with_name_scope`.

`LayerExtrasMixin` is mixed into `Layer` (`base_layer.py`); none of it runs in a layer call
unless the layer's own `call` uses it (`add_metric`, `add_update`).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._ops import nest
from torchestimator._ops.control_ops._context import name_scope as _name_scope
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.metrics import Mean

#: Whether any layer called `add_metric` in this process: until then a model's `metrics`
#: (read at every training step) does not walk its layers for added metrics.
ADDED_METRICS = [False]


def added_metrics(layer: Any) -> list:
    """The metrics `add_metric` created on `layer` and the layers inside it, in layer order."""
    if not ADDED_METRICS[0]:
        return []
    return [m for sub in layer._flatten_layers() for m in sub.__dict__.get("_added_metrics", ())]


def _declared_trainable(p: torch.Tensor) -> bool:
    return bool(getattr(p, "_keras_trainable", getattr(p, "_tf_trainable", True)))


class LayerExtrasMixin:
    """The `Layer` methods of this module (see its docstring)."""

    # ------------------------------------------------------------------ metrics and updates
    @property
    def metrics(self) -> list:
        """The metrics added with `add_metric()` by this layer and the layers inside it."""
        return added_metrics(self)

    def add_metric(self, value: Any, name: str | None = None, **kwargs: Any) -> None:
        """Adds a metric tensor to the layer, in its `call()`, as Keras 2.15's `add_metric`.

        `value` is a tensor (aggregated by a `tf.keras.metrics.Mean` named `name`, created
        on the first call and updated on every call) or the result of calling a metric
        object (`self.add_metric(self.mean(inputs))`: that metric, named as it is). The
        metrics show in the layer's and its model's `metrics`, so `fit` and `evaluate`
        report them and reset them each epoch. `aggregation` (TF's legacy keyword) is
        accepted. Raises ValueError without a name (for a plain tensor) or outside a call.
        """
        keys = list(kwargs)
        if len(keys) > 1 or (len(keys) == 1 and keys[0] != "aggregation"):
            raise TypeError(f"Unknown keyword arguments: {kwargs.keys()}. Expected `aggregation`.")
        metric_obj = getattr(value, "_metric_obj", None)
        if name is None and metric_obj is None:
            raise ValueError(
                "Please provide a name for your metric like `self.add_metric(tf.reduce_sum(inputs), "
                "name='mean_activation')`"
            )
        if isinstance(value, KerasTensor):
            raise NotImplementedError(
                f"{type(self).__name__}.add_metric() got a symbolic tensor ({value!r}): a metric "
                "of a functional model's graph is not supported. Add it inside a layer's call() "
                "(self.add_metric(value, name=...) on the call's tensors) instead."
            )
        name = metric_obj.name if metric_obj is not None else name
        self._track_metric(value, name, metric_obj, update=metric_obj is None)

    def _track_metric(self, value: Any, name: str, metric_obj: Any, update: bool) -> None:
        """`add_metric`'s work in a call: the layer's metric named `name` (else `metric_obj`,
        else a new `Mean`), updated with `value` when `update` (not in a shape trace)."""
        context = CONTEXT
        if not context.depth and not context.tracing:
            raise ValueError(f"Expected a symbolic Tensor for the metric value, received: {value}")
        metrics = self.__dict__.setdefault("_added_metrics", [])
        metric = next((m for m in metrics if m.name == name), None)
        if metric is None:
            if metric_obj is not None:
                metric = metric_obj
            else:
                dtype = getattr(value, "dtype", None)
                floating = isinstance(dtype, torch.dtype) and dtype.is_floating_point
                metric = Mean(name=name, dtype=dtype if floating else None)
            metrics.append(metric)
            ADDED_METRICS[0] = True
        if update and not context.tracing:  # (a metric's result already updated it)
            metric.update_state(value)

    def add_update(self, updates: Any) -> None:
        """Runs update callables, as Keras 2.15's `add_update` does eagerly: each zero-argument
        callable in `updates` (a callable, or a list of them) is called, unless the layer is
        not trainable (`trainable=False` disables them) or the call is a symbolic trace.
        Update ops given as values already ran (eager execution) and are ignored."""
        if CONTEXT.tracing or not self.trainable:
            return
        for update in nest.flatten(updates):
            if callable(update):
                update()

    def add_variable(self, *args: Any, **kwargs: Any) -> Any:
        """Deprecated alias of `add_weight` (it warns, as TF's)."""
        warnings.warn(
            "`layer.add_variable` is deprecated and will be removed in a future version. Please "
            "use the `layer.add_weight()` method instead.",
            stacklevel=2,
        )
        return self.add_weight(*args, **kwargs)

    def finalize_state(self) -> None:
        """Finalizes the layer's state after its weights were updated or restored (a hook that
        subclasses override; the base layer does nothing)."""

    # ------------------------------------------------------------------ nodes by index
    def _get_node_attribute_at_index(self, node_index: int, attr: str, attr_name: str) -> Any:
        nodes = self._inbound_nodes
        if not nodes:
            raise RuntimeError(
                f"The layer {self.name} has never been called and thus has no defined {attr_name}."
            )
        if not len(nodes) > node_index:
            raise ValueError(
                f"Asked to get {attr_name} at node {node_index}, but the layer has only "
                f"{len(nodes)} inbound nodes."
            )
        node = nodes[node_index]
        if attr == "inputs":
            values: Any = [node.outputs] if node.is_input else list(node.input_tensors)
        else:
            values = [node.outputs] if node.is_input else node.outputs
        if attr_name.endswith("shape"):
            values = _shapes(values)
        if isinstance(values, list) and len(values) == 1:
            return values[0]
        return values

    def get_input_at(self, node_index: int) -> Any:
        """The input tensor(s) of the layer's call number `node_index` on symbolic inputs (a
        list when that call took several)."""
        return self._get_node_attribute_at_index(node_index, "inputs", "input")

    def get_output_at(self, node_index: int) -> Any:
        """The output tensor(s) of the layer's call number `node_index` on symbolic inputs."""
        return self._get_node_attribute_at_index(node_index, "outputs", "output")

    def get_input_shape_at(self, node_index: int) -> Any:
        """The input shape(s) (tuples) of the layer's call number `node_index`."""
        return self._get_node_attribute_at_index(node_index, "inputs", "input shape")

    def get_output_shape_at(self, node_index: int) -> Any:
        """The output shape(s) (tuples) of the layer's call number `node_index`."""
        return self._get_node_attribute_at_index(node_index, "outputs", "output shape")

    def get_input_mask_at(self, node_index: int) -> Any:
        """The mask(s) of the inputs of the layer's call number `node_index` (None where an
        input carries none)."""
        inputs = self.get_input_at(node_index)
        if isinstance(inputs, list):
            return [getattr(x, "_keras_mask", None) for x in inputs]
        return getattr(inputs, "_keras_mask", None)

    def get_output_mask_at(self, node_index: int) -> Any:
        """The mask(s) of the outputs of the layer's call number `node_index`."""
        outputs = self.get_output_at(node_index)
        if isinstance(outputs, list):
            return [getattr(x, "_keras_mask", None) for x in outputs]
        return getattr(outputs, "_keras_mask", None)

    # ------------------------------------------------------------------ weights store
    def _own_variables_in_keras_order(self) -> list[torch.Tensor]:
        """The weights this layer made itself (not its sublayers'), in Keras' order: those
        declared trainable, then the others (each in creation order)."""
        own = self._own_and_raw_weights()
        return [p for p in own if _declared_trainable(p)] + [p for p in own if not _declared_trainable(p)]

    def save_own_variables(self, store: Any) -> None:
        """Writes the layer's own weights (not its sublayers') into `store`, a dict-like: key
        `"0"`, `"1"`, ... -> numpy array, trainable weights first (Keras 2.15's weights-store
        hook of the `.keras` format)."""
        for i, v in enumerate(self._own_variables_in_keras_order()):
            store[f"{i}"] = v.detach().cpu().numpy()

    def load_own_variables(self, store: Any) -> None:
        """Assigns the layer's own weights from `store`, as written by `save_own_variables`.

        Raises ValueError when `store` holds another number of variables."""
        all_vars = self._own_variables_in_keras_order()
        if len(store.keys()) != len(all_vars):
            raise ValueError(
                f"Layer '{self.name}' expected {len(all_vars)} variables, but received "
                f"{len(store.keys())} variables during loading. Expected: "
                f"{[getattr(v, 'name', None) for v in all_vars]}"
            )
        with torch.no_grad():
            for i, v in enumerate(all_vars):
                value = torch.as_tensor(np.asarray(store[f"{i}"]))
                v.copy_(value.to(dtype=v.dtype, device=v.device).reshape(v.shape))

    # ------------------------------------------------------------------ tf.Module
    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator (`tf.Module.with_name_scope`): the decorated method runs inside the
        layer's name scope (`tf.name_scope(layer.name)`)."""

        @functools.wraps(method)
        def method_with_name_scope(self: Any, *args: Any, **kwargs: Any) -> Any:
            with _name_scope(self.name):
                return method(self, *args, **kwargs)

        return method_with_name_scope


def _shapes(values: Any) -> Any:
    """Each tensor of `values` (a structure) as its shape tuple (`backend.int_shape`)."""
    return nest.map_structure(lambda t: tuple(t.shape) if hasattr(t, "shape") else None, values)
