"""`tf.train.latest_checkpoint`: the checkpoint a folder's `checkpoint` index names, which may
be a Keras weights file (`model.save_weights`, `ModelCheckpoint(save_weights_only=True)`)."""

from __future__ import annotations

import os

from torchestimator._engine import checkpoint as _checkpoint


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """Finds the filename of latest saved checkpoint file.

    Reads `<checkpoint_dir>/checkpoint` (the index TF's `CheckpointState` format). When it
    names a weights file written by Keras' `Model.save_weights` (TF 2.15 records those there,
    so `model.load_weights(tf.train.latest_checkpoint(dir))` restores them), returns that
    file's path; otherwise returns what the Estimator's and `tf.train.Checkpoint`'s checkpoint
    lookup finds (a checkpoint prefix, with fallback to the newest complete checkpoint).

    Args:
      checkpoint_dir: Directory where the variables were saved.
      latest_filename: Optional name for the protocol buffer file that contains the list of
        most recent checkpoint filenames. See the corresponding argument to `v1.train.Saver.save`.

    Returns:
      The full path to the latest checkpoint or `None` if no checkpoint was found.
    """
    directory = os.fspath(checkpoint_dir)
    if "://" not in directory:
        state = _checkpoint._read_index(directory, latest_filename)
        named = state.get("model_checkpoint_path") if state else None
        if named:
            path = _checkpoint._resolve(directory, named)
            # A checkpoint is a prefix (`<prefix>.json`/`.safetensors`, TF's `<prefix>.index`);
            # only a Keras weights file is a file under the very name the index gives.
            if os.path.isfile(path):
                return path
    return _checkpoint.latest_checkpoint(directory, latest_filename)
