"""TF1's checkpoint-state functions: the `<dir>/checkpoint` index file as a
`CheckpointState` (`get_checkpoint_state`, `generate_checkpoint_state_proto`,
`update_checkpoint_state`). `tf.train.get_checkpoint_state` is TF2's name too; `tf.compat.v1.train`
re-exports all of them from here (compat.v1._checkpoint_state)."""

from __future__ import annotations

import os
from typing import Any

from torchestimator._engine.checkpoint import _index


class CheckpointState:
    """TF's `CheckpointState` protocol buffer: `model_checkpoint_path` (the latest),
    `all_model_checkpoint_paths` (oldest first, the latest last),
    `all_model_checkpoint_timestamps` and `last_preserved_timestamp`."""

    def __init__(self, model_checkpoint_path: str = "", all_model_checkpoint_paths: Any = (),
                 all_model_checkpoint_timestamps: Any = (), last_preserved_timestamp: float = 0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = float(last_preserved_timestamp or 0.0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CheckpointState) and vars(self) == vars(other)

    def __repr__(self) -> str:
        lines = [f'model_checkpoint_path: "{self.model_checkpoint_path}"']
        lines += [f'all_model_checkpoint_paths: "{p}"' for p in self.all_model_checkpoint_paths]
        return "\n".join(lines) + "\n"


def generate_checkpoint_state_proto(save_dir: str, model_checkpoint_path: str,
                                    all_model_checkpoint_paths: Any = None,
                                    all_model_checkpoint_timestamps: Any = None,
                                    last_preserved_timestamp: Any = None) -> CheckpointState:
    """Generates a checkpoint state proto: `model_checkpoint_path` is appended to
    `all_model_checkpoint_paths` when it is not already its last entry, and, when `save_dir`
    is relative, the relative paths are rewritten relative to it
    (as TF does); ValueError when `all_model_checkpoint_timestamps` is given and does not
    have one timestamp per path."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(paths):
        raise ValueError(
            f"Checkpoint timestamps, if provided, must match checkpoint paths (got paths {paths} and "
            f"timestamps {timestamps})")
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(model_checkpoint_path, paths, timestamps, last_preserved_timestamp or 0.0)


def update_checkpoint_state(save_dir: str, model_checkpoint_path: str, all_model_checkpoint_paths: Any = None,
                            latest_filename: str | None = None, all_model_checkpoint_timestamps: Any = None,
                            last_preserved_timestamp: Any = None) -> None:
    """Updates the content of the 'checkpoint' file (atomically: a temporary file, then
    renamed), so that `latest_checkpoint(save_dir)` names `model_checkpoint_path`."""
    if latest_filename not in (None, _index.INDEX_FILENAME):
        raise ValueError(f"update_checkpoint_state: latest_filename={latest_filename!r} is not supported; "
                         f"the index file is always {_index.INDEX_FILENAME!r} (leave latest_filename None).")
    paths = list(all_model_checkpoint_paths or [])
    timestamps = list(all_model_checkpoint_timestamps or [])
    _index.write_index(save_dir, model_checkpoint_path, paths, timestamps or None,
                       float(last_preserved_timestamp or 0.0))


def get_checkpoint_state(checkpoint_dir: str, latest_filename: str | None = None) -> CheckpointState | None:
    """Returns CheckpointState proto from the "checkpoint" file of `checkpoint_dir`, or None
    if there is none (or it cannot be parsed). Relative paths are joined to
    `checkpoint_dir`, as TF does."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    state = _index._read_index(checkpoint_dir, latest_filename)
    if state is None:
        return None
    return CheckpointState(
        _index._resolve(checkpoint_dir, state["model_checkpoint_path"]),
        [_index._resolve(checkpoint_dir, p) for p in state["all_model_checkpoint_paths"]],
        state["all_model_checkpoint_timestamps"], state["last_preserved_timestamp"])
