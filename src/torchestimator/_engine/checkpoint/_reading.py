"""Reading checkpoints: tensors and metadata, `list_variables`, `load_variable` (a prefix,
or a directory meaning its latest checkpoint), from local paths and stores."""

from __future__ import annotations

import difflib
import logging
from typing import Any

import numpy as np
import torch
from safetensors import safe_open

from torchestimator._engine import storage
from torchestimator._engine.checkpoint._foreign import foreign_format
from torchestimator._engine.checkpoint._format import (
    METADATA_SUFFIX,
    TENSORS_SUFFIX,
    CorruptCheckpointError,
    _read_metadata,
    _step_mismatch,
    read_verified,
)
from torchestimator._engine.checkpoint._index import _resolve_prefix
from torchestimator._engine.state_io import (
    tensors_from_bytes,
)

_log = logging.getLogger("torchestimator._engine.checkpoint")


# ---------------------------------------------------------------------------
# Reading checkpoints
# ---------------------------------------------------------------------------


def checkpoint_metadata(prefix: str) -> dict[str, Any]:
    """The metadata of checkpoint `prefix` (`global_step`, `extra`, ...) without reading its
    tensors: checked as `load_checkpoint` checks it, less the hash of the tensor bytes."""
    foreign = foreign_format(prefix, METADATA_SUFFIX)
    if foreign is not None:
        return foreign.metadata(prefix)
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
    foreign = foreign_format(prefix, METADATA_SUFFIX)  # TensorFlow's (metadata["format"])
    if foreign is not None:
        return foreign.load(prefix)
    metadata, data = read_verified(prefix)
    tensors_path = prefix + TENSORS_SUFFIX
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


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """Lists the tensors in a checkpoint, as `tf.train.list_variables`.

    Returns:
      A list of `(name, shape)` tuples sorted by name; shapes are lists of ints.
    """
    prefix = _resolve_prefix(ckpt_dir_or_file)
    foreign = foreign_format(prefix, METADATA_SUFFIX)
    if foreign is not None:
        return foreign.list_variables(prefix)
    _read_metadata(prefix)
    path = prefix + TENSORS_SUFFIX
    if storage.is_url(path):
        return sorted((name, list(t.shape)) for name, t in _remote_tensors(path).items())
    try:
        with safe_open(path, framework="pt") as f:
            return sorted((name, list(f.get_slice(name).get_shape())) for name in f.keys())
    except Exception as e:  # safetensors raises its own error types
        raise CorruptCheckpointError(f"Checkpoint tensor file {path} cannot be read: {e}") from e


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """Returns the value of tensor `name` in a checkpoint as a numpy array, as
    `tf.train.load_variable` (bfloat16 values come back as float32).

    Raises:
      KeyError: `name` is not in the checkpoint (the message lists similar names).
    """
    prefix = _resolve_prefix(ckpt_dir_or_file)
    foreign = foreign_format(prefix, METADATA_SUFFIX)
    if foreign is not None:
        return foreign.load_variable(prefix, name)
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
