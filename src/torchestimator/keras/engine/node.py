"""`Node`: one call of a layer on symbolic inputs, a vertex of the functional graph."""

from __future__ import annotations

from typing import Any

from torchestimator._ops import nest
from torchestimator.keras.engine.keras_tensor import KerasHistory, KerasTensor


class Node:
    """Records `layer(*args, **kwargs) -> outputs` where some arguments are KerasTensors.

    A shared layer called twice has two nodes; each output KerasTensor is
    stamped with `KerasHistory(layer, node_index, tensor_index)`.
    """

    def __init__(self, layer: Any, call_args: tuple, call_kwargs: dict, outputs: Any):
        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.input_tensors = [
            t for t in nest.flatten((call_args, call_kwargs)) if isinstance(t, KerasTensor)
        ]
        self.output_tensors = [t for t in nest.flatten(outputs) if isinstance(t, KerasTensor)]
        self.parent_nodes = []
        for t in self.input_tensors:
            history = t._keras_history
            if history is not None:
                self.parent_nodes.append(history.layer._inbound_nodes[history.node_index])
        node_index = len(layer._inbound_nodes)
        layer._inbound_nodes.append(self)
        for i, t in enumerate(self.output_tensors):
            t._keras_history = KerasHistory(layer, node_index, i)

    @property
    def is_input(self) -> bool:
        """True for the node of an `InputLayer` (it has no inputs)."""
        return not self.input_tensors

    def __repr__(self) -> str:
        return f"<Node {self.layer.name} in={len(self.input_tensors)} out={len(self.output_tensors)}>"
