"""The project's one on-disk state format: tensors in safetensors, everything else in JSON,
written atomically (temporary name, fsync, rename). Loading never unpickles.

`flatten_state` splits a nested state (a torch `state_dict`, an optimizer's
state dict, RNG states) into a flat `{key: tensor}` dict and a JSON-able
skeleton in which each tensor is replaced by `{"__tensor__": key}`;
`unflatten_state` puts them back together.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from safetensors.torch import load as load_safetensors_bytes
from safetensors.torch import save as save_safetensors_bytes

from torchestimator._engine import storage
from torchestimator._engine.dir_lock import hold_again_if_recreated


def flatten_state(state: Any, prefix: str = "") -> tuple[dict[str, torch.Tensor], Any]:
    """Returns `(tensors, skeleton)`: tensors keyed by their path, and `state` with each tensor
    replaced by a `{"__tensor__": path}` record (tuples become lists, int dict keys are tagged)."""
    tensors: dict[str, torch.Tensor] = {}

    def walk(value: Any, path: str) -> Any:
        if isinstance(value, torch.Tensor):
            tensors[path] = value.detach().cpu().contiguous().clone()
            return {"__tensor__": path}
        if isinstance(value, np.ndarray):
            tensors[path] = torch.from_numpy(np.ascontiguousarray(value)).clone()
            return {"__tensor__": path, "numpy": True}
        if isinstance(value, dict):
            out = {}
            int_keys = []
            for k, v in value.items():
                key = str(k)
                if isinstance(k, int):
                    int_keys.append(key)
                out[key] = walk(v, f"{path}.{key}" if path else key)
            if int_keys:
                out["__int_keys__"] = int_keys
            return out
        if isinstance(value, (list, tuple)):
            return [walk(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(value)]
        if isinstance(value, (np.integer, np.floating)):
            return value.item()
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise TypeError(f"Cannot store a value of type {type(value).__name__} at {path!r} in a checkpoint")

    skeleton = walk(state, prefix)
    return tensors, skeleton


def unflatten_state(tensors: dict[str, torch.Tensor], skeleton: Any) -> Any:
    """Rebuilds the nested state written by `flatten_state`."""
    if isinstance(skeleton, dict):
        if "__tensor__" in skeleton:
            t = tensors[skeleton["__tensor__"]]
            return t.numpy() if skeleton.get("numpy") else t
        int_keys = set(skeleton.get("__int_keys__", []))
        return {
            (int(k) if k in int_keys else k): unflatten_state(tensors, v)
            for k, v in skeleton.items() if k != "__int_keys__"
        }
    if isinstance(skeleton, list):
        return [unflatten_state(tensors, v) for v in skeleton]
    return skeleton


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Writes `data` to `path` so that a crash leaves either the old file or the new one:
    a temporary file in the same folder, fsynced, then renamed over `path`.

    The temporary name (`.<name>.tmp-<pid>@<host>-<random>`) records the writing process, so
    the temporary files of a process killed mid-save are removed by the next successful save
    of the same file (`remove_stale_temps`). An error (disk full, file too large, read-only
    or missing folder) is an OSError of the same kind whose message names `path` and the cause;
    no temporary file is left behind. A folder deleted while this process held its write lock
    (`dir_lock`) is re-created with its lock file, locked again. A URL of an object store
    (`s3://...`, `memory://...`) is written in one upload, which readers see whole or not at all."""
    path = os.fspath(path)
    if "://" in path:
        path = storage.local(path)
        if storage.is_url(path):  # an object store: one upload, which appears whole
            storage.write_bytes(path, data)
            return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
        hold_again_if_recreated(directory)  # the folder was deleted while its writer held its lock
        fd, tmp = tempfile.mkstemp(prefix=f"{_temp_stem(os.path.basename(path))}{os.getpid()}@{_HOST}-",
                                   dir=directory)
    except OSError as e:
        raise _naming(e, path) from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise _naming(e, path) from e
        raise
    fsync_dir(directory)
    remove_stale_temps(directory, os.path.basename(path))


_HOST = re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname())[:64] or "localhost"
_MAX_STEM = 100  # file names stay under the usual 255-byte limit
_TEMP_RE = re.compile(r"^\.(?P<name>.*)\.tmp-(?P<pid>\d+)@(?P<host>[A-Za-z0-9_.-]+)-[A-Za-z0-9_]+$", re.S)


def _temp_stem(name: str) -> str:
    return f".{name[:_MAX_STEM]}.tmp-"


def _naming(error: OSError, path: str) -> OSError:
    """`error` (the same OSError subclass, by errno) with a message naming `path`."""
    reason = error.strerror or str(error)
    if error.errno is None:
        return OSError(f"Cannot save {path!r}: {reason}")
    return OSError(error.errno, f"Cannot save {path!r}: {reason}")


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, as another user
        return True
    return True


def remove_stale_temps(directory: str, target: str | Callable[[str], bool] | None = None) -> list[str]:
    """Removes the temporary files `atomic_write_bytes` left in `directory` when the process
    writing them died (SIGKILL, power loss): those written on this host by a process that no
    longer exists. `target` restricts it to the temporary files of that file name, or of the
    names it accepts (a callable); None removes every stale one. Returns the removed paths."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    removed = []
    for name in names:
        m = _TEMP_RE.match(name)
        if m is None or m.group("host") != _HOST:
            continue
        if isinstance(target, str) and m.group("name") != target[:_MAX_STEM]:
            continue
        if callable(target) and not target(m.group("name")):
            continue
        if int(m.group("pid")) == os.getpid() or _process_exists(int(m.group("pid"))):
            continue
        path = os.path.join(directory, name)
        try:
            os.remove(path)
        except OSError:
            continue
        removed.append(path)
    return removed


def fsync_dir(directory: str) -> None:
    """Flushes a folder's entries (so a rename inside it survives a power loss), where supported."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def tensors_to_bytes(tensors: dict[str, torch.Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """Serializes tensors to safetensors bytes (tensors made contiguous and unshared)."""
    clean = {k: v.detach().cpu().contiguous().clone() for k, v in tensors.items()}
    return save_safetensors_bytes(clean, metadata=metadata)


def tensors_from_bytes(data: bytes, source: str = "<bytes>") -> dict[str, torch.Tensor]:
    """Reads safetensors bytes; raises ValueError naming `source` if they are not valid."""
    try:
        return load_safetensors_bytes(data)
    except Exception as e:
        raise ValueError(f"{source} is not a valid safetensors file (truncated or corrupt): {e}") from e


def safetensors_metadata(data: bytes) -> dict[str, str]:
    """The `__metadata__` string map of safetensors bytes ({} when absent or unreadable)."""
    try:
        size = int.from_bytes(data[:8], "little")
        header = json.loads(data[8:8 + size]) if 0 < size <= len(data) - 8 else {}
    except ValueError:
        return {}
    metadata = header.get("__metadata__") if isinstance(header, dict) else None
    return metadata if isinstance(metadata, dict) else {}


def tensors_digest(tensors: dict[str, torch.Tensor]) -> str:
    """SHA-256 over the names, dtypes, shapes and bytes of `tensors` (in name order): recorded in
    a file's metadata, it detects damage a safetensors reader cannot (a flipped bit in a value)."""
    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].detach().cpu().contiguous()
        digest.update(f"{name}\0{tensor.dtype}\0{tuple(tensor.shape)}\0".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def sha256(data: bytes) -> str:
    """Returns the hex SHA-256 of `data` (checkpoint checksums)."""
    return hashlib.sha256(data).hexdigest()


def dumps_json(value: Any) -> bytes:
    """JSON bytes of `value` (sorted keys, for stable files)."""
    return json.dumps(value, indent=1, sort_keys=True).encode("utf-8")
