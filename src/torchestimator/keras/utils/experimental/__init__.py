"""`tf.keras.utils.experimental`: `DatasetCreator`."""

from torchestimator.keras.utils._dataset_creator import DatasetCreator

__all__ = ["DatasetCreator"]
