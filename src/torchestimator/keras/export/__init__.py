"""`tf.keras.export`: `ExportArchive`, to write serving endpoints of Keras models and layers."""

from torchestimator.keras.export._export_archive import ExportArchive

__all__ = ["ExportArchive"]
