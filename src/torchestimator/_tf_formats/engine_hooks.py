"""What `_engine.checkpoint` calls when a checkpoint prefix names a TensorFlow checkpoint: the
same answers as for our format (metadata, `{name: torch.Tensor}`, names and shapes, one value),
read from TF's tensor bundle.

Loading this module registers TensorFlow's format with `_engine.checkpoint` (its registry of
foreign formats, `_engine/checkpoint/_foreign.py`); `_tf_formats/__init__.py` imports it, so it is
registered as soon as any `_tf_formats` module is loaded."""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np
import torch

from torchestimator._engine.checkpoint import register_foreign_format
from torchestimator._tf_formats.tensor_bundle import (
    TensorBundle,
    TFCheckpointError,
    is_tf_checkpoint,
)

FORMAT_NAME = "tensorflow"
__all__ = ["FORMAT_NAME", "is_tf", "list_tf_variables", "load_tf_checkpoint", "load_tf_variable",
           "scan", "tf_metadata"]


def is_tf(prefix: str, ours_suffix: str = ".json") -> bool:
    """True when `prefix` is a TF checkpoint (`PREFIX.index`) and not one of ours (`PREFIX.json`)."""
    prefix = os.fspath(prefix)
    return is_tf_checkpoint(prefix) and not os.path.exists(prefix + ours_suffix)


def _step(bundle: TensorBundle) -> int:
    """The checkpoint's step: its scalar `global_step` tensor, else the `-<step>` of its name."""
    if "global_step" in bundle.entries and bundle.shape("global_step") in ([], [1]):
        value = np.asarray(bundle.get_tensor("global_step")).reshape(())
        if value.dtype.kind not in "iu" and not (value.dtype.kind == "f" and np.isfinite(value)):
            raise TFCheckpointError(
                f"TensorFlow checkpoint {bundle.index_path}: its 'global_step' tensor is "
                f"{bundle.dtype_name('global_step')} {value!r}, not an integer: the file is corrupt."
            )
        return int(value)
    m = re.search(r"-(\d+)$", bundle.prefix)
    return int(m.group(1)) if m else 0


def tf_metadata(prefix: str) -> dict[str, Any]:
    """The metadata of TF checkpoint `prefix` as our checkpoints' (`global_step`, `extra`, and
    `format: "tensorflow"`): its index is read and its data shards must exist; the tensors'
    CRC32Cs are checked when they are read.

    Raises:
      FileNotFoundError / TFCheckpointError (a ValueError): a missing file, a corrupt index.
    """
    with TensorBundle(prefix) as bundle:
        for shard in {entry.shard_id for entry in bundle.entries.values()} | {0}:
            if shard < bundle.num_shards:
                bundle._shard(shard)
        step = _step(bundle)
    return {"format": FORMAT_NAME, "global_step": step, "extra": {}, "timestamp": None}


def _to_torch(value: np.ndarray) -> torch.Tensor:
    if not value.flags.writeable:
        value = value.copy()
    return torch.from_numpy(value)


def load_tf_checkpoint(prefix: str) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Every numeric tensor of TF checkpoint `prefix` as `{name: torch.Tensor}` (bfloat16 kept
    as torch.bfloat16; partitioned variables joined), and its metadata (`tf_metadata`, plus
    `string_tensors`: the names of the string tensors left out). Every CRC32C is checked."""
    tensors: dict[str, torch.Tensor] = {}
    strings: list[str] = []
    with TensorBundle(prefix) as bundle:
        for name, value in bundle.read_all(bfloat16_bits=True):
            if value.dtype == object:
                strings.append(name)
                continue
            tensor = _to_torch(value.view(np.int16) if bundle.dtype_name(name) == "bfloat16" else value)
            tensors[name] = tensor.view(torch.bfloat16) if bundle.dtype_name(name) == "bfloat16" else tensor
        step = _step(bundle)
    metadata = {"format": FORMAT_NAME, "global_step": step, "extra": {}, "timestamp": None,
                "string_tensors": sorted(strings)}
    return tensors, metadata


def list_tf_variables(prefix: str) -> list[tuple[str, list[int]]]:
    """`(name, shape)` of every tensor of TF checkpoint `prefix`, sorted by name."""
    with TensorBundle(prefix) as bundle:
        return [(name, bundle.shape(name)) for name in bundle.names()]


def load_tf_variable(prefix: str, name: str) -> np.ndarray:
    """The value of tensor `name` of TF checkpoint `prefix` (see `TensorBundle.get_tensor`)."""
    with TensorBundle(prefix) as bundle:
        return bundle.get_tensor(name)


_TF_STEP_RE = re.compile(r"^(?P<base>.+)-(?P<step>\d+)\.index$")


def scan(directory: str, names: list[str], basename: str | None, ours: set[str]) -> list[tuple[int, str]]:
    """`(step, prefix)` of the TF checkpoints (`<base>-<step>.index`) among `names` in
    `directory` that are not in `ours` (prefixes of our own checkpoints)."""
    found = []
    for name in names:
        m = _TF_STEP_RE.match(name)
        if m is None or (basename is not None and m.group("base") != basename):
            continue
        prefix = os.path.join(directory, name[: -len(".index")])
        if prefix not in ours:
            found.append((int(m.group("step")), prefix))
    return found


class _TensorFlowFormat:
    """TensorFlow's V2 checkpoint format, as `_engine.checkpoint` reads a foreign format
    (`ForeignCheckpointFormat`)."""

    name = FORMAT_NAME

    def owns(self, prefix: str, ours_suffix: str) -> bool:
        return is_tf(prefix, ours_suffix)

    def metadata(self, prefix: str) -> dict[str, Any]:
        return tf_metadata(prefix)

    def load(self, prefix: str) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
        return load_tf_checkpoint(prefix)

    def list_variables(self, prefix: str) -> list[tuple[str, list[int]]]:
        return list_tf_variables(prefix)

    def load_variable(self, prefix: str, name: str) -> np.ndarray:
        return load_tf_variable(prefix, name)

    def scan(self, directory: str, names: list[str], basename: str | None,
             ours: set[str]) -> list[tuple[int, str]]:
        return scan(directory, names, basename, ours)


register_foreign_format(_TensorFlowFormat())
