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

This module reads the files (the checkpoint's object graph, the SavedModel's metadata) and
needs no Keras; matching values to a model's weights and rebuilding the model is Keras' part
(`keras/saving/_tf_checkpoint_weights.py`).
"""

from __future__ import annotations

import json
import os
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from tensorboard.compat.proto import trackable_object_graph_pb2

from torchestimator._tf_formats.tensor_bundle import TensorBundle

SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
METADATA_FILE = "keras_metadata.pb"
__all__ = ["METADATA_FILE", "is_keras_savedmodel", "object_graph_keys", "read_savedmodel_metadata"]


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


def object_graph_keys(bundle: TensorBundle) -> Any:
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


def is_keras_savedmodel(path: str) -> bool:
    """True when `path` is a directory holding Keras 2's `keras_metadata.pb`."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, METADATA_FILE))


def read_savedmodel_metadata(path: str) -> tuple[dict, dict]:
    """`(metadata, model config)` of a Keras 2 SavedModel directory: the root node's JSON
    metadata in `keras_metadata.pb` and the model config it holds (`{"class_name", "config"}`).
    Raises ValueError naming the file when it cannot be read or holds no model config (a
    subclassed model)."""
    global _SavedMetadata
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
    return metadata, config
