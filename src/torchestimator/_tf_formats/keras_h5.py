"""Keras 2 weight files (HDF5, read with `h5py`, the `h5` extra):

* the legacy layout of `model.save("m.h5")` / `model.save_weights("w.h5")`: a `model_weights`
  group (or the file's root) whose attribute `layer_names` lists the layers, each a group
  whose attribute `weight_names` lists its weights (`dense/kernel:0`, ...) in Keras' order
  (trainable, then non-trainable); `model_config` (JSON) describes the architecture.
* the layout of Keras 2.13+'s `.keras` archives (`model.weights.h5`) and `*.weights.h5`
  files: `layers/<snake_case class name>[_N]/vars/<i>`, a layer's sublayers in groups of
  their attribute names (`cell`, `forward_layer`, ...).

Our layers keep Keras' layouts (kernels `(in, out)` and HWIO, LSTM gates i,f,c,o, GRU gates
z,r,h with `reset_after`'s `(2, 3*units)` bias, BatchNormalization's gamma, beta, moving
mean, moving variance), so the arrays are assigned as they are, shapes checked.
"""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from typing import Any

import numpy as np
import torch

from torchestimator._tf_formats.keras_config import from_keras2_config

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
__all__ = ["is_hdf5", "load_keras_v3_weights", "load_model_h5", "load_weights_h5"]


def is_hdf5(path: str) -> bool:
    """True when the file at `path` starts with HDF5's signature."""
    try:
        with open(path, "rb") as f:
            return f.read(8) == HDF5_SIGNATURE
    except OSError:
        return False


def _h5py() -> Any:
    try:
        import h5py  # lazy: optional extra (h5py)
    except ImportError as e:
        raise ImportError(
            "Reading Keras HDF5 files (.h5) needs h5py: pip install 'torchestimator[h5]'."
        ) from e
    return h5py


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _weighted_layers(model: Any) -> list:
    return [layer for layer in model.layers if layer.weights]


# ---------------------------------------------------------------------------------- legacy

#: A dataset may hold at most this many times the bytes it occupies in the file (HDF5's
#: compression filters; Keras writes weights uncompressed) ...
MAX_DATASET_EXPANSION = 100
#: ... or this many bytes, whichever is more (small datasets, metadata overhead).
SMALL_DATASET_BYTES = 2**20


def _source_of(node: Any) -> str:
    """The file name behind an h5py group or dataset (for errors)."""
    return str(getattr(getattr(node, "file", None), "filename", "") or "the weights file")


def _read_dataset(dataset: Any, source: str) -> np.ndarray:
    """Returns an HDF5 dataset's array after checking the bytes its header declares against the
    bytes it occupies in the file (an HDF5 header can declare any shape, its values "filled"
    without storage): ValueError naming `source`, the dataset, its shape and sizes otherwise."""
    shape = getattr(dataset, "shape", None)
    if shape is None or not hasattr(dataset, "id"):
        raise ValueError(f"{source}: {getattr(dataset, 'name', dataset)!r} is not a dataset "
                         "(weights are arrays); the file is damaged or not a Keras weights file.")
    declared = int(np.prod(shape, dtype=np.float64) * dataset.dtype.itemsize)
    stored = int(dataset.id.get_storage_size())
    if declared > max(SMALL_DATASET_BYTES, MAX_DATASET_EXPANSION * stored):
        raise ValueError(
            f"{source}: weight {dataset.name!r} declares shape {tuple(shape)} ({declared} bytes) "
            f"but occupies {stored} bytes in the file. Refusing to read it: the file is damaged "
            "or crafted."
        )
    return np.asarray(dataset)



def _legacy_groups(group: Any, source: str) -> list[tuple[str, list[np.ndarray]]]:
    if "layer_names" not in group.attrs:
        raise ValueError(
            f"{source} is not a Keras weights file: its HDF5 root has no 'layer_names' attribute "
            "(nor a 'model_weights' group that has one)."
        )
    out = []
    for raw in group.attrs["layer_names"]:
        name = _text(raw)
        layer_group = group[name]
        names = [_text(n) for n in layer_group.attrs.get("weight_names", [])]
        if names:
            out.append((name, [_read_dataset(layer_group[n], source) for n in names]))
    return out


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
    saved = _legacy_groups(group, source)
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


# ---------------------------------------------------------------------------------- v3

_CHILD_ORDER = {"vars": 0, "cell": 1, "layer": 2, "forward_layer": 3, "backward_layer": 4}


def _snake(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def _v3_values(group: Any) -> list[np.ndarray]:
    """The arrays under a layer's group in Keras' weight order: its own `vars/<i>`, then its
    sublayers (`cell`, then the wrapped `layer` / `forward_layer`, `backward_layer`)."""
    values: list[np.ndarray] = []
    keys = sorted(group.keys(), key=lambda k: (_CHILD_ORDER.get(k, 10), k))
    for key in keys:
        if key == "vars":
            values += [_read_dataset(group["vars"][i], _source_of(group))
                       for i in sorted(group["vars"].keys(), key=int)]
        elif key == "layer" and "forward_layer" in group:
            continue  # Bidirectional's template layer: its weights are the forward/backward ones
        else:
            values += _v3_values(group[key])
    return values


def load_keras_v3_weights(model: Any, h5file: Any, source: str, skip_mismatch: bool = False) -> None:
    """Loads the weights of a Keras 2.13+ `model.weights.h5` (`layers/<name>/vars/<i>`) into
    `model`: its layers (in `model.layers` order) are keyed as Keras keys them, by snake_case
    class name numbered in order (`dense`, `dense_1`, ...)."""
    if "layers" not in h5file:
        raise ValueError(f"{source} has no 'layers' group: not a Keras weights file.")
    saved = h5file["layers"]
    counts: dict[str, int] = {}
    for layer in model.layers:
        base = _snake(type(layer).__name__)
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
        _assign(layer, _v3_values(saved[key]), source, key, skip_mismatch)


# ---------------------------------------------------------------------------------- entry points


def load_weights_h5(model: Any, path: str, by_name: bool = False, skip_mismatch: bool = False) -> None:
    """`model.load_weights(path)` for a Keras 2 HDF5 file (either layout)."""
    h5py = _h5py()
    with h5py.File(path, "r") as f:
        if "layers" in f and "layer_names" not in f.attrs and "model_weights" not in f:
            load_keras_v3_weights(model, f, path, skip_mismatch)
            return
        group = f["model_weights"] if "model_weights" in f else f
        _load_legacy(model, group, path, by_name, skip_mismatch)


def _compile(model: Any, training_config: dict, source: str) -> None:
    from torchestimator.keras.saving import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
        _registry,
    )

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
        from torchestimator.keras.engine._compile_config import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
            deserialize_compile_args,
            unnest_single_output_metrics,
        )

        # Keras 2.15 writes loss and metric objects as {"module", "class_name", "config", ...}
        args = deserialize_compile_args(training_config)
        args = unnest_single_output_metrics(args, len(getattr(model, "outputs", None) or [None]))
        model.compile(optimizer=optimizer or "rmsprop", **args)
    except (TypeError, ValueError, KeyError) as error:
        warnings.warn(f"{source}: the model was loaded but not compiled ({type(error).__name__}: "
                      f"{error}); call model.compile() before training it.", stacklevel=3)


def load_model_h5(path: str, custom_objects: dict | None = None, compile: bool = True,
                  safe_mode: bool = True) -> Any:
    """`tf.keras.models.load_model(path)` for a Keras 2 HDF5 model file (`model_config` +
    `model_weights`): the architecture rebuilt from its config (in safe mode unless
    `safe_mode=False`: see `load_model`), within an allocation budget of the file's size, its
    weights loaded, and with `compile=True` compiled as its `training_config` says (the
    optimizer starts afresh). Errors name `path`."""
    from torchestimator.keras.saving import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
        _limits,
        _registry,
    )
    from torchestimator.keras.saving.saving_lib import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
        build_from_config,
    )

    h5py = _h5py()
    with _registry.safe_mode_scope(safe_mode), h5py.File(path, "r") as f:
        if "model_config" not in f.attrs:
            raise ValueError(
                f"{path} holds no model config (the 'model_config' attribute): it is a weights "
                "file (model.save_weights). Build the model and call model.load_weights() instead."
            )
        config = _json_attribute(f.attrs["model_config"], path, "model_config")
        model = build_from_config(from_keras2_config(config), path, _limits.path_bytes(path),
                                  custom_objects)
        _load_legacy(model, f["model_weights"], path, by_name=False, skip_mismatch=False)
        training = f.attrs.get("training_config")
        if compile and training is not None:
            _compile(model, _json_attribute(training, path, "training_config"), path)
    return model


def _json_attribute(value: Any, source: str, what: str) -> dict:
    """The JSON object in an HDF5 attribute; ValueError naming `source` and `what` otherwise."""
    try:
        parsed = json.loads(_text(value))
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"{source}: its {what} attribute is not JSON ({error}); the file is "
                         "damaged.") from error
    if not isinstance(parsed, dict):
        raise ValueError(f"{source}: its {what} attribute is not a JSON object; the file is "
                         "damaged.")
    return parsed


KERAS_ARCHIVE_WEIGHTS = "model.weights.h5"


def is_keras2_archive(path: str) -> bool:
    """True when `path` is a Keras 2.13+ `.keras` zip (its weights in `model.weights.h5`)."""

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, ValueError):
        return False  # not a readable zip: the .keras reader names the damage
    return KERAS_ARCHIVE_WEIGHTS in names and "config.json" in names


def load_keras2_archive(path: str, custom_objects: dict | None = None, compile: bool = True,
                        safe_mode: bool = True) -> Any:
    """`tf.keras.models.load_model(path)` for a `.keras` archive written by Keras 2.15
    (`config.json`, `metadata.json`, `model.weights.h5`): the model rebuilt from its config (in
    safe mode unless `safe_mode=False`), its members read within the archive size limits, its
    weights loaded, compiled as its `compile_config` says (the optimizer starts afresh)."""

    from torchestimator.keras.saving import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
        _limits,
        _registry,
    )
    from torchestimator.keras.saving.saving_lib import (  # lazy: upward dependency (_tf_formats → keras), loaded when used
        build_from_config,
    )

    h5py = _h5py()
    with zipfile.ZipFile(path) as archive:
        config = json.loads(_limits.read_member(archive, "config.json", path,
                                                _limits.MAX_JSON_MEMBER_BYTES))
        weights = _limits.read_member(archive, KERAS_ARCHIVE_WEIGHTS, path)
    if not isinstance(config, dict):
        raise ValueError(f"{path}: config.json is not a model config (the file may be corrupt)")
    with _registry.safe_mode_scope(safe_mode):
        model = build_from_config(
            from_keras2_config({k: config[k] for k in ("class_name", "config") if k in config}),
            path, len(weights), custom_objects)
        with h5py.File(io.BytesIO(weights), "r") as f:
            load_keras_v3_weights(model, f, f"{path}/{KERAS_ARCHIVE_WEIGHTS}")
        compile_config = config.get("compile_config")
        if compile and isinstance(compile_config, dict):
            optimizer = compile_config.get("optimizer")
            _compile(model, {**compile_config, "optimizer_config": optimizer}, path)
    return model
