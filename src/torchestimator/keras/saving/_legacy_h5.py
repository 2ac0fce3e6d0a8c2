"""Keras 2 HDF5 files loaded into Keras models: `model.load_weights("w.h5")` and
`tf.keras.models.load_model("m.h5")` of either layout (legacy `model.save("m.h5")` /
`model.save_weights("w.h5")`, and Keras 2.13+'s `model.weights.h5`), and `.keras` archives
written by Keras 2.15 (`config.json` + `model.weights.h5`).

`_tf_formats.keras_h5` reads the files into arrays and config dicts; this module matches the
arrays to the model's layers, rebuilds models from their configs and compiles them. Our
layers keep Keras' layouts (kernels `(in, out)` and HWIO, LSTM gates i,f,c,o, GRU gates z,r,h
with `reset_after`'s `(2, 3*units)` bias, BatchNormalization's gamma, beta, moving mean,
moving variance), so the arrays are assigned as they are, shapes checked.
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from typing import Any

import numpy as np
import torch

from torchestimator._tf_formats import keras_h5
from torchestimator._tf_formats.keras_config import from_keras2_config
from torchestimator.keras import _registry
from torchestimator.keras.engine import _compile_config  # names read at call time (a circle)
from torchestimator.keras.saving import (
    _limits,
    saving_lib,  # names read at call time: it imports this
)

__all__ = ["compile_from_training_config", "load_keras2_archive", "load_keras_v3_weights",
           "load_model_h5", "load_weights_h5"]


def _weighted_layers(model: Any) -> list:
    return [layer for layer in model.layers if layer.weights]


def _assign(layer: Any, values: list[np.ndarray], source: str, file_layer: str,
            skip_mismatch: bool) -> bool:
    # Keras 2's h5 order (`_legacy_weights`): trainable, then non-trainable, also for a nested
    # model (whose `weights` go layer by layer)
    weights = layer.trainable_weights + layer.non_trainable_weights
    if len(weights) != len(values):
        if skip_mismatch:
            warnings.warn(f"Skipping loading weights for layer {layer.name!r}: it has "
                          f"{len(weights)} weight(s), {source} has {len(values)} for {file_layer!r}.",
                          stacklevel=3)
            return False
        raise ValueError(
            f"Layer {layer.name!r} (#{type(layer).__name__}) expects {len(weights)} weight(s), but "
            f"{source} holds {len(values)} for layer {file_layer!r}: the model is not the one that "
            "wrote the file. Pass by_name=True to load only layers whose names match."
        )
    for weight, value in zip(weights, values):
        if tuple(weight.shape) != tuple(value.shape):
            if skip_mismatch:
                warnings.warn(f"Skipping loading weights for layer {layer.name!r}: weight "
                              f"{getattr(weight, 'name', '?')} has shape {tuple(weight.shape)}, the "
                              f"file {tuple(value.shape)}.", stacklevel=3)
                return False
            raise ValueError(
                f"Shape mismatch in layer {layer.name!r}: weight {getattr(weight, 'name', '?')} has "
                f"shape {tuple(weight.shape)} in the model but {tuple(value.shape)} in {source} "
                f"(layer {file_layer!r}). Pass skip_mismatch=True (with by_name=True) to skip it."
            )
    with torch.no_grad():
        for weight, value in zip(weights, values):
            weight.copy_(torch.as_tensor(np.asarray(value)).to(dtype=weight.dtype, device=weight.device))
    return True


def _load_legacy(model: Any, group: Any, source: str, by_name: bool, skip_mismatch: bool) -> None:
    saved = keras_h5.legacy_layer_weights(group, source)
    layers = _weighted_layers(model)
    by_layer_name = {layer.name: layer for layer in layers}
    if by_name or {n for n, _ in saved} == set(by_layer_name):
        for name, values in saved:
            layer = by_layer_name.get(name)
            if layer is not None:
                _assign(layer, values, source, name, skip_mismatch)
        return
    if len(saved) != len(layers):
        raise ValueError(
            f"Weight file {source} holds weights for {len(saved)} layer(s) "
            f"({[n for n, _ in saved]}) but the model has {len(layers)} layer(s) with weights "
            f"({[layer.name for layer in layers]}). Pass by_name=True to load the layers whose "
            "names match."
        )
    for layer, (name, values) in zip(layers, saved):  # Keras' rule: by order
        _assign(layer, values, source, name, skip_mismatch)


def load_keras_v3_weights(model: Any, h5file: Any, source: str, skip_mismatch: bool = False) -> None:
    """Loads the weights of a Keras 2.13+ `model.weights.h5` (`layers/<name>/vars/<i>`) into
    `model`: its layers (in `model.layers` order) are keyed as Keras keys them, by snake_case
    class name numbered in order (`dense`, `dense_1`, ...). Returns None; raises ValueError
    naming `source` and the layer whose weights are missing or do not match."""
    saved = keras_h5.v3_layers(h5file, source)
    counts: dict[str, int] = {}
    for layer in model.layers:
        base = keras_h5.snake_case(type(layer).__name__)
        n = counts.get(base, 0)
        counts[base] = n + 1
        key = base if n == 0 else f"{base}_{n}"
        if not layer.weights:
            continue
        if key not in saved:
            raise ValueError(
                f"{source} holds no weights for layer {layer.name!r} (expected group 'layers/{key}'; "
                f"it has {sorted(saved.keys())})."
            )
        _assign(layer, keras_h5.v3_values(saved[key]), source, key, skip_mismatch)


def load_weights_h5(model: Any, path: str, by_name: bool = False, skip_mismatch: bool = False) -> None:
    """`model.load_weights(path)` for a Keras 2 HDF5 file (either layout). Returns None."""
    h5py = keras_h5.h5py_module()
    with h5py.File(path, "r") as f:
        if keras_h5.is_v3_weights(f):
            load_keras_v3_weights(model, f, path, skip_mismatch)
            return
        _load_legacy(model, keras_h5.legacy_weights_group(f), path, by_name, skip_mismatch)


def compile_from_training_config(model: Any, training_config: dict, source: str) -> None:
    """Compiles `model` as a Keras 2 `training_config` says (the optimizer from its config,
    starting afresh; losses and metrics as Keras 2.15 writes them). A config that cannot be
    followed leaves the model uncompiled with a warning naming `source`. Returns None."""
    optimizer = training_config.get("optimizer_config")
    try:
        if isinstance(optimizer, dict):
            optimizer = dict(optimizer)
            optimizer["class_name"] = str(optimizer["class_name"]).split(">")[-1]  # Custom>Adam
            inner = {k: v for k, v in optimizer.get("config", {}).items()
                     if k not in ("is_legacy_optimizer", "jit_compile", "use_ema", "ema_momentum",
                                  "ema_overwrite_frequency")}
            optimizer = _registry.deserialize_keras_object(
                {"class_name": optimizer["class_name"], "config": inner})
        # Keras 2.15 writes loss and metric objects as {"module", "class_name", "config", ...}
        args = _compile_config.deserialize_compile_args(training_config)
        args = _compile_config.unnest_single_output_metrics(args, len(getattr(model, "outputs", None) or [None]))
        model.compile(optimizer=optimizer or "rmsprop", **args)
    except (TypeError, ValueError, KeyError) as error:
        warnings.warn(f"{source}: the model was loaded but not compiled ({type(error).__name__}: "
                      f"{error}); call model.compile() before training it.", stacklevel=3)


def _build_from_config(config: dict, source: str, stored_bytes: int,
                       custom_objects: dict | None) -> Any:
    return saving_lib.build_from_config(from_keras2_config(config), source, stored_bytes, custom_objects)


def load_model_h5(path: str, custom_objects: dict | None = None, compile: bool = True,
                  safe_mode: bool = True) -> Any:
    """`tf.keras.models.load_model(path)` for a Keras 2 HDF5 model file (`model_config` +
    `model_weights`): the architecture rebuilt from its config (in safe mode unless
    `safe_mode=False`: see `load_model`), within an allocation budget of the file's size, its
    weights loaded, and with `compile=True` compiled as its `training_config` says (the
    optimizer starts afresh). Returns the model; errors name `path`."""
    h5py = keras_h5.h5py_module()
    with _registry.safe_mode_scope(safe_mode), h5py.File(path, "r") as f:
        config = keras_h5.model_config(f, path)
        model = _build_from_config(config, path, _limits.path_bytes(path), custom_objects)
        _load_legacy(model, f["model_weights"], path, by_name=False, skip_mismatch=False)
        training = keras_h5.training_config(f, path) if compile else None
        if training is not None:
            compile_from_training_config(model, training, path)
    return model


def load_keras2_archive(path: str, custom_objects: dict | None = None, compile: bool = True,
                        safe_mode: bool = True) -> Any:
    """`tf.keras.models.load_model(path)` for a `.keras` archive written by Keras 2.15
    (`config.json`, `metadata.json`, `model.weights.h5`): the model rebuilt from its config (in
    safe mode unless `safe_mode=False`), its members read within the archive size limits, its
    weights loaded, compiled as its `compile_config` says (the optimizer starts afresh).
    Returns the model."""
    h5py = keras_h5.h5py_module()
    with zipfile.ZipFile(path) as archive:
        config = json.loads(_limits.read_member(archive, "config.json", path,
                                                _limits.MAX_JSON_MEMBER_BYTES))
        weights = _limits.read_member(archive, keras_h5.KERAS_ARCHIVE_WEIGHTS, path)
    if not isinstance(config, dict):
        raise ValueError(f"{path}: config.json is not a model config (the file may be corrupt)")
    with _registry.safe_mode_scope(safe_mode):
        model = _build_from_config({k: config[k] for k in ("class_name", "config") if k in config},
                                   path, len(weights), custom_objects)
        with h5py.File(io.BytesIO(weights), "r") as f:
            load_keras_v3_weights(model, f, f"{path}/{keras_h5.KERAS_ARCHIVE_WEIGHTS}")
        compile_config = config.get("compile_config")
        if compile and isinstance(compile_config, dict):
            optimizer = compile_config.get("optimizer")
            compile_from_training_config(model, {**compile_config, "optimizer_config": optimizer},
                                         path)
    return model
