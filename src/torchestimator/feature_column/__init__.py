"""`tf.feature_column`: feature columns (the layers that consume them are in Keras).

Columns describe how raw features (numbers, strings, ids; one or several
per example) become model inputs. They are immutable data: `get_config()` /
`serialize_feature_column` give their full preprocessing state. Hashing is
FarmHash Fingerprint64 (`torchestimator._hashing`), bit-identical to TF's.

The layers that consume columns are Keras layers and live in Keras, as in TF
2.15: `tf.keras.layers.DenseFeatures`, `tf.keras.experimental.SequenceFeatures`,
and TF1's `tf.compat.v1.feature_column.input_layer` / `linear_model`
(`torchestimator/keras/feature_column/`). This package imports no Keras.
"""

from __future__ import annotations

from torchestimator.feature_column._base import (
    CategoricalColumn,
    DenseColumn,
    FeatureColumn,
    IdWeightPair,
    SequenceDenseColumn,
    SparseIds,
    TensorSequenceLengthPair,
)
from torchestimator.feature_column._parse_example_spec import make_parse_example_spec
from torchestimator.feature_column._transform import FeatureTransformationCache
from torchestimator.feature_column.categorical import (
    HashedCategoricalColumn,
    IdentityCategoricalColumn,
    VocabularyFileCategoricalColumn,
    VocabularyListCategoricalColumn,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
)
from torchestimator.feature_column.crossed import CrossedColumn, crossed_column
from torchestimator.feature_column.embedding import (
    EmbeddingColumn,
    SharedEmbeddingColumn,
    embedding_column,
    shared_embeddings,
)
from torchestimator.feature_column.indicator import IndicatorColumn, indicator_column
from torchestimator.feature_column.numeric import (
    BucketizedColumn,
    NumericColumn,
    ZScoreNormalizer,
    bucketized_column,
    numeric_column,
)
from torchestimator.feature_column.sequence import (
    SequenceCategoricalColumn,
    SequenceNumericColumn,
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
from torchestimator.feature_column.serialization import (
    deserialize_feature_column,
    deserialize_feature_columns,
    serialize_feature_column,
    serialize_feature_columns,
)
from torchestimator.feature_column.weighted import (
    WeightedCategoricalColumn,
    weighted_categorical_column,
)
from torchestimator.io._parse_spec import (
    FixedLenFeature,
    VarLenFeature,
)

__all__ = [
    "BucketizedColumn", "CategoricalColumn", "CrossedColumn", "DenseColumn", "EmbeddingColumn",
    "FeatureColumn", "FeatureTransformationCache", "FixedLenFeature", "HashedCategoricalColumn",
    "IdWeightPair", "IdentityCategoricalColumn", "IndicatorColumn", "NumericColumn",
    "SequenceCategoricalColumn", "SequenceDenseColumn", "SequenceNumericColumn",
    "SharedEmbeddingColumn", "SparseIds", "TensorSequenceLengthPair", "VarLenFeature",
    "VocabularyFileCategoricalColumn", "VocabularyListCategoricalColumn",
    "WeightedCategoricalColumn", "ZScoreNormalizer", "bucketized_column",
    "categorical_column_with_hash_bucket", "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list",
    "crossed_column", "deserialize_feature_column", "deserialize_feature_columns",
    "embedding_column", "indicator_column", "make_parse_example_spec", "numeric_column",
    "sequence_categorical_column_with_hash_bucket", "sequence_categorical_column_with_identity",
    "sequence_categorical_column_with_vocabulary_file",
    "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column",
    "serialize_feature_column", "serialize_feature_columns", "shared_embeddings",
    "weighted_categorical_column",
]
