"""`tf.keras.utils.model_to_dot` and `plot_model`: a Keras model as a Graphviz graph.

Built with pydot (the `plot` extra: `pip install 'torchestimator[plot]'`); drawing a file also
needs the Graphviz `dot` program. Nodes and labels are Keras 2.15's (record-shaped nodes
labelled `name|ClassName`, with shapes, dtypes, activations and trainability on request), one
edge per connection between layers; `expand_nested` draws a nested model as a dashed cluster.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

_PYDOT = ("You must install pydot (`pip install pydot`) for model_to_dot to work.")
_GRAPHVIZ = ("You must install pydot (`pip install pydot`) and install graphviz (see instructions at "
             "https://graphviz.gitlab.io/download/) for plot_model to work.")


def _pydot() -> Any:
    try:
        import pydot  # lazy: optional extra (pydot)
    except ImportError:
        return None
    return pydot


def _graphviz_runs(pydot: Any) -> bool:
    try:
        pydot.Dot.create(pydot.Dot())  # runs the `dot` program
        return True
    except Exception:  # pydot raises OSError or a bare Exception when `dot` is missing
        return False


def _graph_layers(model: Any) -> list:
    """The layers drawn for `model`: a Sequential's input layer too, as Keras does."""
    layers = list(getattr(model, "_graph_layers", None) or model.layers)
    input_layer = getattr(model, "_input_layer", None)
    if input_layer is not None and input_layer not in layers:
        layers.insert(0, input_layer)
    return layers


def _edges(model: Any, layers: list) -> list[tuple[Any, Any]]:
    """(from layer, to layer) for every connection inside `model` (Sequential: in order)."""
    nodes = getattr(model, "_nodes", None)
    if getattr(model, "_stack", None) is not None and not nodes:
        return list(zip(layers, layers[1:]))
    members = {id(layer) for layer in layers}
    edges: list[tuple[Any, Any]] = []
    seen: set[tuple[int, int]] = set()
    for node in nodes or []:
        for parent in node.parent_nodes:
            key = (id(parent.layer), id(node.layer))
            if key not in seen and id(parent.layer) in members and id(node.layer) in members:
                seen.add(key)
                edges.append((parent.layer, node.layer))
    return edges


def _format_shape(shape: Any) -> str:
    return str(shape).replace("{", r"\{").replace("}", r"\}")


def _label(layer: Any, show_shapes: bool, show_dtype: bool, show_layer_names: bool,
           show_layer_activations: bool, show_trainable: bool) -> str:
    class_name = type(layer).__name__
    layer_name = layer.name
    inner = getattr(layer, "layer", None)
    if inner is not None and hasattr(inner, "name"):  # a Wrapper (Bidirectional, TimeDistributed)
        layer_name = f"{layer_name}({inner.name})"
        class_name = f"{class_name}({type(inner).__name__})"
    label = class_name
    activation = getattr(layer, "activation", None)
    if show_layer_activations and activation is not None:
        name = getattr(activation, "name", None) or getattr(activation, "__name__", None) or str(activation)
        label = "{" + f"{label}|{name}" + "}"
    if show_layer_names:
        label = f"{layer_name}|{label}"
    if show_dtype:
        label = f"{label}|{layer.dtype if layer.dtype is not None else '?'}"
    if show_shapes:
        try:
            outputs = _format_shape(layer.output_shape)
        except (AttributeError, ValueError, RuntimeError, IndexError):
            outputs = "?"
        try:
            inputs = _format_shape(layer.input_shape)
        except (AttributeError, ValueError, RuntimeError, IndexError):
            inputs = "?"
        label = "{" + label + "}|{input:|output:}|{{" + inputs + "}|{" + outputs + "}}"
    if show_trainable:
        label = f"{'T' if layer.trainable else 'NT'}|{label}"
    return label


def _layer_range(model: Any, layers: list, layer_range: Any) -> tuple[int, int] | None:
    if layer_range is None:
        return None
    if len(layer_range) != 2:
        raise ValueError(
            f"layer_range must be of shape (2,). Received: layer_range = {layer_range} of length "
            f"{len(layer_range)}"
        )
    if not all(isinstance(v, str) for v in layer_range):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    names = [layer.name for layer in layers]
    starts = [i for i, n in enumerate(names) if re.match(layer_range[0], n)]
    ends = [i for i, n in enumerate(names) if re.match(layer_range[1], n)]
    if not starts or not ends:
        raise ValueError(
            f"Passed layer_names do not match the layer names in the model. Received: {layer_range}")
    return starts[0], ends[-1] + 1


def model_to_dot(model: Any, show_shapes: bool = False, show_dtype: bool = False,
                 show_layer_names: bool = True, rankdir: str = "TB", expand_nested: bool = False,
                 dpi: int = 96, subgraph: bool = False, layer_range: Any = None,
                 show_layer_activations: bool = False, show_trainable: bool = False) -> Any:
    """Converts a Keras model to dot format.

    Returns a `pydot.Dot` instance representing the model (a `pydot.Cluster` with
    `subgraph=True`). Raises ValueError when the model is not built, ImportError when pydot
    is not installed.
    """
    if not getattr(model, "built", False):
        raise ValueError(
            "This model has not yet been built. Build the model first by calling `build()` or "
            "by calling the model on a batch of data."
        )
    pydot = _pydot()
    if pydot is None:
        raise ImportError(_PYDOT)
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set_node_defaults(shape="record")
    graph = getattr(model, "_is_graph_network", False)  # Functional and Sequential
    layers = _graph_layers(model) if graph else []
    if not graph:  # a subclassed model: one node
        dot.add_node(pydot.Node(str(id(model)), label=model.name))
        return dot
    bounds = _layer_range(model, layers, layer_range)
    first: dict[int, Any] = {}
    last: dict[int, Any] = {}
    for index, layer in enumerate(layers):
        if bounds is not None and not bounds[0] <= index < bounds[1]:
            continue
        if expand_nested and getattr(layer, "_is_graph_network", False):
            cluster = model_to_dot(layer, show_shapes, show_dtype, show_layer_names, rankdir,
                                   expand_nested, subgraph=True,
                                   show_layer_activations=show_layer_activations,
                                   show_trainable=show_trainable)
            nodes = cluster.get_nodes()
            first[id(layer)], last[id(layer)] = nodes[0], nodes[-1]
            dot.add_subgraph(cluster)
            continue
        dot.add_node(pydot.Node(str(id(layer)), label=_label(
            layer, show_shapes, show_dtype, show_layer_names, show_layer_activations, show_trainable)))
    drawn = {id(layer) for i, layer in enumerate(layers)
             if bounds is None or bounds[0] <= i < bounds[1]}
    for source, target in _edges(model, layers):
        if id(source) not in drawn or id(target) not in drawn:
            continue
        tail = last[id(source)].get_name() if id(source) in last else str(id(source))
        head = first[id(target)].get_name() if id(target) in first else str(id(target))
        if not dot.get_edge(tail, head):
            dot.add_edge(pydot.Edge(tail, head))
    return dot


def plot_model(model: Any, to_file: str = "model.png", show_shapes: bool = False,
               show_dtype: bool = False, show_layer_names: bool = True, rankdir: str = "TB",
               expand_nested: bool = False, dpi: int = 96, layer_range: Any = None,
               show_layer_activations: bool = False, show_trainable: bool = False) -> Any:
    """Converts a Keras model to dot format and saves it to `to_file` (its extension, default
    png, is the format). Returns an IPython `Image` of it in a notebook, else None. Without
    pydot or the Graphviz `dot` program: in a notebook prints what to install and returns
    None (Keras's behaviour), elsewhere raises ImportError."""
    if not getattr(model, "built", False):
        raise ValueError(
            "This model has not yet been built. Build the model first by calling `build()` or "
            "by calling the model on a batch of data."
        )
    pydot = _pydot()
    if pydot is None or not _graphviz_runs(pydot):
        if "IPython.core.magics.namespace" in sys.modules:
            print(_GRAPHVIZ)
            return None
        raise ImportError(_GRAPHVIZ)
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi, layer_range=layer_range,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable)
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1]
    extension = extension[1:] if extension else "png"
    if not os.path.splitext(to_file)[1]:
        to_file += ".png"
    dot.write(to_file, format=extension)
    if extension != "pdf":
        try:
            from IPython import display  # lazy: optional extra (ipython)

            return display.Image(filename=to_file)
        except ImportError:
            pass
    return None
