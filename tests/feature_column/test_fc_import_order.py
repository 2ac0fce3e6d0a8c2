"""Issue 27: the feature_column modules that meet in a load-time circle import in any order,
and the package objects a column may hold register themselves with `serialization`."""

from __future__ import annotations

import torchestimator as tf
from _harness.import_order import assert_each_imports_first
from torchestimator.feature_column import numeric, serialization
from torchestimator.feature_column._base import is_sequence_categorical


def test_each_module_of_the_base_serialization_circle_imports_first():
    # _base reads serialization's functions at call time and serialization reads _base's
    # classes at call time (module-object imports), so either may load first.
    assert_each_imports_first(("torchestimator.feature_column._base",
                               "torchestimator.feature_column.serialization",
                               "torchestimator.feature_column.sequence",
                               "torchestimator.feature_column.numeric"))


def test_zscore_normalizer_registered_itself_with_serialization():
    assert serialization._PACKAGE_OBJECTS["ZScoreNormalizer"] is numeric.ZScoreNormalizer


def test_is_sequence_categorical_tells_sequence_columns_from_plain_ones():
    seq = tf.feature_column.sequence_categorical_column_with_identity("a", 3)
    plain = tf.feature_column.categorical_column_with_identity("a", 3)
    assert is_sequence_categorical(seq)
    assert not is_sequence_categorical(plain)
    assert not is_sequence_categorical(seq.categorical_column)
    assert not is_sequence_categorical("a")
