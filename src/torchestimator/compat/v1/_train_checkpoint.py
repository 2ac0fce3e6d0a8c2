"""TF1's object-based checkpoint (`tf.compat.v1.train.Checkpoint`, TF's `CheckpointV1`) and
`tf.compat.v1.train.NewCheckpointReader`."""

from __future__ import annotations

import os
from typing import Any

from torchestimator._tf_formats.checkpoint_reader import CheckpointReader
from torchestimator.train import _object_graph as graph_lib
from torchestimator.train._checkpoint import Checkpoint, CheckpointOptions


class CheckpointV1(Checkpoint):
    """Groups trackable objects, saving and restoring them, as TF 1.x's
    `tf.compat.v1.train.Checkpoint(**kwargs)`.

    Every keyword argument names a tracked object, `root` too (TF1's Checkpoint has no root
    object: `Checkpoint(root=model)` saves the model under `root/`). `save` and `write`
    take TF1's `session`: values are read eagerly, so, as TF's when executing eagerly, any
    session (or None) gives the same checkpoint.
    """

    def __init__(self, **kwargs: Any):
        root_given = "root" in kwargs
        root = kwargs.pop("root", None)
        super().__init__(**kwargs)
        if root_given:  # a tracked object named `root`, as any other keyword
            if not graph_lib.is_trackable_object(root):
                raise ValueError(
                    "`Checkpoint` was expecting root to be a trackable object (a Keras model, layer "
                    "or optimizer, a tf.Variable, a torch module or tensor, or an object holding "
                    f"them), got {root!r}."
                )
            self.root = root

    def write(self, file_prefix: Any, session: Any = None,  # type: ignore[override]
              options: CheckpointOptions | None = None) -> str:
        """Writes a checkpoint at `file_prefix` exactly (no numbering, no index update);
        returns the path. `session` is TF1's: any session (or None) gives the same values."""
        del session  # eager values: the session has nothing else to evaluate
        return super().write(file_prefix, options=options)

    def save(self, file_prefix: Any, session: Any = None,  # type: ignore[override]
             options: CheckpointOptions | None = None) -> str:
        """Saves a numbered checkpoint `<file_prefix>-<save_counter>` and names it in the
        folder's `checkpoint` index; returns its path. `session` is TF1's: any session (or
        None) gives the same values."""
        del session  # eager values: the session has nothing else to evaluate
        return super().save(file_prefix, options=options)

    def __repr__(self) -> str:
        return f"<tf.compat.v1.train.Checkpoint tracking {sorted(self._ckpt_children)}>"


def NewCheckpointReader(filepattern: Any) -> CheckpointReader:  # noqa: N802 - TF's name
    """Returns a `CheckpointReader` for the checkpoint with prefix `filepattern` (TF1's
    `tf.compat.v1.train.NewCheckpointReader`; `tf.train.load_checkpoint` also takes a
    directory)."""
    path = os.fspath(filepattern)
    return CheckpointReader(path.decode("utf-8") if isinstance(path, bytes) else path)
