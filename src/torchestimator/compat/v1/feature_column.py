"""`tf.compat.v1.feature_column`: the TF1 names and argument orders.

The same columns as `tf.feature_column`, plus TF1's functional layers
(`input_layer`, `linear_model`), `shared_embedding_columns`, and TF1's
positional order of `categorical_column_with_vocabulary_file`.
"""

from __future__ import annotations

from typing import Any

from torchestimator import _dtypes
from torchestimator.feature_column import categorical
from torchestimator.feature_column._parse_example_spec import make_parse_example_spec
from torchestimator.feature_column.categorical import (
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_list,
)
from torchestimator.feature_column.crossed import crossed_column
from torchestimator.feature_column.embedding import embedding_column
from torchestimator.feature_column.embedding import shared_embeddings as shared_embedding_columns
from torchestimator.feature_column.indicator import indicator_column
from torchestimator.feature_column.numeric import bucketized_column, numeric_column
from torchestimator.feature_column.sequence import (
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
from torchestimator.feature_column.weighted import weighted_categorical_column
from torchestimator.keras.feature_column._dense_features import input_layer
from torchestimator.keras.feature_column._linear_model import linear_model

__all__ = [
    "bucketized_column", "categorical_column_with_hash_bucket", "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list",
    "crossed_column", "embedding_column", "indicator_column", "input_layer", "linear_model",
    "make_parse_example_spec", "numeric_column", "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_identity", "sequence_categorical_column_with_vocabulary_file",
    "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column",
    "shared_embedding_columns", "weighted_categorical_column",
]


def categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str,
    vocabulary_size: int | None = None,
    num_oov_buckets: int = 0,
    default_value: int | None = None,
    dtype: Any = _dtypes.string,
) -> categorical.VocabularyFileCategoricalColumn:
    """TF1's `categorical_column_with_vocabulary_file` (its positional order); see the v2 function.

    Returns:
        A `VocabularyFileCategoricalColumn`.
    """
    return categorical.categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, dtype, default_value, num_oov_buckets
    )
