"""`tf.lookup`: tables mapping keys to values (`StaticHashTable`, `StaticVocabularyTable`) and
their initializers (`KeyValueTensorInitializer`, `TextFileInitializer`, `TextFileIndex`);
`tf.lookup.experimental` has the mutable tables."""

from torchestimator.lookup import experimental
from torchestimator.lookup._tables import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "TextFileIndex",
           "TextFileInitializer", "experimental"]
