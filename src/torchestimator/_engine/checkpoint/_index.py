"""The index file `<dir>/checkpoint` (TensorFlow's CheckpointState text format) and finding
the checkpoints of a directory: the latest complete one, the numbered ones."""

from __future__ import annotations

import logging
import os
import re
import time
from typing import Any

from google.protobuf import text_encoding

from torchestimator._engine import storage
from torchestimator._engine.checkpoint import _format  # MAX_JSON_BYTES read at call time
from torchestimator._engine.checkpoint._foreign import scan_foreign
from torchestimator._engine.checkpoint._format import (
    _TMP_PREFIX,
    INDEX_FILENAME,
    METADATA_SUFFIX,
    TENSORS_SUFFIX,
    _ensure_directory,
    _remove,
    _unwritable,
    _verify,
    _write_temp,
)
from torchestimator._engine.dir_lock import hold_again_if_recreated
from torchestimator._engine.state_io import (
    fsync_dir,
)

_log = logging.getLogger("torchestimator._engine.checkpoint")


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
        raw = storage.read_at_most(path, _format.MAX_JSON_BYTES)
        if raw is None:
            _log.warning("Checkpoint index %s is larger than %d bytes, so not a checkpoint index; "
                         "scanning the folder instead.", path, _format.MAX_JSON_BYTES)
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
        found += scan_foreign(directory, names, basename, {p for _, p in found})
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
