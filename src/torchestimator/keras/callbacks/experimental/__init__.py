"""`tf.keras.callbacks.experimental`: `BackupAndRestore` (the same class as
`tf.keras.callbacks.BackupAndRestore`, as TF 2.15 lists it here too)."""

from torchestimator.keras.callbacks.backup_and_restore import BackupAndRestore

__all__ = ["BackupAndRestore"]
