"""Saving and loading whole Keras models (`.keras` archives) and weights.

A `.keras` file is a zip archive with:
  * `metadata.json` — format version and date;
  * `config.json` — the architecture (`class_name`/`config`), `compile_config`
    and `build_config`;
  * `model.weights.safetensors` — the model's `state_dict`;
  * `optimizer.safetensors` + `optimizer.json` — the optimizer's state.
It is written to a temporary file and renamed, and read without unpickling.
A Lambda layer's Python code is only loaded with `safe_mode=False`; in safe mode
a config names only the package's own and the user's registered objects (see
`load_model`). Members are read within the size limits of `_limits` (declared sizes
checked against caps and the archive first), and the model is built within an
allocation budget of the weights the file holds.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import os
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

import torch

from torchestimator._engine import state_io
from torchestimator._engine.checkpoint import write_index
from torchestimator._tf_formats import keras_h5, keras_tf_checkpoint
from torchestimator.keras import _registry
from torchestimator.keras.engine import _compile_config  # names read at call time (a circle)
from torchestimator.keras.engine.layer_utils import keras_state_dict, load_keras_state_dict
from torchestimator.keras.optimizers import _torch_archive
from torchestimator.keras.saving import _legacy_h5, _limits
from torchestimator.keras.saving._tf_checkpoint_weights import (
    load_model_savedmodel,
    load_weights_tf_checkpoint,
)
from torchestimator.saved_model import _keras_export

FORMAT_VERSION = "torchestimator-keras-1"
_WEIGHTS = "model.weights.safetensors"


def _check_overwrite(filepath: str, overwrite: bool) -> None:
    if os.path.exists(filepath) and not overwrite:
        raise FileExistsError(f"{filepath} exists and overwrite=False; pass overwrite=True to replace it.")


_SAVEDMODEL_ARCHIVE = "model.keras"  # the model itself, inside a SavedModel-format directory


def _savedmodel_archive(path: str) -> str | None:
    """The archive `model.save(dir)` wrote inside directory `path`, or None."""
    archive = os.path.join(path, _SAVEDMODEL_ARCHIVE)
    return archive if os.path.isdir(path) and os.path.isfile(archive) else None


def _save_savedmodel_dir(model: Any, directory: str, overwrite: bool) -> str:
    """Keras 2.15's TF format (`model.save('saved_model/my_model')`, a path without a `.keras`,
    `.h5` or `.hdf5` suffix): a directory that `tf.saved_model.load` opens (the model's
    `serving_default` export, when its inputs are known) holding the model archive
    `model.keras`, which `load_model(directory)` reads. Returns the archive's path."""
    exists = os.path.isdir(directory) and bool(os.listdir(directory))
    if exists and not overwrite:
        raise FileExistsError(
            f"{directory} exists and overwrite=False; pass overwrite=True to replace it.")
    holds_export = os.path.isfile(os.path.join(directory, "saved_model.json")) or not exists
    if holds_export and getattr(model, "inputs", None):
        try:
            _keras_export.export_keras_model(model, directory)
        except (ValueError, TypeError, RuntimeError) as error:
            warnings.warn(
                f"model.save({directory!r}): the model could not be exported for "
                f"tf.saved_model.load ({type(error).__name__}: {str(error)[:300]}); the directory "
                "holds the Keras model only, which tf.keras.models.load_model reads. Use "
                "model.export(path, input_signature=...) for a serving export.",
                UserWarning, stacklevel=4)
    os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, _SAVEDMODEL_ARCHIVE)


def save_model(model: Any, filepath: str, overwrite: bool = True, save_format: str | None = None,
               **kwargs: Any) -> None:
    """Saves `model` (architecture, weights, optimizer state): to a `.keras` archive at
    `filepath`, or, as Keras 2.15's default TF format for a path with no `.keras`, `.h5` or
    `.hdf5` suffix (or `save_format='tf'`), to a SavedModel-format directory (see
    `_save_savedmodel_dir`) that `load_model(filepath)` reads back."""
    filepath = os.fspath(filepath)
    if save_format not in (None, "tf", "keras", "h5"):
        raise ValueError(
            f"save_format must be 'keras', 'tf' or 'h5'; received {save_format!r}.")
    if save_format == "tf" or (save_format is None and not filepath.endswith((".keras", ".h5", ".hdf5"))
                               and "://" not in filepath):
        filepath = _save_savedmodel_dir(model, filepath, overwrite)
        overwrite = True
    elif not filepath.endswith((".keras", ".h5", ".hdf5")):
        filepath = filepath + ".keras"
    _check_overwrite(filepath, overwrite)
    config = _registry.serialize_keras_object(model)
    config["compile_config"] = model.get_compile_config() if hasattr(model, "get_compile_config") else None
    config["build_config"] = model.get_build_config() if hasattr(model, "get_build_config") else None
    buffer = io.BytesIO()
    optimizer = getattr(model, "optimizer", None)
    with_optimizer = optimizer is not None and getattr(optimizer, "_built", False)
    torch_description = None
    if optimizer is not None and type(optimizer).__name__ == "TorchOptimizer":
        torch_description, reason = _torch_archive.describe(optimizer, model)
        with_optimizer = torch_description is not None
        if torch_description is None:
            warnings.warn(
                f"save_model({filepath!r}): the model's torch optimizer "
                f"({type(optimizer.optimizer).__name__}) is not saved: {reason}. load_model "
                "returns the model uncompiled: compile it with a new optimizer. "
                "BackupAndRestore keeps the torch optimizer's state across restarts.",
                UserWarning,
                stacklevel=3,
            )
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("metadata.json", json.dumps({
            "keras_version": FORMAT_VERSION,
            "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
            # what the reader must find: a damaged zip directory can hide a member
            "members": ["metadata.json", "config.json", _WEIGHTS,
                        *(_OPTIMIZER_MEMBERS if with_optimizer else ())],
        }))
        archive.writestr("config.json", json.dumps(config))
        archive.writestr(_WEIGHTS, weights_to_bytes(model))
        if with_optimizer:
            tensors, skeleton = state_io.flatten_state(optimizer.state_dict())
            archive.writestr("optimizer.safetensors", state_io.tensors_to_bytes(tensors))
            archive.writestr("optimizer.json", json.dumps({
                "skeleton": skeleton,
                **({"torch": torch_description} if torch_description is not None
                   else {"config": _registry.serialize_keras_object(optimizer)}),
            }))
    state_io.atomic_write_bytes(filepath, buffer.getvalue())


def _open_archive(filepath: str) -> zipfile.ZipFile:
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No file or directory found at {filepath}")
    if not zipfile.is_zipfile(filepath):
        raise ValueError(
            f"{filepath} is not a .keras archive (a zip file written by model.save()); it may be "
            "truncated or a different format."
        )
    try:
        return zipfile.ZipFile(filepath, "r")
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise ValueError(
            f"{filepath} is damaged: its zip directory cannot be read ({type(error).__name__}: "
            f"{error}). Save the model again or use an earlier copy."
        ) from error


def load_model(
    filepath: str, custom_objects: dict | None = None, compile: bool = True, safe_mode: bool = True
) -> Any:
    """Loads a model saved by `model.save()` (or Keras 2's `.h5`, `.keras` and SavedModel
    files): same architecture, weights and (with `compile=True`) optimizer state, so it
    predicts identically and continues training.

    `safe_mode` (default True), for every format: the config may name only the package's own
    classes and functions and the user's (`custom_objects`, `custom_object_scope`,
    `register_keras_serializable`); a Lambda's function only a pure tensor function; nothing
    is imported from a module the file names and no lambda source is run. Pass
    `safe_mode=False` only for files you trust (Keras 2's behaviour: functions imported by
    module name, lambdas rebuilt from source). Raises ValueError naming the file (and the
    layer) for what safe mode refuses, and for a damaged or oversized file."""
    filepath = os.fspath(filepath)

    with _registry.safe_mode_scope(safe_mode), _names_file(filepath):
        if keras_h5.is_hdf5(filepath):
            return _legacy_h5.load_model_h5(filepath, custom_objects, compile, safe_mode=safe_mode)
        if keras_h5.is_keras2_archive(filepath):
            return _legacy_h5.load_keras2_archive(filepath, custom_objects, compile,
                                                  safe_mode=safe_mode)

        archive = _savedmodel_archive(filepath)  # model.save(dir): the model inside the dir
        if archive is not None:
            return _load_keras_archive(archive, custom_objects, compile, safe_mode)
        if keras_tf_checkpoint.is_keras_savedmodel(filepath):
            return load_model_savedmodel(filepath, custom_objects, compile, safe_mode=safe_mode)
        return _load_keras_archive(filepath, custom_objects, compile, safe_mode)


@contextlib.contextmanager
def _names_file(filepath: str) -> Iterator[None]:
    """Re-raises a ValueError from the block with `filepath` in front of its message when the
    message does not name the file already. Yields nothing."""
    try:
        yield
    except ValueError as error:
        if filepath in str(error):
            raise
        raise ValueError(f"{filepath}: {error}") from error


def build_from_config(config: dict, source: str, stored_bytes: int,
                      custom_objects: dict | None) -> Any:
    """Returns the model `config` (`{"class_name", "config", ...}`) describes, built, within an
    allocation budget of about `stored_bytes` (the weight bytes `source` holds; see
    `_limits.allocation_budget`). Errors name `source`."""
    try:
        with _limits.allocation_budget(source, stored_bytes):
            model = _registry.deserialize_keras_object(
                {k: config[k] for k in ("class_name", "config", "registered_name") if k in config},
                custom_objects=custom_objects,
            )
            if not getattr(model, "built", True) and config.get("build_config"):
                model.build_from_config(config["build_config"])
    except (TypeError, KeyError, AttributeError, IndexError) as error:
        raise ValueError(
            f"{source}: its config does not describe a model this package can build "
            f"({type(error).__name__}: {error}); the file may be corrupt."
        ) from error
    return model


def _load_keras_archive(filepath: str, custom_objects: dict | None, compile: bool,
                        safe_mode: bool) -> Any:
    """`load_model` for this package's `.keras` archives (within load_model's safe-mode scope)."""
    config, weights, opt_tensors, opt_meta = _read_archive(filepath)
    if not safe_mode and '"__lambda__"' in json.dumps(config):
        warnings.warn(
            f"load_model({filepath!r}, safe_mode=False) runs the Python code of the Lambda "
            "layer(s) saved in it; do this only for files you trust.",
            UserWarning,
            stacklevel=3,
        )
    model = build_from_config(config, filepath, _limits.tensor_bytes(weights), custom_objects)
    _load_state_dict(model, weights, filepath, by_name=False, skip_mismatch=False)
    compile_config = config.get("compile_config")
    if (compile and compile_config and compile_config.get("optimizer") is None and opt_meta is None
            and compile_config.get("loss") is not None):
        warnings.warn(
            f"load_model({filepath!r}): the model was compiled with an optimizer that is not in "
            "the file (a torch optimizer); it is loaded uncompiled. Call compile(optimizer, loss) "
            "before fit or evaluate.",
            UserWarning,
            stacklevel=3,
        )
    if compile and compile_config and compile_config.get("optimizer") is not None or (
        compile and opt_meta is not None
    ):
        optimizer = compile_config.get("optimizer") if compile_config else None
        torch_description = opt_meta.get("torch") if opt_meta is not None else None
        if torch_description is not None:
            optimizer = _torch_archive.rebuild(
                torch_description, state_io.unflatten_state(opt_tensors, opt_meta["skeleton"]),
                model, filepath)
        elif opt_meta is not None:
            optimizer = _registry.deserialize_keras_object(opt_meta["config"], custom_objects)

        # losses and metrics saved as objects come back through the safe registry
        model.compile(optimizer=optimizer or "rmsprop",
                      **_compile_config.deserialize_compile_args(compile_config or {}, custom_objects))
        if opt_meta is not None and torch_description is None:
            model.optimizer.build(model.trainable_weights)
            model._optimizer_built_for = len(model.trainable_weights)
            try:
                model.optimizer.load_state_dict(
                    state_io.unflatten_state(opt_tensors, opt_meta["skeleton"]))
            except (TypeError, KeyError, IndexError, RuntimeError) as error:
                raise ValueError(
                    f"{filepath}: the optimizer state does not fit the optimizer "
                    f"({type(error).__name__}: {error}); the file may be corrupt. Load it with "
                    "compile=False to skip the optimizer."
                ) from error
    return model


_OPTIMIZER_MEMBERS = ("optimizer.safetensors", "optimizer.json")


def _check_members(filepath: str, archive: zipfile.ZipFile, names: set[str]) -> None:
    """Raises ValueError naming `filepath` when a member the archive was written with is not in
    its zip directory (a damaged directory entry hides it: loading would silently drop, e.g.,
    the optimizer state), or when a member's name is absolute or climbs out of the archive
    (`..`): nothing is extracted, but such an archive was not written by `model.save()`."""
    unsafe = sorted(n for n in names if n.startswith(("/", "\\")) or ".." in n.replace("\\", "/").split("/")
                    or (len(n) > 1 and n[1] == ":"))
    if unsafe:
        raise ValueError(
            f"{filepath} is not a safe model archive: member name(s) {unsafe[:5]} are absolute or "
            "contain '..'. Refusing to load it."
        )
    listed: Any = None
    if "metadata.json" in names:
        metadata = json.loads(_limits.read_member(archive, "metadata.json", filepath,
                                                  _limits.MAX_JSON_MEMBER_BYTES))
        listed = metadata.get("members") if isinstance(metadata, dict) else None
    missing = [m for m in listed if m not in names] if isinstance(listed, list) else []
    if not missing and sum(m in names for m in _OPTIMIZER_MEMBERS) == 1:
        missing = [m for m in _OPTIMIZER_MEMBERS if m not in names]
    if missing:
        raise ValueError(
            f"{filepath} is damaged: its zip directory lacks {missing}, which the archive was "
            "written with. Save the model again or use an earlier copy."
        )


def _read_archive(filepath: str) -> tuple[dict, dict, dict | None, dict | None]:
    """The config, weights and optimizer state (tensors, metadata) of a `.keras` archive; a
    damaged archive (bad CRC, truncated member, invalid JSON) is a ValueError naming the file."""
    member = "the archive"
    try:
        with _open_archive(filepath) as archive:
            names = set(archive.namelist())
            if "config.json" not in names or _WEIGHTS not in names:
                raise ValueError(
                    f"{filepath} is missing config.json or {_WEIGHTS}: not a model archive")
            _check_members(filepath, archive, names)
            member = "config.json"
            config = json.loads(_limits.read_member(archive, member, filepath,
                                                    _limits.MAX_JSON_MEMBER_BYTES))
            member = _WEIGHTS
            weights = state_io.tensors_from_bytes(_limits.read_member(archive, member, filepath),
                                                  f"{filepath}:{member}")
            opt_tensors = opt_meta = None
            if "optimizer.safetensors" in names:
                member = "optimizer.safetensors"
                opt_tensors = state_io.tensors_from_bytes(
                    _limits.read_member(archive, member, filepath), f"{filepath}:{member}")
                member = "optimizer.json"
                opt_meta = json.loads(_limits.read_member(archive, member, filepath,
                                                          _limits.MAX_JSON_MEMBER_BYTES))
    except (zipfile.BadZipFile, zlib.error, EOFError, UnicodeDecodeError, json.JSONDecodeError,
            NotImplementedError, KeyError, OSError,
            RuntimeError) as error:  # RuntimeError: a flipped flag bit marks a member encrypted
        raise ValueError(
            f"{filepath} is damaged: {member} cannot be read ({type(error).__name__}: {error}). "
            "Save the model again or use an earlier copy."
        ) from error
    if not isinstance(config, dict) or (opt_meta is not None and not isinstance(opt_meta, dict)):
        raise ValueError(f"{filepath}: config.json is not a model config (the file may be corrupt)")
    return config, weights, opt_tensors, opt_meta


_NOT_TF_FORMAT = (".h5", ".hdf5", ".keras")
_ORDER_KEY = "torchestimator.weight_order"
_DIGEST_KEY = "torchestimator.sha256"


def save_weights(model: Any, filepath: str, overwrite: bool = True) -> None:
    """Writes the model's `state_dict` to `filepath` as safetensors (atomically)."""
    filepath = os.fspath(filepath)
    _check_overwrite(filepath, overwrite)
    state_io.atomic_write_bytes(filepath, weights_to_bytes(model))
    if not filepath.endswith(_NOT_TF_FORMAT) and "://" not in filepath:
        # Keras 2.15 records a weights file saved in the TF format (any name but .h5, .hdf5 and
        # .keras) in its folder's `checkpoint` index, so `tf.train.latest_checkpoint` names it.
        write_index(os.path.dirname(filepath) or ".", filepath, [filepath])


def load_weights(model: Any, filepath: str, by_name: bool = False, skip_mismatch: bool = False) -> None:
    """Loads weights from a safetensors file or a `.keras` archive into `model`.

    Weights are matched by name; when the names differ (a clone with new
    layer names) but the number and shapes agree, they are matched by order,
    as Keras does. `by_name=True` loads only the weights whose names exist in
    both; `skip_mismatch=True` also skips those whose shapes differ.
    """
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath) and os.path.exists(filepath + ".index"):  # TF's format
        load_weights_tf_checkpoint(model, filepath)
        return
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No weights file found at {filepath}")

    if keras_h5.is_hdf5(filepath):
        _legacy_h5.load_weights_h5(model, filepath, by_name=by_name, skip_mismatch=skip_mismatch)
        return
    if zipfile.is_zipfile(filepath):
        try:
            with zipfile.ZipFile(filepath) as archive:
                data = _limits.read_member(archive, _WEIGHTS, filepath)
        except (zipfile.BadZipFile, zlib.error, EOFError, KeyError, NotImplementedError, OSError,
                RuntimeError) as error:
            raise ValueError(
                f"{filepath} is damaged or not a model archive: {_WEIGHTS} cannot be read "
                f"({type(error).__name__}: {error})."
            ) from error
    else:
        with open(filepath, "rb") as f:
            data = f.read()
    load_weights_from_bytes(model, data, filepath, by_name=by_name, skip_mismatch=skip_mismatch)


def weights_to_bytes(model: Any, metadata: dict[str, str] | None = None) -> bytes:
    """The model's `state_dict` as safetensors bytes, recording the weights' order (Keras matches
    the weights of a model with other layer names by that order)."""
    state = keras_state_dict(model)  # Keras names (dense_3.kernel), not torch's positional keys
    return state_io.tensors_to_bytes(state, metadata={
        **(metadata or {}), _ORDER_KEY: json.dumps(list(state)),
        _DIGEST_KEY: state_io.tensors_digest(state),
    })


def load_weights_from_bytes(model: Any, data: bytes, source: str, by_name: bool = False,
                            skip_mismatch: bool = False) -> None:
    """Loads safetensors `data` written by `weights_to_bytes` (or any safetensors state dict) into
    `model`: by name, else by order when the names differ (a model built again, with new layer
    names) and the shapes agree. Errors name `source`."""
    tensors = state_io.tensors_from_bytes(data, source)
    metadata = state_io.safetensors_metadata(data)
    digest = metadata.get(_DIGEST_KEY)
    if digest is not None and digest != state_io.tensors_digest(tensors):
        raise ValueError(
            f"{source} is corrupt: its weights do not match the checksum recorded when it was "
            "saved. Save the model again or use an earlier copy."
        )
    order = metadata.get(_ORDER_KEY)
    if order is None and digest is not None:  # `weights_to_bytes` writes both
        raise ValueError(
            f"{source} is corrupt: it has the checksum of its weights but not their order. Save "
            "the model again or use an earlier copy."
        )
    if order is not None:  # safetensors sorts its keys: put them back in the model's order
        # The order decides which weight goes where when the names differ (matching by order),
        # and the checksum does not cover it: a damaged order is an error, not a silent swap.
        try:
            names = json.loads(order)
        except ValueError:
            names = None
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)
                and sorted(names) == sorted(tensors)):
            raise ValueError(
                f"{source} is corrupt: the order of its weights recorded when it was saved does not "
                "name each of its weights once. Save the model again or use an earlier copy."
            )
        tensors = {name: tensors[name] for name in names}
    _load_state_dict(model, tensors, source, by_name=by_name, skip_mismatch=skip_mismatch)


def _load_state_dict(model: Any, tensors: dict[str, torch.Tensor], source: str, by_name: bool,
                     skip_mismatch: bool) -> None:
    own = keras_state_dict(model)
    if not own and tensors:
        raise ValueError(
            f"Cannot load weights from {source} into model {model.name}: the model has no weights "
            "yet. Build it first (call it on data, or model.build(input_shape))."
        )
    if set(own) == set(tensors) and not skip_mismatch:
        mismatched = [k for k in own if tuple(own[k].shape) != tuple(tensors[k].shape)]
        if mismatched:
            k = mismatched[0]
            raise ValueError(
                f"Weight shape mismatch loading {source}: {k} has shape {tuple(own[k].shape)} in "
                f"the model but {tuple(tensors[k].shape)} in the file."
            )
        load_keras_state_dict(model, tensors, strict=True)
        return
    if by_name or skip_mismatch:
        selected = {}
        for k, v in tensors.items():
            if k in own and (tuple(own[k].shape) == tuple(v.shape)):
                selected[k] = v
            elif k in own and not skip_mismatch:
                raise ValueError(
                    f"Weight shape mismatch loading {source}: {k} has shape "
                    f"{tuple(own[k].shape)} in the model but {tuple(v.shape)} in the file; pass "
                    "skip_mismatch=True to skip it."
                )
        load_keras_state_dict(model, selected, strict=False)
        return
    own_keys, file_keys = list(own), list(tensors)
    if len(own_keys) == len(file_keys) and all(
        tuple(own[a].shape) == tuple(tensors[b].shape) for a, b in zip(own_keys, file_keys)
    ):
        load_keras_state_dict(model, {a: tensors[b] for a, b in zip(own_keys, file_keys)})
        return
    missing = sorted(set(own) - set(tensors))
    unexpected = sorted(set(tensors) - set(own))
    raise ValueError(
        f"Cannot load {source} into model {model.name}: weights missing from the file "
        f"{missing[:10]}, weights in the file the model does not have {unexpected[:10]}. Pass "
        "by_name=True to load the matching ones."
    )


def model_from_config(config: dict, custom_objects: dict | None = None) -> Any:
    """Creates a model from a `{"class_name", "config"}` dict (weights freshly initialized)."""
    return _registry.deserialize_keras_object(config, custom_objects=custom_objects)


def model_from_json(json_string: str, custom_objects: dict | None = None) -> Any:
    """Creates a model from the JSON string written by `model.to_json()`."""
    return model_from_config(json.loads(json_string), custom_objects)
