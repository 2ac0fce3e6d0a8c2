"""The graph of a functional model: slot numbers for its symbolic tensors, the topological
order of its nodes, Keras' layer order, and re-basing a graph on new `Input`s.

Each walk is iterative (a 3,000-layer chain walks under the default recursion limit).
"""

from __future__ import annotations

from typing import Any

from torchestimator._ops import nest
from torchestimator.keras.engine.input_layer import Input, InputLayer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.engine.node import Node


class _Slot:
    """Stands for a symbolic tensor in a planned call's arguments: the index of the value
    slot that holds the tensor's real value during a call."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __getstate__(self) -> int:
        return self.index

    def __setstate__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"_Slot({self.index})"


class _SlotNumbers:
    """Numbers the symbolic tensors of a graph while its plan is made (by object id, valid
    only while the graph is being planned)."""

    def __init__(self) -> None:
        self._slots: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._slots)

    def of(self, tensor: KerasTensor) -> int:
        """The slot of `tensor`, given a new one on first sight."""
        return self._slots.setdefault(id(tensor), len(self._slots))

    def template(self, structure: Any) -> Any:
        """`structure` with each KerasTensor replaced by its `_Slot`."""
        return nest.map_structure(
            lambda t: _Slot(self.of(t)) if isinstance(t, KerasTensor) else t, structure
        )


def _check_symbolic(structure: Any, what: str) -> None:
    for t in nest.flatten(structure):
        if not isinstance(t, KerasTensor):
            raise ValueError(
                f"All `{what}` of a functional Model must be symbolic tensors made by "
                f"tf.keras.Input() and layer calls; received {type(t).__name__}: {t!r}"
            )


def _topological_nodes(inputs: list[KerasTensor], outputs: list[KerasTensor]) -> list[Node]:
    """Returns the nodes between `inputs` and `outputs` in an order that runs them after their inputs."""
    input_ids = {id(t) for t in inputs}
    order: list[Node] = []
    state: dict[int, int] = {}  # 1 visiting, 2 done

    def enter(tensor: KerasTensor, consumer: str) -> Node | None:
        """The node to walk into for `tensor`, or None when it is a model input or done."""
        if id(tensor) in input_ids:
            return None
        history = tensor._keras_history
        if history is None:
            raise ValueError(f"Tensor {tensor!r} has no history: it was not made by a layer call.")
        node = history.layer._inbound_nodes[history.node_index]
        if state.get(id(node)) == 2:
            return None
        if node.is_input:
            raise ValueError(
                f"Graph disconnected: cannot obtain value for tensor {tensor!r} at layer "
                f'"{consumer}". The input "{history.layer.name}" is not among the model\'s inputs '
                f"{[t.name for t in inputs]}; add it to `inputs`."
            )
        if state.get(id(node)) == 1:
            raise ValueError(f'The graph has a cycle through layer "{node.layer.name}"')
        state[id(node)] = 1
        return node

    # An explicit stack instead of recursion: deep graphs (thousands of layers) must not hit
    # Python's recursion limit. Children are walked in order, as a recursive walk would.
    for t in outputs:
        root = enter(t, "output")
        if root is None:
            continue
        stack = [(root, iter(root.input_tensors))]
        while stack:
            node, children = stack[-1]
            for child_tensor in children:
                child = enter(child_tensor, node.layer.name)
                if child is not None:
                    stack.append((child, iter(child.input_tensors)))
                    break
            else:
                stack.pop()
                state[id(node)] = 2
                order.append(node)
    return order


def _keras_layer_order(inputs: list[KerasTensor], outputs: list[KerasTensor]) -> list:
    """The model's layers in Keras' order (`_map_graph_network`): by decreasing depth from the
    outputs (inputs first), and, within a depth, in the order a depth-first walk from the
    outputs first meets them. `model.layers`, `get_weights()` and weight files by topology
    follow it, so they line up with TensorFlow's for a branching graph too."""
    finished: set[int] = set()
    decreasing: list[Node] = []  # nodes from inputs towards outputs
    layer_index: dict[int, int] = {}
    by_id: dict[int, Any] = {}

    def enter(tensor: KerasTensor) -> Node | None:
        history = tensor._keras_history
        node = history.layer._inbound_nodes[history.node_index]
        if id(node) in finished:
            return None
        if id(history.layer) not in layer_index:
            layer_index[id(history.layer)] = len(layer_index)
            by_id[id(history.layer)] = history.layer
        return node

    def parents(node: Node) -> Any:
        return iter(() if node.is_input else node.input_tensors)

    for t in outputs:  # a depth-first walk with an explicit stack (no recursion limit)
        root = enter(t)
        if root is None:
            continue
        stack = [(root, parents(root))]
        while stack:
            node, children = stack[-1]
            for child_tensor in children:
                child = enter(child_tensor)
                if child is not None:
                    stack.append((child, parents(child)))
                    break
            else:
                stack.pop()
                finished.add(id(node))
                decreasing.append(node)
    node_depth: dict[int, int] = {}
    layer_depth: dict[int, int] = {}
    for node in reversed(decreasing):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        node_depth[id(node)] = depth
        for parent in node.parent_nodes:
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for t in inputs:  # inputs the outputs do not depend on
        layer = t._keras_history.layer
        if id(layer) not in layer_depth:
            layer_depth[id(layer)] = 0
            layer_index[id(layer)] = -1
            by_id[id(layer)] = layer
    return [by_id[i] for i in sorted(layer_depth, key=lambda i: (-layer_depth[i], layer_index[i]))]


def _rebase_on_inputs(inputs: Any, outputs: Any) -> tuple[Any, Any]:
    """`(inputs, outputs)` with every model input made by a `tf.keras.Input`: an input tensor
    that another layer produced (`tf.keras.Model(inputs=encoded, ...)`, as Keras 2 allows) is
    replaced by a new `Input` of its shape and dtype, and the layers between the inputs and the
    outputs are called again on it (the same layers, so the same weights), as Keras'
    `clone_graph_nodes` does. Graphs that start at `Input`s come back unchanged."""
    flat_inputs = nest.flatten(inputs)
    if all(t._keras_history is not None and isinstance(t._keras_history.layer, InputLayer)
           for t in flat_inputs):
        return inputs, outputs

    mapping: dict[int, Any] = {}
    for t in flat_inputs:
        if t._keras_history is not None and isinstance(t._keras_history.layer, InputLayer):
            mapping[id(t)] = t
        else:
            mapping[id(t)] = Input(batch_shape=t.shape, dtype=t.dtype)

    def swap(value: Any) -> Any:
        return mapping.get(id(value), value) if isinstance(value, KerasTensor) else value

    for node in _topological_nodes(flat_inputs, nest.flatten(outputs)):
        args, kwargs = nest.map_structure(swap, (node.call_args, node.call_kwargs))
        produced = node.layer(*args, **kwargs)
        for old, new in zip(node.output_tensors, [t for t in nest.flatten(produced)
                                                  if isinstance(t, KerasTensor)]):
            mapping[id(old)] = new
    rebase = lambda t: mapping.get(id(t), t)  # noqa: E731
    return nest.map_structure(rebase, inputs), nest.map_structure(rebase, outputs)
