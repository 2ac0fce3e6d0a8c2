"""`Model.summary()`: Keras 2's summary table — layers, output shapes, parameter counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchestimator._ops import nest


def _fmt_shape(shape: Any) -> str:
    if isinstance(shape, list):
        return "[" + ", ".join(_fmt_shape(s) for s in shape) + "]"
    if isinstance(shape, dict):
        return "{" + ", ".join(f"'{k}': {_fmt_shape(v)}" for k, v in shape.items()) + "}"
    if shape is None:
        return "multiple"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _fmt_bytes(n: int) -> str:
    size = float(n)
    for unit in ("Byte", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} GB"


def _output_shape(layer: Any) -> Any:
    nodes = layer._inbound_nodes
    if not nodes:
        return None
    shapes = [nest.map_structure(lambda t: tuple(t.shape), n.outputs) for n in nodes]
    if all(s == shapes[0] for s in shapes):
        return shapes[0]
    return None


def _count(layer: Any) -> int:
    return int(sum(p.numel() for p in layer.weights)) if layer.built else 0


def _row(fields: list[str], positions: list[int]) -> str:
    line = ""
    for i, field in enumerate(fields):
        if i > 0:
            line = line[:-1] + " "
        line += field
        line = line[: positions[i]]
        line += " " * (positions[i] - len(line))
    return line


def print_summary(
    model: Any,
    line_length: int | None = None,
    positions: list[float] | None = None,
    print_fn: Callable[[str], Any] | None = None,
    expand_nested: bool = False,
    show_trainable: bool = False,
) -> None:
    """Prints the summary of `model` with `print_fn` (default `print`)."""
    print_fn = print_fn or print
    graph = getattr(model, "_is_graph_network", False)  # Functional and Sequential
    sequential_like = getattr(model, "_is_sequential", False) or not graph or all(
        len(n.input_tensors) <= 1 for n in model._nodes
    ) and len(model.inputs) == 1
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.33, 0.55, 0.67, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        header.append("Trainable")

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    print_fn(_row(header, positions))
    print_fn("=" * line_length)

    layers = model.layers

    def emit(layer: Any, prefix: str = "") -> None:
        shape = _output_shape(layer)
        fields = [f"{prefix}{layer.name} ({type(layer).__name__})", _fmt_shape(shape), str(_count(layer))]
        if not sequential_like:
            connected = []
            for node in layer._inbound_nodes:
                if id(node) not in model_node_ids:
                    continue
                for t in node.input_tensors:
                    h = t._keras_history
                    connected.append(f"{h.layer.name}[{h.node_index}][{h.tensor_index}]")
            fields.append(", ".join(connected))
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        print_fn(_row(fields, positions))
        if expand_nested and hasattr(layer, "layers") and layer is not model and layer.layers:
            for sub in layer.layers:
                emit(sub, prefix + "| ")

    model_node_ids = {id(n) for n in getattr(model, "_nodes", [])}
    for i, layer in enumerate(layers):
        emit(layer)
        print_fn("=" * line_length if i == len(layers) - 1 else " " * line_length)

    trainable = int(sum(p.numel() for p in model.trainable_weights)) if model.built else 0
    non_trainable = int(sum(p.numel() for p in model.non_trainable_weights)) if model.built else 0
    trainable_bytes = int(sum(p.numel() * p.element_size() for p in model.trainable_weights))
    non_trainable_bytes = int(sum(p.numel() * p.element_size() for p in model.non_trainable_weights))
    total = trainable + non_trainable
    print_fn(f"Total params: {total} ({_fmt_bytes(trainable_bytes + non_trainable_bytes)})")
    print_fn(f"Trainable params: {trainable} ({_fmt_bytes(trainable_bytes)})")
    print_fn(f"Non-trainable params: {non_trainable} ({_fmt_bytes(non_trainable_bytes)})")
    print_fn("_" * line_length)
