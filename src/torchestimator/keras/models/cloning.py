"""`clone_model`: a new model with the same architecture and freshly initialized weights."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchestimator._ops import nest
from torchestimator.keras._registry import safe_mode_scope
from torchestimator.keras.engine.functional import Functional
from torchestimator.keras.engine.input_layer import Input, InputLayer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.engine.sequential import Sequential


def _default_clone(layer: Any) -> Any:
    # Cloning an object already in memory is not loading untrusted input: Lambda layers allowed.
    with safe_mode_scope(False):
        return type(layer).from_config(layer.get_config())


def clone_model(
    model: Any, input_tensors: Any = None, clone_function: Callable | None = None
) -> Any:
    """Returns a copy of a Sequential or functional `model` with new layers (new weights).

    `clone_function(layer)` makes each new layer (default: from its config);
    `input_tensors` replaces the model's inputs.
    """
    clone_function = clone_function or _default_clone
    if isinstance(model, Sequential):
        layers = [clone_function(layer) for layer in model.layers]
        if input_tensors is not None:
            x = nest.flatten(input_tensors)[0]
            return Sequential([x._keras_history.layer] + layers, name=model.name)
        clone = Sequential(name=model.name)
        if model._input_layer is not None:
            clone.add(Input(batch_shape=model._input_layer._batch_input_shape,
                            dtype=model._input_layer.dtype))
        for layer in layers:
            clone.add(layer)
        return clone
    if not isinstance(model, Functional):
        raise ValueError(
            "clone_model() works on Sequential and functional models; for a subclassed model "
            f"({type(model).__name__}) create a new instance of its class."
        )
    new_inputs = (
        nest.flatten(input_tensors) if input_tensors is not None
        else [Input(batch_shape=t.shape, dtype=t.dtype, name=t._keras_history.layer.name)
              for t in model._input_tensors]
    )
    values = {id(old): new for old, new in zip(model._input_tensors, new_inputs)}
    clones: dict[int, Any] = {}
    for node in model._nodes:
        layer = node.layer
        if isinstance(layer, InputLayer):
            continue
        if id(layer) not in clones:
            clones[id(layer)] = clone_function(layer)
        args = nest.map_structure(
            lambda t: values[id(t)] if isinstance(t, KerasTensor) else t, node.call_args
        )
        kwargs = nest.map_structure(
            lambda t: values[id(t)] if isinstance(t, KerasTensor) else t, node.call_kwargs
        )
        out = clones[id(layer)](*args, **kwargs)
        for old, new in zip(node.output_tensors, nest.flatten(out)):
            values[id(old)] = new
    outputs = nest.map_structure(lambda t: values[id(t)], model._nested_outputs)
    inputs = (
        nest.pack_sequence_as(model._nested_inputs, new_inputs)
        if not isinstance(model._nested_inputs, KerasTensor) else new_inputs[0]
    )
    return Functional(inputs, outputs, name=model.name)
