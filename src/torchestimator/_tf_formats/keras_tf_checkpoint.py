"""Keras 2 models stored in TensorFlow's checkpoint format:

* `model.save_weights("ckpt")` (TF format): an object-based checkpoint whose keys follow the
  model's object graph: `layer_with_weights-<N>/<attribute path>/.ATTRIBUTES/VARIABLE_VALUE`,
  N counting the model's layers that have weights, in `model.layers` order (as Keras tracks
  them), the attribute path naming the variable inside the layer (`kernel`, `cell/kernel`,
  `forward_layer/cell/bias`, `layer/kernel` for TimeDistributed). Our layers hold their
  weights under the same attribute paths, so each key maps to the layer's `state_dict` entry.
* a Keras 2 SavedModel directory (`model.save(dir, save_format="tf")`): `keras_metadata.pb`
  (a `SavedMetadata` proto: each node's JSON metadata; the root's holds the model config)
  and `variables/variables.index` (the checkpoint above). TF's traced graphs
  (`saved_model.pb`) are not needed.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import torch
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from tensorboard.compat.proto import trackable_object_graph_pb2

from torchestimator._tf_formats.keras_config import from_keras2_config
from torchestimator._tf_formats.keras_h5 import _compile
from torchestimator._tf_formats.tensor_bundle import TensorBundle

SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
METADATA_FILE = "keras_metadata.pb"
__all__ = ["is_keras_savedmodel", "load_model_savedmodel", "load_weights_tf_checkpoint"]


def _saved_metadata_class() -> Any:
    """Keras' `SavedMetadata` (keras/protobuf/saved_metadata.proto), built from its fields."""
    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="torchestimator/_tf_formats/saved_metadata.proto",
                                              package="torchestimator_keras", syntax="proto3")
    obj = file.message_type.add(name="SavedObject")
    for name, number in (("node_id", 2), ("node_path", 3), ("identifier", 4), ("metadata", 5)):
        obj.field.add(name=name, number=number, label=F.LABEL_OPTIONAL,
                      type=F.TYPE_INT32 if name == "node_id" else F.TYPE_STRING)
    meta = file.message_type.add(name="SavedMetadata")
    meta.field.add(name="nodes", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                   type_name=".torchestimator_keras.SavedObject")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("torchestimator_keras.SavedMetadata"))


_SavedMetadata = None


def _weighted(model: Any) -> list:
    return [layer for layer in model.layers if layer.weights]


def _copy(target: torch.Tensor, value: np.ndarray, what: str, source: str, key: str) -> int:
    if tuple(target.shape) != tuple(value.shape):
        raise ValueError(
            f"Shape mismatch: {what} has shape {tuple(target.shape)} in the model but "
            f"{tuple(value.shape)} in {source} ({key})."
        )
    with torch.no_grad():
        target.copy_(torch.from_numpy(np.ascontiguousarray(value)).to(target.dtype))
    return id(target)


def _weight_paths(model: Any, prefix: tuple = ()) -> list[tuple[tuple, Any, Any]]:
    """`(object path, weight, layer)` of every weight of `model` as TF's Keras tracks it:
    `("layer_with_weights-1", "cell", "kernel")`; a nested model's layers under its own."""
    out = []
    for n, layer in enumerate(_weighted(model)):
        base = prefix + (f"layer_with_weights-{n}",)
        if hasattr(layer, "layers") and hasattr(layer, "compile"):  # a nested Model
            out += _weight_paths(layer, base)
            continue
        for key, weight in layer.state_dict(keep_vars=True).items():
            out.append((base + tuple(key.split(".")), weight, layer))
    return out


def _object_graph_keys(bundle: TensorBundle) -> Any:
    """A function from an object path to its checkpoint key, walking the checkpoint's
    `_CHECKPOINTABLE_OBJECT_GRAPH` (a `TrackableObjectGraph`, tensorboard's copy of TF's
    proto) as TF's restore does; None when the checkpoint has no object graph."""
    if "_CHECKPOINTABLE_OBJECT_GRAPH" not in bundle.entries:
        return None

    graph = trackable_object_graph_pb2.TrackableObjectGraph.FromString(
        bundle.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH").item())
    children = [{c.local_name: c.node_id for c in node.children} for node in graph.nodes]

    def key_of(path: tuple) -> str | None:
        node = 0
        for part in path:
            node = children[node].get(part)
            if node is None:
                return None
        for attribute in graph.nodes[node].attributes:
            if attribute.name == "VARIABLE_VALUE":
                return attribute.checkpoint_key
        return None

    return key_of


def load_weights_tf_checkpoint(model: Any, prefix: str) -> None:
    """`model.load_weights(prefix)` for weights TF's Keras saved in TensorFlow's format: every
    `layer_with_weights-N/...` value assigned to the matching weight of the model's N-th layer
    with weights (optimizer and metric values are ignored), found through the checkpoint's
    object graph as TF finds it (a SavedModel's checkpoint keys a variable by the first path
    that reached it, `variables/<i>`: the graph leads there from `layer_with_weights-N/...`).
    Raises ValueError naming a weight that does not match or that the checkpoint lacks."""
    with TensorBundle(prefix) as bundle:
        key_of = _object_graph_keys(bundle)
        if key_of is None:
            raise ValueError(
                f"{prefix} has no object graph (_CHECKPOINTABLE_OBJECT_GRAPH): it was not written by "
                "Keras' model.save_weights() or tf.train.Checkpoint, so its values cannot be matched "
                "to the model's layers. Read them by name with tf.train.load_checkpoint()."
            )
        paths = [(key_of(path), path, weight, layer) for path, weight, layer in _weight_paths(model)]
        unmatched = ["/".join(path) for key, path, _, _ in paths if key is None or key not in bundle.entries]
        if unmatched:
            raise ValueError(
                f"{prefix}: its object graph holds no value for {len(unmatched)} weight(s) of the "
                f"model ({unmatched[:6]}): the model is not the one that wrote the checkpoint."
            )
        for key, path, weight, layer in paths:
            what = f"weight {'.'.join(path[1:])} of layer {layer.name!r}"
            _copy(weight, bundle.get_tensor(key), what, prefix, key)


def is_keras_savedmodel(path: str) -> bool:
    """True when `path` is a directory holding Keras 2's `keras_metadata.pb`."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, METADATA_FILE))


def load_model_savedmodel(path: str, custom_objects: dict | None = None, compile: bool = True,
                          safe_mode: bool = True) -> Any:
    """`tf.keras.models.load_model(dir)` for a Keras 2 SavedModel directory: the model rebuilt
    from the root's config in `keras_metadata.pb` (in safe mode unless `safe_mode=False`: see
    `load_model`; within an allocation budget of the directory's size), its weights read from
    `variables/variables.index`, compiled as its training config says."""
    global _SavedMetadata
    from torchestimator.keras.saving import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
        _limits,
        _registry,
    )
    from torchestimator.keras.saving.saving_lib import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
        build_from_config,
    )

    if _SavedMetadata is None:
        _SavedMetadata = _saved_metadata_class()
    with open(os.path.join(path, METADATA_FILE), "rb") as f:
        data = f.read()
    try:
        nodes = _SavedMetadata.FromString(data).nodes
        root = next(n for n in nodes if n.node_path == "root")
        metadata = json.loads(root.metadata)
    except Exception as e:  # DecodeError, StopIteration, JSON errors
        raise ValueError(f"{path}/{METADATA_FILE} cannot be read as Keras metadata ({type(e).__name__}: {e}).") from e
    if not isinstance(metadata, dict):
        raise ValueError(f"{path}/{METADATA_FILE}: the root's metadata is not a JSON object; the "
                         "file is damaged.")
    config = metadata.get("model_config") or {"class_name": metadata.get("class_name"),
                                              "config": metadata.get("config")}
    if not isinstance(config.get("config"), dict):
        raise ValueError(
            f"{path}: the root of {METADATA_FILE} holds no model config (a subclassed model, "
            "saved without get_config()); build the model in Python and call "
            f"model.load_weights('{os.path.join(path, 'variables', 'variables')}')."
        )
    with _registry.safe_mode_scope(safe_mode):
        model = build_from_config(from_keras2_config(config), path, _limits.path_bytes(path),
                                  custom_objects)
        load_weights_tf_checkpoint(model, os.path.join(path, "variables", "variables"))
        training = metadata.get("training_config")
        if compile and isinstance(training, dict):
            _compile(model, training, path)
    return model
