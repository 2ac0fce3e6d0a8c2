"""Keras 2 weight files (HDF5, read with `h5py`, the `h5` extra):

* the legacy layout of `model.save("m.h5")` / `model.save_weights("w.h5")`: a `model_weights`
  group (or the file's root) whose attribute `layer_names` lists the layers, each a group
  whose attribute `weight_names` lists its weights (`dense/kernel:0`, ...) in Keras' order
  (trainable, then non-trainable); `model_config` (JSON) describes the architecture.
* the layout of Keras 2.13+'s `.keras` archives (`model.weights.h5`) and `*.weights.h5`
  files: `layers/<snake_case class name>[_N]/vars/<i>`, a layer's sublayers in groups of
  their attribute names (`cell`, `forward_layer`, ...).

This module reads the files into plain arrays and config dicts and needs no Keras; matching
the arrays to a model's layers, rebuilding and compiling a model is Keras' part
(`keras/saving/_legacy_h5.py`).
"""

from __future__ import annotations

import json
import re
import zipfile
from typing import Any

import numpy as np

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
__all__ = [
    "KERAS_ARCHIVE_WEIGHTS", "h5py_module", "is_hdf5", "is_keras2_archive", "is_v3_weights",
    "json_attribute", "legacy_layer_weights", "legacy_weights_group", "model_config",
    "read_dataset", "snake_case", "text", "training_config", "v3_layers", "v3_values",
]


def is_hdf5(path: str) -> bool:
    """True when the file at `path` starts with HDF5's signature."""
    try:
        with open(path, "rb") as f:
            return f.read(8) == HDF5_SIGNATURE
    except OSError:
        return False


def h5py_module() -> Any:
    """The `h5py` module; ImportError saying how to install it when it is missing."""
    try:
        import h5py  # lazy: optional extra (h5py)
    except ImportError as e:
        raise ImportError(
            "Reading Keras HDF5 files (.h5) needs h5py: pip install 'torchestimator[h5]'."
        ) from e
    return h5py


def text(value: Any) -> str:
    """An HDF5 attribute's string (h5py gives `bytes` or `str`)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


# ---------------------------------------------------------------------------------- legacy

#: A dataset may hold at most this many times the bytes it occupies in the file (HDF5's
#: compression filters; Keras writes weights uncompressed) ...
MAX_DATASET_EXPANSION = 100
#: ... or this many bytes, whichever is more (small datasets, metadata overhead).
SMALL_DATASET_BYTES = 2**20


def _source_of(node: Any) -> str:
    """The file name behind an h5py group or dataset (for errors)."""
    return str(getattr(getattr(node, "file", None), "filename", "") or "the weights file")


def read_dataset(dataset: Any, source: str) -> np.ndarray:
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


def legacy_layer_weights(group: Any, source: str) -> list[tuple[str, list[np.ndarray]]]:
    """`(layer name, arrays)` of each layer with weights in a legacy Keras 2 HDF5 group, in the
    file's order (`layer_names`), each layer's arrays in its `weight_names` order (trainable,
    then non-trainable). ValueError naming `source` when the group has no `layer_names`."""
    if "layer_names" not in group.attrs:
        raise ValueError(
            f"{source} is not a Keras weights file: its HDF5 root has no 'layer_names' attribute "
            "(nor a 'model_weights' group that has one)."
        )
    out = []
    for raw in group.attrs["layer_names"]:
        name = text(raw)
        layer_group = group[name]
        names = [text(n) for n in layer_group.attrs.get("weight_names", [])]
        if names:
            out.append((name, [read_dataset(layer_group[n], source) for n in names]))
    return out


# ---------------------------------------------------------------------------------- v3

_CHILD_ORDER = {"vars": 0, "cell": 1, "layer": 2, "forward_layer": 3, "backward_layer": 4}


def snake_case(name: str) -> str:
    """Keras' snake_case of a class name (`BatchNormalization` -> `batch_normalization`)."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def v3_values(group: Any) -> list[np.ndarray]:
    """The arrays under a layer's group in Keras' weight order: its own `vars/<i>`, then its
    sublayers (`cell`, then the wrapped `layer` / `forward_layer`, `backward_layer`)."""
    values: list[np.ndarray] = []
    keys = sorted(group.keys(), key=lambda k: (_CHILD_ORDER.get(k, 10), k))
    for key in keys:
        if key == "vars":
            values += [read_dataset(group["vars"][i], _source_of(group))
                       for i in sorted(group["vars"].keys(), key=int)]
        elif key == "layer" and "forward_layer" in group:
            continue  # Bidirectional's template layer: its weights are the forward/backward ones
        else:
            values += v3_values(group[key])
    return values


def v3_layers(h5file: Any, source: str) -> Any:
    """The `layers` group of a Keras 2.13+ weights file (`layers/<key>/vars/<i>`, a layer keyed
    by its snake_case class name numbered in order: `dense`, `dense_1`, ...); ValueError
    naming `source` when the file has none."""
    if "layers" not in h5file:
        raise ValueError(f"{source} has no 'layers' group: not a Keras weights file.")
    return h5file["layers"]


def is_v3_weights(h5file: Any) -> bool:
    """True when an open HDF5 file has Keras 2.13+'s layout (`layers/...`) rather than the
    legacy one (`layer_names`, `model_weights`)."""
    return "layers" in h5file and "layer_names" not in h5file.attrs and "model_weights" not in h5file


def legacy_weights_group(h5file: Any) -> Any:
    """The group of a legacy Keras 2 HDF5 file holding `layer_names`: `model_weights` of a
    `model.save()` file, the root of a `model.save_weights()` file."""
    return h5file["model_weights"] if "model_weights" in h5file else h5file


def model_config(h5file: Any, source: str) -> dict:
    """The `model_config` (JSON) of a legacy Keras 2 `model.save("m.h5")` file; ValueError
    naming `source` when it has none (a weights file) or it is not a JSON object."""
    if "model_config" not in h5file.attrs:
        raise ValueError(
            f"{source} holds no model config (the 'model_config' attribute): it is a weights "
            "file (model.save_weights). Build the model and call model.load_weights() instead."
        )
    return json_attribute(h5file.attrs["model_config"], source, "model_config")


def training_config(h5file: Any, source: str) -> dict | None:
    """The `training_config` (JSON) of a legacy Keras 2 HDF5 model file, or None without one."""
    training = h5file.attrs.get("training_config")
    return None if training is None else json_attribute(training, source, "training_config")


def json_attribute(value: Any, source: str, what: str) -> dict:
    """The JSON object in an HDF5 attribute; ValueError naming `source` and `what` otherwise."""
    try:
        parsed = json.loads(text(value))
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
