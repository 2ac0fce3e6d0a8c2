"""`tf.train.ClusterDef` / `JobDef` and `tf.compat.v1.train.SaverDef`: TF's protocol-buffer
message classes. They are part of `tf.train` and live there (`train._protos`); this module
re-exports them for `tf.compat.v1.train`."""

from torchestimator.train._protos import TRAIN_PROTOS, train_proto

__all__ = ["TRAIN_PROTOS", "train_proto"]
