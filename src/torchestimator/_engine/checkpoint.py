"""The Estimator's checkpoint files: TensorFlow's layout, our formats.

A checkpoint is named by its prefix `<dir>/model.ckpt-<step>` (what
`latest_checkpoint` returns, as in TensorFlow) and is two files:

* `<prefix>.safetensors` — every tensor (weights, optimizer state, RNG states)
  as a flat `{name: tensor}` safetensors file; a scalar int64 `global_step`
  tensor is included, as in a TF checkpoint.
* `<prefix>.json` — metadata: `global_step`, the caller's JSON-able `extra`
  dict, the SHA-256 and byte size of the safetensors file, `format_version`,
  `timestamp`, and `metadata_sha256`: the SHA-256 of the canonical JSON of all
  the other fields, so that a changed value in the JSON itself is detected
  (files written before it existed still load).

A checkpoint is complete only when its JSON exists, matches its own checksum,
agrees with the `global_step` of its safetensors file, and the checksum of its
safetensors file matches. Both files are written to temporary names, fsynced,
and renamed (tensors first, then JSON), then the index file `<dir>/checkpoint`
(TensorFlow's `CheckpointState` text format, relative paths) is rewritten
atomically; a crash at any moment leaves the previous complete checkpoint
reachable. Loading never unpickles.

A directory may be the URL of an object store (`s3://`, `gs://`, `memory://`; see
`storage.py`). A store has no rename: each file is one upload that appears whole, the
tensors first, then the metadata that completes the checkpoint, then the index, so a
reader never finds an index naming a missing checkpoint; old checkpoints are deleted
metadata first. TensorFlow's own checkpoint format is read from local paths only.

`CheckpointManager` (the Estimator's `model.ckpt-<step>` files) and `tf.train.Checkpoint`
(object-based, `train/_checkpoint.py`) both write through `write_checkpoint` and
`write_index`: one format, whatever names the tensors carry.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from google.protobuf import text_encoding
from safetensors import safe_open

from torchestimator._engine import storage
from torchestimator._engine.dir_lock import hold_again_if_recreated
from torchestimator._engine.state_io import (
    dumps_json,
    fsync_dir,
    sha256,
    tensors_from_bytes,
    tensors_to_bytes,
)
from torchestimator._tf_formats import engine_hooks as _tf

_log = logging.getLogger(__name__)

FORMAT_VERSION = 1
INDEX_FILENAME = "checkpoint"
TENSORS_SUFFIX = ".safetensors"
METADATA_SUFFIX = ".json"
_TMP_PREFIX = ".tmp-ckpt-"
_FORMAT_NAME = "torchestimator.checkpoint"
METADATA_CHECKSUM = "metadata_sha256"
#: The most bytes a checkpoint's metadata or the `checkpoint` index may hold (both are a few KB).
MAX_JSON_BYTES = 64 << 20
# The fields of the metadata written before `metadata_sha256` existed: a file without the
# checksum is accepted (backward compatible) only if it holds no other field.
_LEGACY_FIELDS = frozenset(
    {"format", "format_version", "global_step", "extra", "tensors_file", "sha256", "size_bytes", "timestamp"}
)

__all__ = [
    "CheckpointManager",
    "CorruptCheckpointError",
    "checkpoint_exists",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "write_checkpoint",
    "write_index",
]


class CorruptCheckpointError(ValueError):
    """Raised when a checkpoint's files are missing, truncated or fail their checksum."""


# ---------------------------------------------------------------------------
# The index file (TensorFlow's CheckpointState text proto)
# ---------------------------------------------------------------------------


def _format_double(value: float) -> str:
    return str(float(value))  # as protobuf's text_format prints a double


def _index_text(
    model_checkpoint_path: str,
    all_paths: list[str],
    timestamps: list[float],
    last_preserved_timestamp: float,
) -> str:
    lines = [f'model_checkpoint_path: "{text_encoding.CEscape(model_checkpoint_path, True)}"']
    lines += [f'all_model_checkpoint_paths: "{text_encoding.CEscape(p, True)}"' for p in all_paths]
    lines += [f"all_model_checkpoint_timestamps: {_format_double(t)}" for t in timestamps]
    if last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {_format_double(last_preserved_timestamp)}")
    return "\n".join(lines) + "\n"


_INDEX_LINE = re.compile(r'^\s*([a-z_]+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+0-9.eEinfINFa]+))\s*$')


def _read_index(directory: str, latest_filename: str | None = None) -> dict[str, Any] | None:
    """Parses `<directory>/checkpoint`; returns None when it is missing or unreadable."""
    path = storage.join(directory, latest_filename or INDEX_FILENAME)
    try:
        raw = storage.read_at_most(path, MAX_JSON_BYTES)
        if raw is None:
            _log.warning("Checkpoint index %s is larger than %d bytes, so not a checkpoint index; "
                         "scanning the folder instead.", path, MAX_JSON_BYTES)
            return None
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    state: dict[str, Any] = {
        "model_checkpoint_path": None,
        "all_model_checkpoint_paths": [],
        "all_model_checkpoint_timestamps": [],
        "last_preserved_timestamp": 0.0,
    }
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _INDEX_LINE.match(line)
        if m is None:
            _log.warning("Checkpoint index %s is corrupt (line %r); scanning the folder instead.", path, line)
            return None
        key, string, number = m.groups()
        try:
            if key == "model_checkpoint_path" and string is not None:
                state[key] = text_encoding.CUnescape(string).decode("utf-8")
            elif key == "all_model_checkpoint_paths" and string is not None:
                state[key].append(text_encoding.CUnescape(string).decode("utf-8"))
            elif key == "all_model_checkpoint_timestamps" and number is not None:
                state[key].append(float(number))
            elif key == "last_preserved_timestamp" and number is not None:
                state[key] = float(number)
            else:
                raise ValueError(key)
        except (ValueError, UnicodeDecodeError):
            _log.warning("Checkpoint index %s is corrupt (line %r); scanning the folder instead.", path, line)
            return None
    if not state["model_checkpoint_path"]:
        _log.warning("Checkpoint index %s names no model_checkpoint_path; scanning the folder instead.", path)
        return None
    return state


def _resolve(directory: str, path: str) -> str:
    if "://" in path or (os.path.isabs(path) and not storage.is_url(directory)):
        return path
    return storage.join(directory, path)


# ---------------------------------------------------------------------------
# Verification
# ---------------------------------------------------------------------------

# prefix -> (file signatures, metadata) of checkpoints whose checksum was verified.
_VERIFIED: dict[str, tuple[tuple, dict[str, Any]]] = {}


def _signature(prefix: str) -> tuple | None:
    if storage.is_url(prefix):
        a, b = storage.signature(prefix + METADATA_SUFFIX), storage.signature(prefix + TENSORS_SUFFIX)
        return None if a is None or b is None else a + b
    try:
        a = os.stat(prefix + METADATA_SUFFIX)
        b = os.stat(prefix + TENSORS_SUFFIX)
    except OSError:
        return None
    return (a.st_ino, a.st_size, a.st_mtime_ns, b.st_ino, b.st_size, b.st_mtime_ns)


def _read_metadata(prefix: str) -> dict[str, Any]:
    json_path = prefix + METADATA_SUFFIX
    tensors_path = prefix + TENSORS_SUFFIX
    if not storage.exists(json_path):
        if storage.exists(tensors_path):
            raise CorruptCheckpointError(
                f"Checkpoint {prefix!r} is incomplete: {tensors_path} exists but its metadata file "
                f"{json_path} is missing (the save was interrupted)."
            )
        raise FileNotFoundError(
            f"No checkpoint at {prefix!r}: neither {json_path} nor {tensors_path} exists. "
            "Pass a checkpoint prefix such as '<model_dir>/model.ckpt-<step>' or a model_dir."
        )
    try:
        raw = storage.read_at_most(json_path, MAX_JSON_BYTES)
    except OSError as e:
        raise CorruptCheckpointError(f"Checkpoint metadata {json_path} cannot be read: {e}") from e
    if raw is None:
        raise CorruptCheckpointError(
            f"Checkpoint metadata {json_path} is larger than {MAX_JSON_BYTES} bytes, far more than "
            "any checkpoint's metadata: it is corrupt or was crafted, and is not read."
        )
    try:
        metadata = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise CorruptCheckpointError(
            f"Checkpoint metadata {json_path} is not a checkpoint's metadata: its JSON nests too "
            "deeply to read (the file is corrupt or was crafted)."
        ) from None
    except (OSError, ValueError) as e:
        raise CorruptCheckpointError(f"Checkpoint metadata {json_path} is not valid JSON: {e}") from e
    required = ("global_step", "sha256", "size_bytes", "format_version")
    if not isinstance(metadata, dict) or any(k not in metadata for k in required):
        raise CorruptCheckpointError(
            f"Checkpoint metadata {json_path} lacks one of the fields {list(required)}; "
            f"received keys {sorted(metadata) if isinstance(metadata, dict) else type(metadata).__name__}."
        )
    try:
        _check_metadata_checksum(json_path, metadata)
    except RecursionError:  # nesting that json.loads took but the canonical dump cannot
        raise CorruptCheckpointError(
            f"Checkpoint metadata {json_path} is not a checkpoint's metadata: its JSON nests too "
            "deeply to read (the file is corrupt or was crafted)."
        ) from None
    _check_metadata_types(json_path, metadata)
    if metadata["format_version"] > FORMAT_VERSION:
        raise CorruptCheckpointError(
            f"Checkpoint {prefix!r} has format_version {metadata['format_version']}, newer than the "
            f"{FORMAT_VERSION} this version of torchestimator reads; upgrade torchestimator."
        )
    if not storage.exists(tensors_path):
        raise CorruptCheckpointError(
            f"Checkpoint {prefix!r} is incomplete: its tensor file {tensors_path} is missing."
        )
    size = storage.getsize(tensors_path)
    if size != metadata["size_bytes"]:
        raise CorruptCheckpointError(
            f"Checkpoint tensor file {tensors_path} is truncated or was overwritten: it has "
            f"{size} bytes, its metadata expects {metadata['size_bytes']}."
        )
    stored = _header_global_step(tensors_path)
    if stored is not None and stored != metadata["global_step"]:
        _step_mismatch(json_path, metadata["global_step"], tensors_path, stored, "its header")
    return metadata


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: field -> (what it must be, the test) of a checkpoint's metadata (absent optional ones pass).
_METADATA_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "format_version": ("an integer", _is_int),
    "global_step": ("an integer of at most 64 bits", lambda v: _is_int(v) and abs(v) < 1 << 63),
    "size_bytes": ("an integer >= 0", lambda v: _is_int(v) and v >= 0),
    "sha256": ("64 hex digits", lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) is not None),
    "extra": ("a JSON object", lambda v: isinstance(v, dict)),
    "timestamp": ("a number or null", lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))),
    "format": ("a string", lambda v: isinstance(v, str)),
    "tensors_file": ("a string", lambda v: isinstance(v, str)),
}


def _check_metadata_types(json_path: str, metadata: dict[str, Any]) -> None:
    """CorruptCheckpointError naming the field, what it must be and what it is, for the first
    field of `metadata` whose value has the wrong type (before any is compared or used)."""
    for field_name, (want, ok) in _METADATA_TYPES.items():
        if field_name in metadata and not ok(metadata[field_name]):
            shown = repr(metadata[field_name])
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise CorruptCheckpointError(
                f"Checkpoint metadata {json_path} is corrupt: its {field_name!r} must be {want}, "
                f"it is {shown}. Restore the checkpoint from a good copy."
            )


def metadata_checksum(metadata: dict[str, Any]) -> str:
    """The `metadata_sha256` of a checkpoint's metadata: the SHA-256 of the canonical JSON
    (sorted keys, no spaces, ASCII) of every field but `metadata_sha256` itself."""
    body = {k: v for k, v in metadata.items() if k != METADATA_CHECKSUM}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return sha256(text.encode("ascii"))


def _check_metadata_checksum(json_path: str, metadata: dict[str, Any]) -> None:
    recorded = metadata.get(METADATA_CHECKSUM)
    if recorded is None:
        # Written before the checksum existed: only the fields of that format may appear (a
        # damaged `metadata_sha256` key would otherwise pass for an old file).
        unknown = sorted(set(metadata) - _LEGACY_FIELDS)
        if unknown:
            raise CorruptCheckpointError(
                f"Checkpoint metadata {json_path} is corrupt: it has no {METADATA_CHECKSUM!r} "
                f"field but has the unknown field(s) {unknown}."
            )
        return
    actual = metadata_checksum(metadata)
    if recorded != actual:
        raise CorruptCheckpointError(
            f"Checkpoint metadata {json_path} fails its checksum: its fields hash to SHA-256 "
            f"{actual}, its {METADATA_CHECKSUM} records {recorded!r}. A value in the file was "
            "changed or damaged."
        )


def _step_mismatch(json_path: str, step: Any, tensors_path: str, stored: int, where: str) -> None:
    raise CorruptCheckpointError(
        f"Checkpoint metadata {json_path} says global_step {step!r} but the tensor file "
        f"{tensors_path} holds global_step {stored} ({where}): one of the files is damaged, "
        "or they belong to different checkpoints."
    )


def _header_global_step(tensors_path: str) -> int | None:
    """The `global_step` that `write_checkpoint` records in the safetensors header's metadata;
    None when the header cannot be read (the checksum then reports the file) or has none."""
    try:
        with storage.open_read(tensors_path) as f:
            prefix = f.read(8)
            size = int.from_bytes(prefix, "little") if len(prefix) == 8 else 0
            total = storage.getsize(tensors_path) if storage.is_url(tensors_path) else os.fstat(f.fileno()).st_size
            if not 0 < size <= min(total - 8, 100 << 20):
                return None
            header = json.loads(f.read(size))
    except (OSError, ValueError):
        return None
    metadata = header.get("__metadata__") if isinstance(header, dict) else None
    value = metadata.get("global_step") if isinstance(metadata, dict) else None
    if not isinstance(value, str) or not re.fullmatch(r"-?\d{1,30}", value):
        return None
    return int(value)


def _check_bytes(prefix: str, data: bytes, metadata: dict[str, Any]) -> None:
    tensors_path = prefix + TENSORS_SUFFIX
    if len(data) != metadata["size_bytes"]:
        raise CorruptCheckpointError(
            f"Checkpoint tensor file {tensors_path} is truncated: it has {len(data)} bytes, "
            f"its metadata expects {metadata['size_bytes']}."
        )
    digest = sha256(data)
    if digest != metadata["sha256"]:
        raise CorruptCheckpointError(
            f"Checkpoint tensor file {tensors_path} fails its checksum: SHA-256 {digest}, "
            f"its metadata expects {metadata['sha256']}. The file is corrupt."
        )


def _verify(prefix: str) -> dict[str, Any]:
    """Returns the metadata of a complete checkpoint; raises CorruptCheckpointError/FileNotFoundError."""
    if _tf.is_tf(prefix, METADATA_SUFFIX):  # TensorFlow's own format (`_tf_formats`)
        return _tf.tf_metadata(prefix)
    key = storage.abspath(prefix)
    sig = _signature(prefix)
    cached = _VERIFIED.get(key)
    if sig is not None and cached is not None and cached[0] == sig:
        return cached[1]
    metadata = _read_metadata(prefix)
    data = storage.read_bytes(prefix + TENSORS_SUFFIX)
    _check_bytes(prefix, data, metadata)
    if sig is not None and sig == _signature(prefix):
        if len(_VERIFIED) > 10000:
            _VERIFIED.clear()
        _VERIFIED[key] = (sig, metadata)
    return metadata


def checkpoint_exists(prefix: str) -> bool:
    """Returns True if `prefix` names a complete checkpoint (metadata present, checksum matches),
    as `tf.compat.v1.train.checkpoint_exists`."""
    try:
        _verify(os.fspath(prefix))
    except (OSError, ValueError):
        return False
    return True


# ---------------------------------------------------------------------------
# Finding checkpoints
# ---------------------------------------------------------------------------

_STEP_RE = re.compile(r"^(?P<base>.+)-(?P<step>\d+)" + re.escape(METADATA_SUFFIX) + "$")


def _scan(directory: str, basename: str | None = None) -> list[tuple[int, str]]:
    """`(step, prefix)` of every checkpoint-looking file pair in `directory`, oldest step first."""
    try:
        names = storage.listdir(directory)
    except OSError:
        return []
    found = []
    for name in names:
        m = _STEP_RE.match(name)
        if m is None or name.startswith(_TMP_PREFIX):
            continue
        if basename is not None and m.group("base") != basename:
            continue
        stem = name[: -len(METADATA_SUFFIX)]
        if stem + TENSORS_SUFFIX in names:
            found.append((int(m.group("step")), storage.join(directory, stem)))
    # TensorFlow's own checkpoints (`<base>-<step>.index`, `_tf_formats`), e.g. a model_dir
    # copied from another machine whose index names absolute paths that do not exist here.
    if not storage.is_url(directory):  # TF's format is read from local files only
        found += _tf.scan(directory, names, basename, {p for _, p in found})
    return sorted(found)


def _step_of(prefix: str) -> int:
    m = re.search(r"-(\d+)$", prefix)
    return int(m.group(1)) if m else -1


def _series(prefix: str) -> str:
    """The checkpoint's path without its `-<step>`: checkpoints of one series share it."""
    return re.sub(r"-\d+$", "", os.path.normpath(prefix))


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """Finds the filename of the latest saved checkpoint, as `tf.train.latest_checkpoint`.

    Reads the index file `<checkpoint_dir>/checkpoint` and returns the checkpoint it names
    (`model_checkpoint_path`). If that one is missing, truncated or fails its checksum, logs
    a warning naming its path and falls back to the newest complete one (listed in the index
    or found in the folder); if the index itself is missing or corrupt, the folder is scanned.

    A damaged index never silently costs steps: when its `model_checkpoint_path` is not the
    last of its `all_model_checkpoint_paths` (TensorFlow always writes it last), or when it
    lists a complete checkpoint of the same name with a higher step written after the one
    it names, a warning names the index file and the newest complete checkpoint is returned.
    (As in TensorFlow, a complete checkpoint the index does not list yet, left by a crash
    between writing it and rewriting the index, is not used: the index names the latest.)

    Returns:
      The checkpoint prefix (`<checkpoint_dir>/model.ckpt-<step>`), or None if no
      complete checkpoint exists.
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    checkpoint_dir = storage.local(checkpoint_dir)
    index_path = storage.join(checkpoint_dir, latest_filename or INDEX_FILENAME)
    state = _read_index(checkpoint_dir, latest_filename)
    chosen: str | None = None
    listed: list[str] = []
    fallback = False  # whether the checkpoint returned is not the one the index names
    if state is not None:
        chosen = _resolve(checkpoint_dir, state["model_checkpoint_path"])
        listed = [_resolve(checkpoint_dir, p) for p in state["all_model_checkpoint_paths"]]
        if listed and os.path.normpath(listed[-1]) != os.path.normpath(chosen):
            _log.warning(
                "Checkpoint index %s is inconsistent (damaged?): its model_checkpoint_path %r is not "
                "the last of its all_model_checkpoint_paths (last: %r), where TensorFlow always "
                "writes it. Using the newest complete checkpoint instead.",
                index_path, state["model_checkpoint_path"], state["all_model_checkpoint_paths"][-1],
            )
            chosen, fallback = None, True
    seen: set[str] = {os.path.normpath(chosen)} if chosen is not None else set()
    others = []
    for p in listed + [p for _, p in _scan(checkpoint_dir)]:
        k = os.path.normpath(p)
        if k not in seen:
            seen.add(k)
            others.append(p)
    others.sort(key=_step_of, reverse=True)  # newest step first

    if chosen is not None:
        try:
            metadata = _verify(chosen)
        except (OSError, ValueError) as e:
            _log.warning("Latest checkpoint %s is unusable (%s); looking for an earlier one.", chosen, e)
            fallback = True
        else:
            newer = _written_later(chosen, metadata, sorted(listed, key=_step_of, reverse=True))
            if newer is None:
                return chosen
            _log.warning(
                "Checkpoint index %s is inconsistent (damaged?): it names %s as the latest, but "
                "also lists the complete checkpoint %s, of a higher step and written after it; "
                "using %s.",
                index_path, chosen, newer, newer,
            )
            return newer
    for prefix in others:
        try:
            _verify(prefix)
        except (OSError, ValueError) as e:
            _log.warning("Checkpoint %s is unusable (%s); skipping it.", prefix, e)
            fallback = True
            continue
        if fallback:
            _log.warning("Falling back to checkpoint %s.", prefix)
        return prefix
    return None


def _written_later(chosen: str, metadata: dict[str, Any], others: list[str]) -> str | None:
    """The newest complete checkpoint of `others` (newest step first) in `chosen`'s series with
    a higher step whose metadata was written after `chosen`'s, or None."""
    step, series, written = _step_of(chosen), _series(chosen), metadata.get("timestamp")
    if not isinstance(written, (int, float)):
        return None
    for prefix in others:  # newest step first
        if _step_of(prefix) <= step:
            break
        if _series(prefix) != series:
            continue
        try:
            later = _verify(prefix).get("timestamp")
        except (OSError, ValueError):
            continue
        if isinstance(later, (int, float)) and later > written:
            return prefix
    return None


def _resolve_prefix(prefix_or_dir: str) -> str:
    prefix_or_dir = storage.local(os.fspath(prefix_or_dir))
    if storage.isdir(prefix_or_dir):
        found = latest_checkpoint(prefix_or_dir)
        if found is None:
            raise FileNotFoundError(
                f"No complete checkpoint in directory {prefix_or_dir!r} (no '{INDEX_FILENAME}' index "
                "naming a valid checkpoint and no 'model.ckpt-<step>' files). Train the model first "
                "or pass a checkpoint prefix."
            )
        return found
    return prefix_or_dir


# ---------------------------------------------------------------------------
# Reading checkpoints
# ---------------------------------------------------------------------------


def checkpoint_metadata(prefix: str) -> dict[str, Any]:
    """The metadata of checkpoint `prefix` (`global_step`, `extra`, ...) without reading its
    tensors: checked as `load_checkpoint` checks it, less the hash of the tensor bytes."""
    if _tf.is_tf(prefix, METADATA_SUFFIX):
        return _tf.tf_metadata(prefix)
    return _read_metadata(prefix)


def load_checkpoint(prefix: str) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Reads and verifies a checkpoint (a prefix, or a directory meaning its latest checkpoint).

    Returns:
      `(tensors, metadata)`: the flat `{name: tensor}` dict as saved, and the metadata
      dict (`global_step`, `extra`, `sha256`, `size_bytes`, `format_version`, `timestamp`).

    Raises:
      CorruptCheckpointError: the files are incomplete, truncated or fail their checksum.
      FileNotFoundError: there is no checkpoint at `prefix`.
    """
    prefix = _resolve_prefix(prefix)
    if _tf.is_tf(prefix, METADATA_SUFFIX):  # metadata["format"] == "tensorflow"
        return _tf.load_tf_checkpoint(prefix)
    metadata = _read_metadata(prefix)
    tensors_path = prefix + TENSORS_SUFFIX
    data = storage.read_bytes(tensors_path)
    _check_bytes(prefix, data, metadata)
    try:
        tensors = tensors_from_bytes(data, source=tensors_path)
    except ValueError as e:
        raise CorruptCheckpointError(str(e)) from e
    step = tensors.get("global_step")
    if step is not None and step.numel() == 1 and not step.is_floating_point() and not step.is_complex():
        if int(step.reshape(()).item()) != metadata["global_step"]:
            _step_mismatch(prefix + METADATA_SUFFIX, metadata["global_step"], tensors_path,
                           int(step.reshape(()).item()), "its `global_step` tensor")
    return tensors, metadata


def list_variables(prefix_or_dir: str) -> list[tuple[str, list[int]]]:
    """Lists the tensors in a checkpoint, as `tf.train.list_variables`.

    Returns:
      A list of `(name, shape)` tuples sorted by name; shapes are lists of ints.
    """
    prefix = _resolve_prefix(prefix_or_dir)
    if _tf.is_tf(prefix, METADATA_SUFFIX):
        return _tf.list_tf_variables(prefix)
    _read_metadata(prefix)
    path = prefix + TENSORS_SUFFIX
    if storage.is_url(path):
        return sorted((name, list(t.shape)) for name, t in _remote_tensors(path).items())
    try:
        with safe_open(path, framework="pt") as f:
            return sorted((name, list(f.get_slice(name).get_shape())) for name in f.keys())
    except Exception as e:  # safetensors raises its own error types
        raise CorruptCheckpointError(f"Checkpoint tensor file {path} cannot be read: {e}") from e


def load_variable(prefix_or_dir: str, name: str) -> np.ndarray:
    """Returns the value of tensor `name` in a checkpoint as a numpy array, as
    `tf.train.load_variable` (bfloat16 values come back as float32).

    Raises:
      KeyError: `name` is not in the checkpoint (the message lists similar names).
    """
    prefix = _resolve_prefix(prefix_or_dir)
    if _tf.is_tf(prefix, METADATA_SUFFIX):
        return _tf.load_tf_variable(prefix, name)
    _read_metadata(prefix)
    path = prefix + TENSORS_SUFFIX
    try:
        with (_RemoteTensors(path) if storage.is_url(path) else safe_open(path, framework="pt")) as f:
            names = list(f.keys())
            if name not in names:
                close = difflib.get_close_matches(name, names, n=5, cutoff=0.4)
                hint = f" Similar names: {close}." if close else f" It holds {len(names)} tensors."
                raise KeyError(
                    f"Tensor {name!r} not found in checkpoint {prefix!r}.{hint} "
                    "Use list_variables() to see every name."
                )
            tensor = f.get_tensor(name)
    except KeyError:
        raise
    except Exception as e:
        raise CorruptCheckpointError(f"Checkpoint tensor file {path} cannot be read: {e}") from e
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    return tensor.numpy()


def _remote_tensors(path: str) -> dict[str, torch.Tensor]:
    """The tensors of a safetensors file on a store (read whole: stores have no mmap)."""
    try:
        return tensors_from_bytes(storage.read_bytes(path), source=path)
    except ValueError as e:
        raise CorruptCheckpointError(str(e)) from e


class _RemoteTensors:
    """`safe_open`'s `keys` / `get_tensor` over a safetensors file on a store."""

    def __init__(self, path: str) -> None:
        self._tensors = _remote_tensors(path)

    def __enter__(self) -> _RemoteTensors:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def keys(self) -> list[str]:
        return list(self._tensors)

    def get_tensor(self, name: str) -> torch.Tensor:
        return self._tensors[name]


# ---------------------------------------------------------------------------
# Writing checkpoints
# ---------------------------------------------------------------------------


def _write_temp(directory: str, data: bytes) -> str:
    fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _remove(path: str) -> None:
    if storage.is_url(path):
        storage.remove(path)
        return
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _delete_checkpoint(prefix: str) -> None:
    # The metadata goes first: without it the checkpoint is incomplete at once.
    _remove(prefix + METADATA_SUFFIX)
    _remove(prefix + TENSORS_SUFFIX)
    _VERIFIED.pop(storage.abspath(prefix), None)


def _unwritable(directory: str, error: OSError) -> OSError:
    """`error` re-raised as TF's error type (a subclass of the same OSError), naming `directory`."""
    from torchestimator import errors

    reason = error.strerror or str(error)
    message = f"Cannot write a checkpoint into {directory!r}: {reason}."
    if isinstance(error, PermissionError):
        return errors.PermissionDeniedError(None, None, message)
    if isinstance(error, (FileNotFoundError, NotADirectoryError)):
        return errors.NotFoundError(None, None, message)
    return OSError(error.errno, message)


def _ensure_directory(directory: str) -> None:
    try:
        storage.makedirs(directory)
    except OSError as e:
        raise _unwritable(directory, e) from e


def write_checkpoint(
    prefix: str,
    tensors: dict[str, torch.Tensor],
    global_step: int,
    extra: dict[str, Any] | None = None,
    clock: Callable[[], float] = time.time,
) -> None:
    """Writes checkpoint `prefix` (`<prefix>.safetensors` and `<prefix>.json`) atomically.

    Both files are fully written and fsynced under temporary names before either is
    renamed (tensors first, then the metadata that completes the checkpoint). The index
    file is not touched (see `write_index`). `global_step` is recorded in the metadata;
    `extra` is any JSON-able dict stored with it.

    Raises:
      tf.errors.PermissionDeniedError / NotFoundError (OSErrors): the folder of `prefix`
        cannot be created or written; the message names it.
    """
    prefix = storage.local(os.fspath(prefix))
    remote = storage.is_url(prefix)
    directory = storage.dirname(prefix) if remote else os.path.dirname(os.path.abspath(prefix))
    global_step = int(global_step)
    data = tensors_to_bytes(tensors, metadata={"format": _FORMAT_NAME, "global_step": str(global_step)})
    metadata = {
        "format": _FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "global_step": global_step,
        "extra": extra if extra is not None else {},
        "tensors_file": storage.basename(prefix) + TENSORS_SUFFIX,
        "sha256": sha256(data),
        "size_bytes": len(data),
        "timestamp": clock(),
    }
    try:
        # The checksum is taken over the values as they will be read back (tuples become
        # lists, int keys strings), then the file is written with it.
        metadata = json.loads(dumps_json(metadata))
        metadata[METADATA_CHECKSUM] = metadata_checksum(metadata)
        meta_bytes = dumps_json(metadata)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Checkpoint metadata (`extra`) must be JSON-serializable: {e}") from e
    _ensure_directory(directory)
    if remote:
        # An object store has no rename: each file is one upload that appears whole, the
        # tensors first and the metadata (which completes the checkpoint) last.
        try:
            storage.write_bytes(prefix + TENSORS_SUFFIX, data)
            storage.write_bytes(prefix + METADATA_SUFFIX, meta_bytes)
        except OSError as e:
            raise _unwritable(directory, e) from e
        _VERIFIED.pop(storage.abspath(prefix), None)
        return
    hold_again_if_recreated(directory)
    try:
        tmp_tensors = _write_temp(directory, data)
    except OSError as e:
        raise _unwritable(directory, e) from e
    try:
        tmp_meta = _write_temp(directory, meta_bytes)
    except BaseException:
        _remove(tmp_tensors)
        raise
    try:
        os.replace(tmp_tensors, prefix + TENSORS_SUFFIX)
        os.replace(tmp_meta, prefix + METADATA_SUFFIX)
    finally:
        _remove(tmp_tensors)
        _remove(tmp_meta)
    fsync_dir(directory)
    _VERIFIED.pop(os.path.abspath(prefix), None)


def write_index(
    directory: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: list[str],
    all_model_checkpoint_timestamps: list[float] | None = None,
    last_preserved_timestamp: float = 0.0,
) -> None:
    """Atomically rewrites `<directory>/checkpoint` (TF's `CheckpointState` text format), so
    that `latest_checkpoint(directory)` names `model_checkpoint_path`. Paths inside
    `directory` are written relative to it, as TF does."""
    directory = storage.local(os.fspath(directory))
    remote = storage.is_url(directory)

    def relative(path: str) -> str:
        if remote:
            inside = storage.abspath(storage.dirname(path)) == here if "://" in path else False
            return storage.basename(path) if inside else path
        if os.path.dirname(path) and os.path.normpath(os.path.dirname(os.path.abspath(path))) == here:
            return os.path.basename(path)
        return path

    here = storage.abspath(directory) if remote else os.path.normpath(os.path.abspath(directory))
    all_paths = [relative(p) for p in all_model_checkpoint_paths]
    timestamps = list(all_model_checkpoint_timestamps or [])
    if model_checkpoint_path and (not all_paths or all_paths[-1] != relative(model_checkpoint_path)):
        # As TF's `generate_checkpoint_state_proto`: the latest is always the last path (the
        # readers rely on it to detect a damaged index).
        all_paths.append(relative(model_checkpoint_path))
        if timestamps:
            timestamps.append(time.time())
    text = _index_text(relative(model_checkpoint_path), all_paths, timestamps, last_preserved_timestamp)
    _ensure_directory(directory)
    if remote:  # one upload, after the checkpoint's own files: never names a missing one
        try:
            storage.write_bytes(storage.join(directory, INDEX_FILENAME), text.encode("utf-8"))
        except OSError as e:
            raise _unwritable(directory, e) from e
        return
    hold_again_if_recreated(directory)
    try:
        tmp = _write_temp(directory, text.encode("utf-8"))
    except OSError as e:
        raise _unwritable(directory, e) from e
    try:
        os.replace(tmp, os.path.join(directory, INDEX_FILENAME))
    finally:
        _remove(tmp)
    fsync_dir(directory)


class CheckpointManager:
    """Saves numbered checkpoints in `directory` and deletes old ones, as TF's `Saver` under
    an Estimator (and `tf.train.CheckpointManager`).

    Keeps the newest `max_to_keep` checkpoints (0 or None keeps all); of the older ones,
    one every `keep_checkpoint_every_n_hours` is preserved (its files stay, it leaves the
    index). Construction picks up the index already in `directory` (resume). A single
    process (the chief) is expected to write a directory.

    Args:
      directory: the model_dir.
      max_to_keep: how many recent checkpoints to keep.
      keep_checkpoint_every_n_hours: preserve one checkpoint per this many hours.
      checkpoint_basename: the file name stem, `model.ckpt` as in TF.
      clock: returns the current time in seconds (injectable for tests).
    """

    def __init__(
        self,
        directory: str,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float | None = 10000.0,
        checkpoint_basename: str = "model.ckpt",
        clock: Callable[[], float] = time.time,
    ) -> None:
        directory = storage.local(os.fspath(directory))
        if not directory:
            raise ValueError("CheckpointManager: `directory` must be a non-empty path; received ''.")
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep < 0):
            raise ValueError(
                f"CheckpointManager: `max_to_keep` must be an int >= 0 or None; received {max_to_keep!r}."
            )
        if keep_checkpoint_every_n_hours is not None and not keep_checkpoint_every_n_hours > 0:
            raise ValueError(
                "CheckpointManager: `keep_checkpoint_every_n_hours` must be > 0; received "
                f"{keep_checkpoint_every_n_hours!r}."
            )
        if not checkpoint_basename or os.sep in checkpoint_basename:
            raise ValueError(
                "CheckpointManager: `checkpoint_basename` must be a plain file name such as "
                f"'model.ckpt'; received {checkpoint_basename!r}."
            )
        self._directory = directory
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._basename = checkpoint_basename
        self._clock = clock
        # relative name -> timestamp, oldest first (TF's `_maybe_delete`).
        self._kept: OrderedDict[str, float] = OrderedDict()
        self._latest: str | None = None
        now = clock()
        self._last_preserved_timestamp = now
        _ensure_directory(directory)
        self._remove_stale_temp_files()
        self._recover(now)

    # -- properties -----------------------------------------------------------------

    @property
    def directory(self) -> str:
        """The folder checkpoints are written to."""
        return self._directory

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint this manager saved, or on construction the newest
        complete one in the directory; None if there is none."""
        return self._latest

    @property
    def checkpoints(self) -> list[str]:
        """The prefixes of the kept checkpoints, oldest first."""
        return [storage.join(self._directory, name) for name in self._kept]

    # -- resume -----------------------------------------------------------------------

    def _remove_stale_temp_files(self) -> None:
        if storage.is_url(self._directory):
            return  # no temporary files on a store
        try:
            names = os.listdir(self._directory)
        except OSError:
            return
        for name in names:
            if name.startswith(_TMP_PREFIX):
                _remove(os.path.join(self._directory, name))

    def _relative(self, prefix: str) -> str:
        """The name the index uses: relative to the directory when the checkpoint is inside it."""
        if storage.is_url(self._directory):
            if "://" in prefix and storage.abspath(storage.dirname(prefix)) == storage.abspath(self._directory):
                return storage.basename(prefix)
            return prefix
        if not os.path.dirname(prefix):
            return prefix
        here = os.path.normpath(os.path.abspath(self._directory))
        if os.path.normpath(os.path.dirname(os.path.abspath(prefix))) == here:
            return os.path.basename(prefix)
        return prefix

    def _recover(self, now: float) -> None:
        state = _read_index(self._directory)
        if state is not None:
            paths = [self._relative(p) for p in state["all_model_checkpoint_paths"]]
            stamps = list(state["all_model_checkpoint_timestamps"])
            if len(stamps) != len(paths):
                stamps = [self._mtime(p, now) for p in paths]
            for p, t in zip(paths, stamps):
                self._kept[p] = t
            if state["last_preserved_timestamp"]:
                self._last_preserved_timestamp = state["last_preserved_timestamp"]
        else:
            for _, prefix in _scan(self._directory, self._basename):
                if checkpoint_exists(prefix):
                    self._kept[storage.basename(prefix)] = self._mtime(storage.basename(prefix), now)
        # The newest complete checkpoint (a damaged newest one is skipped, with a warning).
        self._latest = latest_checkpoint(self._directory)
        if self._latest is not None:
            relative = self._relative(self._latest)
            if relative not in self._kept and "/" not in relative and os.sep not in relative \
                    and _series(relative) == self._basename:
                # Not among the index's paths (a damaged index): kept like the others, so
                # that max_to_keep deletes it in turn.
                self._kept[relative] = self._mtime(relative, now)
        if now < self._last_preserved_timestamp:
            # The clock went backwards since the last run: start the preservation window now.
            self._last_preserved_timestamp = now

    def _mtime(self, relative: str, default: float) -> float:
        try:
            return storage.getmtime(_resolve(self._directory, relative) + METADATA_SUFFIX)
        except OSError:
            return default

    # -- saving -----------------------------------------------------------------------

    def save(
        self,
        global_step: int,
        tensors: dict[str, torch.Tensor],
        extra: dict[str, Any] | None = None,
        step_tensor: bool = True,
    ) -> str:
        """Writes checkpoint `<directory>/<basename>-<global_step>` and deletes old ones.

        `tensors` is a flat `{name: tensor}` dict; a scalar int64 `global_step` tensor is
        added if absent (unless `step_tensor` is False: object-based checkpoints number
        their files without storing the number as a tensor). `extra` is any JSON-able
        dict stored in the metadata. Re-saving an existing step overwrites it.

        Returns:
          The checkpoint prefix.
        """
        if isinstance(global_step, torch.Tensor):
            global_step = int(global_step.item())
        if isinstance(global_step, bool) or not isinstance(global_step, (int, np.integer)) or global_step < 0:
            raise ValueError(
                f"CheckpointManager.save: `global_step` must be an int >= 0; received {global_step!r}."
            )
        global_step = int(global_step)
        if not isinstance(tensors, dict):
            raise TypeError(
                "CheckpointManager.save: `tensors` must be a dict {name: torch.Tensor}; received "
                f"{type(tensors).__name__}."
            )
        for name, value in tensors.items():
            if not isinstance(name, str) or not isinstance(value, torch.Tensor):
                raise TypeError(
                    "CheckpointManager.save: `tensors` must map str names to torch.Tensor; entry "
                    f"{name!r} is a {type(value).__name__}. Flatten nested state with flatten_state()."
                )
        if extra is not None and not isinstance(extra, dict):
            raise TypeError(f"CheckpointManager.save: `extra` must be a dict or None; received {type(extra).__name__}.")
        tensors = dict(tensors)
        if "global_step" in tensors:
            stored = tensors["global_step"]
            if step_tensor and (stored.numel() != 1 or int(stored.reshape(()).item()) != global_step):
                raise ValueError(
                    "CheckpointManager.save: tensors['global_step'] holds "
                    f"{stored.tolist()} but `global_step` is {global_step}; they must agree."
                )
        elif step_tensor:
            tensors["global_step"] = torch.tensor(global_step, dtype=torch.int64)

        relative = f"{self._basename}-{global_step}"
        prefix = storage.join(self._directory, relative)
        now = self._clock()
        write_checkpoint(prefix, tensors, global_step, extra, clock=lambda: now)

        # Move a re-saved step to the end of the queue (TF's CheckpointManager).
        self._kept.pop(relative, None)
        self._kept[relative] = now
        self._latest = prefix
        # The index names the new checkpoint before anything is deleted, and again after.
        self._write_index()
        if self._sweep():
            self._write_index()
        return prefix

    def _sweep(self) -> bool:
        """Deletes (or preserves) checkpoints beyond max_to_keep; returns True if any left the list."""
        if not self._max_to_keep:
            return False
        changed = False
        while len(self._kept) > self._max_to_keep:
            relative, timestamp = self._kept.popitem(last=False)
            changed = True
            if self._keep_hours and timestamp - self._keep_hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = timestamp
                _log.info("Preserving checkpoint %s (keep_checkpoint_every_n_hours).", relative)
                continue
            _delete_checkpoint(_resolve(self._directory, relative))
        return changed

    def _write_index(self) -> None:
        write_index(
            self._directory,
            self._relative(self._latest) if self._latest else "",
            list(self._kept),
            list(self._kept.values()),
            self._last_preserved_timestamp,
        )

    def __repr__(self) -> str:
        return (
            f"CheckpointManager(directory={self._directory!r}, max_to_keep={self._max_to_keep}, "
            f"keep_checkpoint_every_n_hours={self._keep_hours}, latest={self._latest!r})"
        )
