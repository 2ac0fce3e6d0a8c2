"""Keras 2 models and weights stored in TensorFlow's checkpoint format, loaded into Keras
models: `model.load_weights("ckpt")` of `model.save_weights("ckpt")` (TF format) and
`tf.keras.models.load_model(dir)` of a Keras 2 SavedModel directory.

`_tf_formats.keras_tf_checkpoint` reads the checkpoint's object graph and the SavedModel's
`keras_metadata.pb`; this module maps each checkpoint value to the model's weight (keys
`layer_with_weights-<N>/<attribute path>/.ATTRIBUTES/VARIABLE_VALUE`, N counting the model's
layers that have weights in `model.layers` order, the attribute path naming the variable as
our layers' `state_dict` does) and rebuilds models from their configs.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from torchestimator._tf_formats import keras_tf_checkpoint
from torchestimator._tf_formats.keras_config import from_keras2_config
from torchestimator._tf_formats.tensor_bundle import TensorBundle
from torchestimator.keras import _registry
from torchestimator.keras.saving import (
    _limits,
    saving_lib,  # names read at call time: it imports this
)
from torchestimator.keras.saving._legacy_h5 import compile_from_training_config

__all__ = ["load_model_savedmodel", "load_weights_tf_checkpoint"]


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


def load_weights_tf_checkpoint(model: Any, prefix: str) -> None:
    """`model.load_weights(prefix)` for weights TF's Keras saved in TensorFlow's format: every
    `layer_with_weights-N/...` value assigned to the matching weight of the model's N-th layer
    with weights (optimizer and metric values are ignored), found through the checkpoint's
    object graph as TF finds it (a SavedModel's checkpoint keys a variable by the first path
    that reached it, `variables/<i>`: the graph leads there from `layer_with_weights-N/...`).
    Returns None; raises ValueError naming a weight that does not match or that the checkpoint
    lacks."""
    with TensorBundle(prefix) as bundle:
        key_of = keras_tf_checkpoint.object_graph_keys(bundle)
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


def load_model_savedmodel(path: str, custom_objects: dict | None = None, compile: bool = True,
                          safe_mode: bool = True) -> Any:
    """`tf.keras.models.load_model(dir)` for a Keras 2 SavedModel directory: the model rebuilt
    from the root's config in `keras_metadata.pb` (in safe mode unless `safe_mode=False`: see
    `load_model`; within an allocation budget of the directory's size), its weights read from
    `variables/variables.index`, compiled as its training config says. Returns the model."""
    metadata, config = keras_tf_checkpoint.read_savedmodel_metadata(path)
    with _registry.safe_mode_scope(safe_mode):
        model = saving_lib.build_from_config(from_keras2_config(config), path, _limits.path_bytes(path),
                                  custom_objects)
        load_weights_tf_checkpoint(model, os.path.join(path, "variables", "variables"))
        training = metadata.get("training_config")
        if compile and isinstance(training, dict):
            compile_from_training_config(model, training, path)
    return model
