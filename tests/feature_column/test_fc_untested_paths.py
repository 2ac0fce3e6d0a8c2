"""Feature-column paths no other test runs: `parents` of every column kind (TF's contract:
`numeric_column('f1').parents == ['f1']`, `crossed_column([a, 'f2']).parents == [a, 'f2']`)
and `parse_example_spec` of a sequence categorical column."""

from __future__ import annotations

import torchestimator as tf

fc = tf.feature_column


def test_raw_feature_columns_name_their_key():
    assert fc.numeric_column("f1").parents == ["f1"]
    assert fc.categorical_column_with_identity("c", 3).parents == ["c"]
    assert fc.categorical_column_with_vocabulary_list("v", ["a"]).parents == ["v"]
    assert fc.categorical_column_with_hash_bucket("h", 5).parents == ["h"]
    assert fc.sequence_numeric_column("s").parents == ["s"]


def test_derived_columns_name_what_they_are_built_from():
    num = fc.numeric_column("n")
    cat = fc.categorical_column_with_identity("c", 4)
    assert fc.bucketized_column(num, [0.0, 1.0]).parents == [num]
    assert fc.indicator_column(cat).parents == [cat]
    assert fc.embedding_column(cat, 2).parents == [cat]
    assert fc.weighted_categorical_column(cat, "w").parents == [cat, "w"]
    assert fc.crossed_column([cat, "f2"], 10).parents == [cat, "f2"]
    other = fc.categorical_column_with_identity("d", 4)
    shared = fc.shared_embeddings([cat, other], 2)
    assert [s.parents for s in shared] == [[cat], [other]]
    seq = fc.sequence_categorical_column_with_identity("s", 4)
    assert [type(p).__name__ for p in seq.parents] == ["IdentityCategoricalColumn"]
    assert list(seq.parse_example_spec) == ["s"]
    assert isinstance(seq.parse_example_spec["s"], tf.io.VarLenFeature)
    assert seq.parse_example_spec["s"].dtype == tf.int64
