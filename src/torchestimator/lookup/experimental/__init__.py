"""`tf.lookup.experimental`: `MutableHashTable` and `DenseHashTable`."""

from torchestimator.lookup._tables import DenseHashTable, MutableHashTable

__all__ = ["DenseHashTable", "MutableHashTable"]
