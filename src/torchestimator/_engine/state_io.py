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
import tempfile
from typing import Any

import numpy as np
import torch
from safetensors.torch import load as load_safetensors_bytes
from safetensors.torch import save as save_safetensors_bytes


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
    a temporary file in the same folder, fsynced, then renamed over `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    fsync_dir(directory)


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


def sha256(data: bytes) -> str:
    """Returns the hex SHA-256 of `data` (checkpoint checksums)."""
    return hashlib.sha256(data).hexdigest()


def dumps_json(value: Any) -> bytes:
    """JSON bytes of `value` (sorted keys, for stable files)."""
    return json.dumps(value, indent=1, sort_keys=True).encode("utf-8")
