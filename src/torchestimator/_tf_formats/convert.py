"""`convert-checkpoint`: a TensorFlow model_dir (or one checkpoint) written once in our checkpoint
format, for teams that want to drop the TF files. The tensors keep TF's names; the metadata
records where they came from (`extra["source_format"] == "tensorflow"`), so an Estimator
restoring the converted checkpoint maps TF's optimizer state as it does from TF's files."""

from __future__ import annotations

import os
import re
from typing import Any

from torchestimator._engine import checkpoint as ckpt
from torchestimator._tf_formats import engine_hooks

SOURCE_FORMAT = "tensorflow"
__all__ = ["SOURCE_FORMAT", "convert_checkpoint"]


def _tf_prefixes(source: str) -> list[str]:
    if not os.path.isdir(source):
        if not engine_hooks.is_tf(source):
            raise FileNotFoundError(
                f"convert_checkpoint: {source!r} is neither a model_dir nor a TensorFlow checkpoint "
                f"prefix ({source}.index does not exist)."
            )
        return [source]
    state = ckpt._read_index(source)
    listed = [ckpt._resolve(source, p) for p in state["all_model_checkpoint_paths"]] if state else []
    prefixes = [p for p in listed if engine_hooks.is_tf(p)]
    if not prefixes:
        latest = ckpt.latest_checkpoint(source)
        if latest is None or not engine_hooks.is_tf(latest):
            raise FileNotFoundError(
                f"convert_checkpoint: model_dir {source!r} holds no TensorFlow checkpoint (no "
                "'checkpoint' index naming a '<prefix>.index' file)."
            )
        prefixes = [latest]
    return prefixes


def convert_checkpoint(source: str, output_dir: str) -> list[str]:
    """Writes the TensorFlow checkpoints of `source` (a model_dir: every checkpoint its
    `checkpoint` index lists; or one checkpoint prefix) into `output_dir` in torchestimator's
    format, under the same names (`model.ckpt-<step>`), and an index naming the latest.
    String tensors (which our format does not hold) are left out and listed in the metadata.
    Every tensor's CRC32C is checked on the way.

    Returns:
      The prefixes written, oldest first.

    Raises:
      FileNotFoundError: `source` holds no TensorFlow checkpoint.
      ValueError: a TF checkpoint is corrupt (the message names the file and tensor), or
        `output_dir` already holds a checkpoint of the same name.
    """

    source, output_dir = os.fspath(source), os.fspath(output_dir)
    prefixes = _tf_prefixes(source)
    written: list[str] = []
    for prefix in prefixes:
        tensors, metadata = engine_hooks.load_tf_checkpoint(prefix)
        target = os.path.join(output_dir, os.path.basename(prefix))
        if os.path.exists(target + ckpt.METADATA_SUFFIX) or os.path.exists(target + ckpt.TENSORS_SUFFIX):
            raise ValueError(
                f"convert_checkpoint: {target} already exists in output_dir {output_dir!r}; "
                "convert into an empty folder."
            )
        extra: dict[str, Any] = {
            "source_format": SOURCE_FORMAT,
            "converted_from": os.path.abspath(prefix),
            "string_tensors_left_out": metadata["string_tensors"],
        }
        ckpt.write_checkpoint(target, tensors, metadata["global_step"], extra)
        written.append(target)
    written.sort(key=lambda p: int(m.group(1)) if (m := re.search(r"-(\d+)$", p)) else -1)
    ckpt.write_index(output_dir, written[-1], written)
    return written
