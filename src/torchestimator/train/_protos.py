"""`tf.train.ClusterDef` / `JobDef` and `tf.compat.v1.train.SaverDef`: TF's protocol-buffer
message classes, as TensorBoard (a dependency) ships them. `tf.compat.v1.train` re-exports them
from here (compat.v1._train_protos)."""

from __future__ import annotations

import importlib

#: name -> (module under tensorboard.compat.proto, class name)
TRAIN_PROTOS: dict[str, tuple[str, str]] = {
    "ClusterDef": ("cluster_pb2", "ClusterDef"),
    "JobDef": ("cluster_pb2", "JobDef"),
    "SaverDef": ("saver_pb2", "SaverDef"),
}


def tensorboard_message(module: str, cls: str) -> type:
    """The message class `cls` of `tensorboard.compat.proto.<module>` (TF's protos as
    TensorBoard ships them), loaded on first use; `module` and `cls` come from this package's
    own tables, never from a file."""
    return getattr(importlib.import_module(f"tensorboard.compat.proto.{module}"), cls)


def train_proto(name: str) -> type:
    """The message class `tf.train.<name>` (`ClusterDef`, `JobDef`, `SaverDef`)."""
    return tensorboard_message(*TRAIN_PROTOS[name])
