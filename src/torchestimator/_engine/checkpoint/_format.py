"""The checkpoint format: the two files of one checkpoint, their metadata and checksums,
verification, and writing them atomically (see the package docstring)."""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable
from typing import Any

import torch

from torchestimator import errors
from torchestimator._engine import storage
from torchestimator._engine.checkpoint._foreign import foreign_format
from torchestimator._engine.dir_lock import hold_again_if_recreated
from torchestimator._engine.state_io import (
    dumps_json,
    fsync_dir,
    sha256,
    tensors_to_bytes,
)

_log = logging.getLogger("torchestimator._engine.checkpoint")


FORMAT_VERSION = 1
INDEX_FILENAME = "checkpoint"
TENSORS_SUFFIX = ".safetensors"
METADATA_SUFFIX = ".json"
#: While a checkpoint that already exists is overwritten (a resumed run re-saves the step it
#: restored, as TensorFlow does), its new metadata waits under this suffix: a reader whose
#: `<prefix>.json` does not match the tensor file tries it (see `write_checkpoint`).
PENDING_METADATA_SUFFIX = ".json.next"
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



class CorruptCheckpointError(ValueError):
    """Raised when a checkpoint's files are missing, truncated or fail their checksum."""


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
    """The checked metadata of checkpoint `prefix` (its JSON, its size and global_step against
    the tensor file); while the checkpoint is being overwritten, the new metadata if the new
    tensor file is already in place."""
    try:
        return _read_metadata_file(prefix, prefix + METADATA_SUFFIX)
    except CorruptCheckpointError as first:
        pending = _pending_metadata(prefix)
        if pending is None:
            raise first from None
        return pending


def _pending_metadata(prefix: str) -> dict[str, Any] | None:
    """The metadata of an overwrite in progress (`PENDING_METADATA_SUFFIX`, or `<prefix>.json`
    again when the writer finished meanwhile) if it agrees with the tensor file; else None."""
    for path in (prefix + PENDING_METADATA_SUFFIX, prefix + METADATA_SUFFIX):
        try:
            return _read_metadata_file(prefix, path)
        except (CorruptCheckpointError, FileNotFoundError):
            continue
    return None


def _read_metadata_file(prefix: str, json_path: str) -> dict[str, Any]:
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


def read_verified(prefix: str) -> tuple[dict[str, Any], bytes]:
    """`(metadata, tensor file bytes)` of checkpoint `prefix`, the bytes checked against the
    metadata's size and SHA-256. A tensor file that fails the check while the checkpoint is
    being overwritten is checked against the new metadata before it is called corrupt."""
    metadata = _read_metadata(prefix)
    data = storage.read_bytes(prefix + TENSORS_SUFFIX)
    try:
        _check_bytes(prefix, data, metadata)
    except CorruptCheckpointError as first:
        for path in (prefix + PENDING_METADATA_SUFFIX, prefix + METADATA_SUFFIX):
            try:
                candidate = _read_metadata_file(prefix, path)
            except (CorruptCheckpointError, FileNotFoundError):
                continue
            if candidate["sha256"] == sha256(data) and candidate["size_bytes"] == len(data):
                return candidate, data
        raise first from None
    return metadata, data


def _verify(prefix: str) -> dict[str, Any]:
    """Returns the metadata of a complete checkpoint; raises CorruptCheckpointError/FileNotFoundError."""
    foreign = foreign_format(prefix, METADATA_SUFFIX)  # TensorFlow's own format (`_foreign`)
    if foreign is not None:
        return foreign.metadata(prefix)
    key = storage.abspath(prefix)
    sig = _signature(prefix)
    cached = _VERIFIED.get(key)
    if sig is not None and cached is not None and cached[0] == sig:
        return cached[1]
    metadata, _ = read_verified(prefix)
    if sig is not None and sig == _signature(prefix):
        if len(_VERIFIED) > 10000:
            _VERIFIED.clear()
        _VERIFIED[key] = (sig, metadata)
    return metadata


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Returns True if `checkpoint_prefix` names a complete checkpoint (metadata present,
    checksum matches), as `tf.compat.v1.train.checkpoint_exists`."""
    try:
        _verify(os.fspath(checkpoint_prefix))
    except (OSError, ValueError):
        return False
    return True


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
    _remove(prefix + PENDING_METADATA_SUFFIX)
    _VERIFIED.pop(storage.abspath(prefix), None)


def _unwritable(directory: str, error: OSError) -> OSError:
    """`error` re-raised as TF's error type (a subclass of the same OSError), naming `directory`."""

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
    renamed (tensors first, then the metadata that completes the checkpoint). When
    `prefix` already holds a checkpoint, two renames cannot replace its pair at once: the
    new metadata is first put in place as `<prefix>.json.next`, then the tensors, then the
    metadata, so that a reader (or a restart after a kill) between them finds the new
    tensor file together with the metadata that describes it. The index
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
            overwrite = storage.exists(prefix + METADATA_SUFFIX)
            if overwrite:
                storage.write_bytes(prefix + PENDING_METADATA_SUFFIX, meta_bytes)
            storage.write_bytes(prefix + TENSORS_SUFFIX, data)
            storage.write_bytes(prefix + METADATA_SUFFIX, meta_bytes)
            if overwrite:
                storage.remove(prefix + PENDING_METADATA_SUFFIX)
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
        if os.path.exists(prefix + METADATA_SUFFIX):
            os.replace(tmp_meta, prefix + PENDING_METADATA_SUFFIX)
            fsync_dir(directory)
            os.replace(tmp_tensors, prefix + TENSORS_SUFFIX)
            os.replace(prefix + PENDING_METADATA_SUFFIX, prefix + METADATA_SUFFIX)
        else:
            os.replace(tmp_tensors, prefix + TENSORS_SUFFIX)
            os.replace(tmp_meta, prefix + METADATA_SUFFIX)
    finally:
        _remove(tmp_tensors)
        _remove(tmp_meta)
    fsync_dir(directory)
    _VERIFIED.pop(os.path.abspath(prefix), None)
