"""`get_source_inputs`: the `Input` tensors a symbolic (functional) tensor was computed from."""

from __future__ import annotations

from typing import Any


def get_source_inputs(tensor: Any, layer: Any = None, node_index: int | None = None) -> Any:
    """Returns the list of input tensors necessary to compute `tensor`.

    Output will always be a list of tensors (potentially with 1 element), except when
    `tensor` is not a symbolic Keras tensor (it has no layer history): then it is returned
    as is.

    Args:
        tensor: the tensor to start from.
        layer: origin layer of the tensor (found from the tensor's history when None).
        node_index: origin node index of the tensor.

    Returns:
        List of input tensors (the outputs of `tf.keras.Input`), each once, in the order met.
    """
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return tensor
    if layer is None or node_index:
        layer, node_index = history.layer, history.node_index
    if not layer._inbound_nodes:
        return [tensor]
    node = layer._inbound_nodes[node_index]
    if node.is_input:
        return list(node.output_tensors)
    source_tensors: list[Any] = []

    def add(found: Any) -> None:
        if all(found is not t for t in source_tensors):
            source_tensors.append(found)

    # A depth-first walk with an explicit stack, each node once: deep graphs (thousands of
    # layers) stay under Python's recursion limit, and shared branches are not walked again.
    seen = {id(node)}
    stack = [iter(node.input_tensors)]
    while stack:
        for parent in stack[-1]:
            parent_history = getattr(parent, "_keras_history", None)
            if parent_history is None or not parent_history.layer._inbound_nodes:
                add(parent)
                continue
            parent_node = parent_history.layer._inbound_nodes[parent_history.node_index]
            if parent_node.is_input:
                for found in parent_node.output_tensors:
                    add(found)
                continue
            if id(parent_node) not in seen:
                seen.add(id(parent_node))
                stack.append(iter(parent_node.input_tensors))
                break
        else:
            stack.pop()
    return source_tensors
