"""`Functional`: a model defined by a graph of layer calls on symbolic tensors.

`Model(inputs, outputs)` walks back from the outputs through each tensor's
`KerasHistory` to the `Input`s, orders the nodes once (a topological order),
and runs them in that order on every call, keeping each intermediate value
in the slot (a list index) that its symbolic tensor was given. The plan holds
slot numbers, not object ids, so a `copy.deepcopy` or pickled copy of the
model runs as the original does.

The layers are the model's torch children, keyed by the name the user gave a layer or
else by its index in `model.layers` (`layer_utils.torch_child_key`): `state_dict` keys
(`1.kernel`, `head.bias`) depend only on the architecture, never on the process-wide
default names (`dense_3`), which Keras' own files keep using (`keras_state_dict`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch

from torchestimator._ops import nest
from torchestimator.keras._registry import deserialize_keras_object, serialize_keras_object
from torchestimator.keras.backend import _state
from torchestimator.keras.engine._graph import (  # _Slot: pickles of old models name it here
    _check_symbolic,
    _keras_layer_order,
    _rebase_on_inputs,
    _Slot,
    _SlotNumbers,
    _topological_nodes,
)
from torchestimator.keras.engine.input_layer import InputLayer
from torchestimator.keras.engine.input_spec import _fmt
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.engine.layer_utils import register_children
from torchestimator.keras.engine.model import Model
from torchestimator.train._object_graph import register_keras_class


class Functional(Model):
    """A model built from `inputs` and `outputs` symbolic tensors (`tf.keras.Model(inputs, outputs)`).

    Inputs and outputs may be one tensor, a list or a dict; shared layers
    (one layer, several calls) and models used as layers work.
    """

    _is_graph_network = True

    _extra_slots: tuple = ()  # (slot, 'loss' | 'metric', name) of add_loss/add_metric tensors

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, trainable: bool = True,
                 **kwargs: Any):
        if name is None and type(self) is Functional:
            name = _state.unique_object_name("model")
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._init_graph(inputs, outputs)

    def _init_graph(self, inputs: Any, outputs: Any) -> None:
        _check_symbolic(inputs, "inputs")
        _check_symbolic(outputs, "outputs")
        inputs, outputs = _rebase_on_inputs(inputs, outputs)
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        if isinstance(outputs, tuple):
            outputs = list(outputs)
        self._nested_inputs = inputs
        self._nested_outputs = outputs
        self._input_tensors = nest.flatten(inputs)
        self._output_tensors = nest.flatten(outputs)
        for t in self._input_tensors:
            history = t._keras_history
            if history is None or not isinstance(history.layer, InputLayer):
                raise ValueError(
                    f"Model inputs must come from tf.keras.Input(); received {t!r}, made by "
                    f"{'no layer' if history is None else 'layer ' + repr(history.layer.name)}."
                )
        self._nodes = _topological_nodes(self._input_tensors, self._output_tensors)
        layers = _keras_layer_order(self._input_tensors, self._output_tensors)
        self._graph_layers = layers
        names = [layer.name for layer in layers]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(
                f"The name(s) {duplicates} are used by more than one layer in model "
                f'"{self.name}"; all layer names should be unique.'
            )
        self._register_layers(layers)
        self._make_plan()
        self._single_io = (
            isinstance(inputs, KerasTensor) or (isinstance(inputs, list) and len(inputs) == 1)
        ) and isinstance(outputs, KerasTensor)
        self._input_checks = [
            (t.ndim, [(i, d) for i, d in enumerate(t.shape) if i > 0 and d is not None])
            for t in self._input_tensors
        ]
        self.built = True
        self._build_shapes = nest.map_structure(lambda t: t.shape, inputs)

    def _register_layers(self, layers: list) -> None:
        """Registers `layers` (graph order) as torch children keyed by the architecture: a
        user-given name, else the layer's index in `self.layers` (`layer_utils.torch_child_key`),
        so two instances of one architecture have the same `state_dict` keys."""
        positions = {id(layer): index for index, layer in enumerate(self.layers)}
        register_children(self, layers, [positions.get(id(layer)) for layer in layers])

    def _make_plan(self) -> None:
        """Numbers the graph's symbolic tensors (the inputs first) and records, for each node
        in order, `(layer, args, kwargs, output slots, single input slot or None)` with
        `_Slot`s in place of tensors in `args` and `kwargs`."""
        slots = _SlotNumbers()
        self._input_slots = [slots.of(t) for t in self._input_tensors]
        plan = []
        extras = self.__dict__.get("_graph_extras", [])
        extra_nodes = self.__dict__.get("_extra_nodes", [])
        for n in [*self._nodes, *extra_nodes]:
            single = (
                slots.of(n.call_args[0])
                if len(n.call_args) == 1 and not n.call_kwargs
                and isinstance(n.call_args[0], KerasTensor) else None
            )
            args = slots.template(n.call_args)
            kwargs = slots.template(n.call_kwargs)
            plan.append((n.layer, args, kwargs, [slots.of(t) for t in n.output_tensors], single))
        self._output_slots = [slots.of(t) for t in self._output_tensors]
        self._extra_slots = [(slots.of(t), kind, name) for t, kind, name in extras]
        self._plan = plan
        self._slot_count = len(slots)

    # ------------------------------------------------------------------ structure
    @property
    def layers(self) -> list:
        """The model's layers in graph order, its InputLayers first."""
        return list(self._graph_layers)

    @property
    def inputs(self) -> list[KerasTensor]:
        """The model's input tensors (a flat list)."""
        return list(self._input_tensors)

    @property
    def outputs(self) -> list[KerasTensor]:
        """The model's output tensors (a flat list)."""
        return list(self._output_tensors)

    @property
    def input_names(self) -> list[str]:
        """The names of the model's inputs, in order."""
        return [t._keras_history.layer.name for t in self._input_tensors]

    @property
    def output_names(self) -> list[str]:
        """The names of the layers that produce the model's outputs (dict keys for dict outputs)."""
        if isinstance(self._nested_outputs, dict):
            return sorted(self._nested_outputs)
        return [t._keras_history.layer.name for t in self._output_tensors]

    @property
    def input(self) -> Any:
        """The model's input tensor(s), in the structure they were given."""
        return self._nested_inputs

    @property
    def output(self) -> Any:
        """The model's output tensor(s), in the structure they were given."""
        return self._nested_outputs

    @property
    def input_shape(self) -> Any:
        """The shape(s) of the model's inputs."""
        return nest.map_structure(lambda t: t.shape, self._nested_inputs)

    @property
    def output_shape(self) -> Any:
        """The shape(s) of the model's outputs."""
        return nest.map_structure(lambda t: t.shape, self._nested_outputs)

    def build(self, input_shape: Any = None) -> None:
        """A functional model is built when it is made; this does nothing."""
        self.built = True

    # ------------------------------------------------------------------ running
    def _flatten_call_inputs(self, inputs: Any) -> list:
        names = self.input_names
        if isinstance(inputs, dict):
            if isinstance(self._nested_inputs, dict):
                keys = sorted(self._nested_inputs)
                lookup = {k: self._nested_inputs[k]._keras_history.layer.name for k in keys}
            else:
                keys, lookup = names, {n: n for n in names}
            missing = [k for k in keys if k not in inputs and lookup[k] not in inputs]
            if missing:
                raise ValueError(
                    f'Model "{self.name}" is missing input(s) {missing}; its inputs are named '
                    f"{keys}, and it received keys {sorted(inputs)}."
                )
            extra = sorted(set(inputs) - set(keys) - set(lookup.values()))
            if extra and len(keys) == 1:
                raise ValueError(
                    f'Model "{self.name}" received input key(s) {extra} it does not have; its '
                    f"input names are {keys}."
                )
            return [inputs[k] if k in inputs else inputs[lookup[k]] for k in keys]
        if isinstance(inputs, (list, tuple)) and len(self._input_tensors) > 1:
            if len(inputs) != len(self._input_tensors):
                raise ValueError(
                    f'Model "{self.name}" expects {len(self._input_tensors)} inputs {names}, but '
                    f"it received {len(inputs)} input tensors."
                )
            return list(inputs)
        if len(self._input_tensors) != 1:
            raise ValueError(
                f'Model "{self.name}" expects {len(self._input_tensors)} inputs {names}; pass a '
                "list or a dict keyed by input name."
            )
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1 and isinstance(inputs[0], torch.Tensor):
            return [inputs[0]]
        return [inputs]

    def _check_input_shapes(self, flat: list) -> None:
        """Checks each input against its `Input`'s shape, conforming `flat` in place as Keras
        2.15's `Functional._conform_to_reference_input`: a `(batch, ..., 1)` value for a
        `(batch, ...)` input loses its last axis, a `(batch, ...)` value for a `(batch, ..., 1)`
        input (a DataFrame column) gains one. Only a value that fails the quick check pays."""
        for position, (value, spec, (ndim, fixed)) in enumerate(
                zip(flat, self._input_tensors, self._input_checks)):
            shape = getattr(value, "shape", None)
            if shape is None:
                continue
            if len(shape) == ndim and all(shape[i] == d for i, d in fixed):
                continue
            want = spec.shape
            if isinstance(value, (torch.Tensor, np.ndarray)):
                if len(shape) == ndim + 1 and shape[-1] == 1:
                    value = value.squeeze(-1) if isinstance(value, torch.Tensor) else value[..., 0]
                elif len(shape) == ndim - 1 and want[-1] == 1:
                    value = value.unsqueeze(-1) if isinstance(value, torch.Tensor) else value[..., None]
                flat[position] = value
            shape = tuple(value.shape)
            if len(shape) != len(want) or any(
                w is not None and w != s for w, s in zip(want[1:], shape[1:])
            ):
                name = spec._keras_history.layer.name
                raise ValueError(
                    f'Input "{name}" of model "{self.name}" is incompatible with the model: '
                    f"expected shape={_fmt(want)}, found shape={_fmt(shape)}"
                )

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        """Runs the graph on `inputs` (one tensor, a list, or a dict keyed by input name)."""
        values: list = [None] * self._slot_count
        if self._single_io and isinstance(inputs, torch.Tensor):  # the common case, kept short
            flat = [inputs]
            self._check_input_shapes(flat)
            values[self._input_slots[0]] = flat[0]
            self._run_plan(values)
            return values[self._output_slots[0]]
        flat = self._flatten_call_inputs(inputs)
        self._check_input_shapes(flat)
        for slot, value in zip(self._input_slots, flat):
            values[slot] = value
        self._run_plan(values)
        if self._extra_slots:
            self._add_extras(values)
        outputs = [values[slot] for slot in self._output_slots]
        return nest.pack_sequence_as(self._nested_outputs, outputs)

    # ------------------------------------------------------------------ symbolic losses
    def add_loss(self, losses: Any, **kwargs: Any) -> None:
        """As `Layer.add_loss`. A symbolic tensor of the model's graph (computed from its
        inputs: `model.add_loss(tf.reduce_mean(hidden))`) becomes part of the model, computed
        and added to `model.losses` at every call, as TF's functional models do."""
        flat = nest.flatten(losses)
        symbolic = [v for v in flat if isinstance(v, KerasTensor)]
        if not symbolic:
            super().add_loss(losses, **kwargs)
            return
        kwargs.pop("inputs", None)
        if kwargs:
            raise TypeError(f"Unknown keyword arguments: {kwargs.keys()}")
        self._add_graph_extras([(t, "loss", None) for t in symbolic])
        rest = [v for v in flat if not isinstance(v, KerasTensor)]
        if rest:
            super().add_loss(rest)

    def add_metric(self, value: Any, name: str | None = None, **kwargs: Any) -> None:
        """As `Layer.add_metric`. A symbolic tensor of the model's graph becomes a metric of
        the model (a `Mean` named `name`), updated at every call, as TF's functional models
        do; `fit` and `evaluate` report it."""
        if not isinstance(value, KerasTensor):
            super().add_metric(value, name, **kwargs)
            return
        keys = list(kwargs)
        if len(keys) > 1 or (len(keys) == 1 and keys[0] != "aggregation"):
            raise TypeError(f"Unknown keyword arguments: {kwargs.keys()}. Expected `aggregation`.")
        if name is None:
            raise ValueError(
                "Please provide a name for your metric like `self.add_metric(tf.reduce_sum(inputs), "
                "name='mean_activation')`"
            )
        self._add_graph_extras([(value, "metric", name)])

    def _add_graph_extras(self, extras: list) -> None:
        """Makes the nodes that compute the symbolic `extras` ((tensor, 'loss' | 'metric',
        name)) part of every call, after the outputs' nodes; their layers' weights become the
        model's."""
        every = [*self.__dict__.get("_graph_extras", []), *extras]
        tensors = [t for t, _, _ in every]
        try:
            nodes = _topological_nodes(self._input_tensors, [*self._output_tensors, *tensors])
        except ValueError as error:
            raise ValueError(
                f"Model {self.name!r}: add_loss/add_metric takes a tensor computed from the "
                f"model's inputs; {error}"
            ) from None
        known = {id(n) for n in self._nodes}
        extra_nodes = [n for n in nodes if id(n) not in known]
        graph_layers = {id(layer) for layer in self._graph_layers}
        new_layers = []
        for n in extra_nodes:
            if id(n.layer) not in graph_layers and all(n.layer is not x for x in new_layers):
                new_layers.append(n.layer)
        self.__dict__["_graph_extras"] = every
        self.__dict__["_extra_nodes"] = extra_nodes
        self.__dict__["_extra_layer_ids"] = {
            *self.__dict__.get("_extra_layer_ids", ()), *(id(layer) for layer in new_layers)}
        self._graph_layers = [*self._graph_layers, *new_layers]  # model.layers, as TF's
        register_children(self, new_layers, [None] * len(new_layers))
        self._single_io = False  # calls take the path that adds the extras
        self._make_plan()

    def _add_extras(self, values: list) -> None:
        """Adds the values of the symbolic losses and metrics of this call (a concrete call:
        a symbolic one, nesting this model in another, leaves them to the concrete calls)."""
        for slot, kind, name in self._extra_slots:
            value = values[slot]
            if isinstance(value, KerasTensor) or getattr(value, "is_meta", False):
                continue
            if kind == "loss":
                super().add_loss(value)
            else:
                super().add_metric(value, name=name)

    def _run_plan(self, values: list) -> None:
        """Runs the graph's nodes in order; `values[slot]` holds each symbolic tensor's value."""

        def fill(t: Any) -> Any:
            return values[t.index] if type(t) is _Slot else t

        for layer, call_args, call_kwargs, out_ids, single in self._plan:
            if single is not None:
                out = layer(values[single])
            else:
                out = layer(*nest.map_structure(fill, call_args),
                            **nest.map_structure(fill, call_kwargs))
            if len(out_ids) == 1 and not isinstance(out, (list, tuple, dict)):
                values[out_ids[0]] = out
            else:
                for i, v in zip(out_ids, nest.flatten(out)):
                    values[i] = v

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns the graph as Keras' functional config: layers with inbound nodes, input/output layers.
        Losses and metrics added as symbolic tensors (`add_loss`, `add_metric`) are not in it
        (a warning says so): add them again to the model made from the config."""
        if self.__dict__.get("_graph_extras"):
            warnings.warn(
                f"Model {self.name!r}: the losses and metrics added with add_loss/add_metric on "
                "symbolic tensors are not part of its config or of a saved model; call "
                "add_loss/add_metric again on the model that is loaded or rebuilt.",
                UserWarning, stacklevel=2)
        node_ids = {id(n) for n in self._nodes}
        for t in self._input_tensors:
            node_ids.add(id(t._keras_history.layer._inbound_nodes[t._keras_history.node_index]))

        def kept_index(layer: Any, node_index: int) -> int:
            kept = [n for n in layer._inbound_nodes if id(n) in node_ids]
            return kept.index(layer._inbound_nodes[node_index])

        def encode(value: Any) -> Any:
            if isinstance(value, KerasTensor):
                h = value._keras_history
                return {"__keras_tensor__": [h.layer.name, kept_index(h.layer, h.node_index), h.tensor_index]}
            if isinstance(value, (list, tuple)):
                return [encode(v) for v in value]
            if isinstance(value, dict):
                return {k: encode(v) for k, v in value.items()}
            return serialize_keras_object(value)

        layer_configs = []
        extra_layers = self.__dict__.get("_extra_layer_ids", ())
        for layer in self._graph_layers:
            if id(layer) in extra_layers:
                continue
            inbound = [
                {"args": encode(list(n.call_args)), "kwargs": encode(n.call_kwargs)}
                for n in layer._inbound_nodes
                if id(n) in node_ids and not n.is_input
            ]
            layer_configs.append({
                "class_name": type(layer).__name__,
                "registered_name": getattr(type(layer), "_registered_name", None) or type(layer).__name__,
                "name": layer.name,
                "config": layer.get_config(),
                "inbound_nodes": inbound,
            })

        def ref(t: KerasTensor) -> list:
            h = t._keras_history
            return [h.layer.name, kept_index(h.layer, h.node_index), h.tensor_index]

        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": layer_configs,
            "input_layers": nest.map_structure(ref, self._nested_inputs)
            if not isinstance(self._nested_inputs, KerasTensor) else [ref(self._nested_inputs)],
            "output_layers": nest.map_structure(ref, self._nested_outputs)
            if not isinstance(self._nested_outputs, KerasTensor) else [ref(self._nested_outputs)],
            "input_structure": _structure_kind(self._nested_inputs),
            "output_structure": _structure_kind(self._nested_outputs),
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Functional:
        """Rebuilds a functional model from `get_config()`'s output (layers are re-created, not shared)."""
        layers: dict[str, Any] = {}
        pending: list[tuple[str, dict]] = []
        outputs_by_ref: dict[tuple[str, int], Any] = {}
        for spec in config["layers"]:
            layer = deserialize_keras_object(
                {"class_name": spec["class_name"], "config": spec["config"],
                 "registered_name": spec.get("registered_name")},
                custom_objects=custom_objects,
            )
            layers[spec["name"]] = layer
            if isinstance(layer, InputLayer):
                outputs_by_ref[(spec["name"], 0)] = layer._output_tensor
            for node in spec["inbound_nodes"]:
                pending.append((spec["name"], node))

        def decode(value: Any) -> Any:
            if isinstance(value, dict) and "__keras_tensor__" in value:
                name, node_index, tensor_index = value["__keras_tensor__"]
                out = outputs_by_ref[(name, node_index)]
                return nest.flatten(out)[tensor_index]
            if isinstance(value, list):
                return [decode(v) for v in value]
            if isinstance(value, dict):
                return {k: decode(v) for k, v in value.items()}
            return value

        def ready(value: Any) -> bool:
            if isinstance(value, dict) and "__keras_tensor__" in value:
                name, node_index, _ = value["__keras_tensor__"]
                return (name, node_index) in outputs_by_ref
            if isinstance(value, list):
                return all(ready(v) for v in value)
            if isinstance(value, dict):
                return all(ready(v) for v in value.values())
            return True

        counts: dict[str, int] = {}
        while pending:
            progressed = False
            for item in list(pending):
                name, node = item
                if not (ready(node["args"]) and ready(node["kwargs"])):
                    continue
                _check_node_takes_a_tensor(name, node)
                args = decode(node["args"])
                kwargs = decode(node["kwargs"])
                out = layers[name](*args, **kwargs)
                index = counts.get(name, 0)
                counts[name] = index + 1
                outputs_by_ref[(name, index)] = out
                pending.remove(item)
                progressed = True
            if not progressed:
                raise ValueError(
                    f"Cannot rebuild the model from its config: node(s) of layer(s) "
                    f"{sorted({n for n, _ in pending})} have inputs that are never produced."
                )

        def resolve(ref: Any) -> Any:
            name, node_index, tensor_index = ref
            return nest.flatten(outputs_by_ref[(name, node_index)])[tensor_index]

        def rebuild(refs: Any, kind: str) -> Any:
            if isinstance(refs, dict):
                return {k: resolve(v) for k, v in refs.items()}
            tensors = [resolve(r) for r in refs]
            return tensors[0] if kind == "single" else tensors

        inputs = rebuild(config["input_layers"], config.get("input_structure", "list"))
        outputs = rebuild(config["output_layers"], config.get("output_structure", "list"))
        return cls(inputs=inputs, outputs=outputs, name=config.get("name"),
                   trainable=config.get("trainable", True))


def _refers_to_a_tensor(value: Any) -> bool:
    """True when a saved node argument holds a `__keras_tensor__` reference somewhere."""
    if isinstance(value, dict):
        return "__keras_tensor__" in value or any(_refers_to_a_tensor(v) for v in value.values())
    if isinstance(value, list):
        return any(_refers_to_a_tensor(v) for v in value)
    return False


def _check_node_takes_a_tensor(layer_name: str, node: dict) -> None:
    """Raises ValueError for a saved node whose arguments hold no symbolic tensor.

    Every node a model records is a call on symbolic tensors, and rebuilding it runs only
    shape inference; a node of constants alone would call the layer eagerly on data taken
    from the file while the model loads (how a crafted config ran a function), so it is
    refused, naming the layer."""
    if not (_refers_to_a_tensor(node.get("args")) or _refers_to_a_tensor(node.get("kwargs"))):
        raise ValueError(
            f"Cannot rebuild the model from its config: a node of layer '{layer_name}' is "
            f"called on constants only ({str(node.get('args'))[:80]!r}), not on the output of "
            "another layer. A saved model never records such a call: the config is damaged or "
            "crafted, and loading it would run the layer on data from the file."
        )


def _structure_kind(value: Any) -> str:
    if isinstance(value, KerasTensor):
        return "single"
    if isinstance(value, dict):
        return "dict"
    return "list"



register_keras_class("functional", Functional)  # the object graph of tf.train.Checkpoint walks it
