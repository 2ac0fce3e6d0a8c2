"""Every kind of feature column through `check_feature_column` (tests/_harness/feature_columns.py):
its dense output through `DenseFeatures` and `input_layer` (or `SequenceFeatures`), the
serialization round trip, and a premade Estimator trained one step, exported with a parsing
serving input receiver and served. `test_every_column_kind_is_checked` keeps the table
complete."""

import inspect

import numpy as np
import pytest

import torchestimator as tf
from _harness import check_feature_column

fc = tf.feature_column

FEATURES = {
    "age": np.array([[20.0], [30.0], [40.0], [50.0], [60.0], [70.0]], np.float32),
    "xy": np.array([[0.1, 1.0], [0.2, 2.0], [0.3, 1.5], [0.4, 0.5], [0.5, 0.1], [0.6, 3.0]], np.float32),
    "color": np.array([["r"], ["g"], ["b"], ["r"], ["g"], ["r"]]),
    "city": np.array([["sf"], ["ny"], ["la"], ["sf"], ["ny"], ["sf"]]),
    "dept": np.array([[0], [1], [2], [3], [1], [2]], np.int64),
    "w": np.array([[1.0], [2.0], [0.5], [1.0], [1.0], [3.0]], np.float32),
    "tag": np.array([["a", "b"], ["b", "c"], ["c", "d"], ["d", "e"], ["e", "f"], ["f", "a"]]),
    "code": np.array([[11], [12], [13], [14], [15], [16]], np.int64),
    "s": np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [1.0, 0.0, 0.5, 0.5]] * 2, np.float32),
    "sid": np.array([[0, 1, 2], [2, 1, -1], [1, -1, -1]] * 2, np.int64),
}


def _columns(vocab_path):
    age = fc.numeric_column("age")
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g"], num_oov_buckets=1)
    dept = fc.categorical_column_with_identity("dept", 4)
    shared = fc.shared_embeddings(
        [color, fc.categorical_column_with_vocabulary_list("city", ["sf", "ny", "la"])], 2)
    return {
        "numeric": (age, {"age"}),
        "numeric-shape-normalizer": (fc.numeric_column("xy", shape=2, normalizer_fn=fc.ZScoreNormalizer(0.5, 2.0)),
                                     {"xy"}),
        "bucketized": (fc.bucketized_column(age, [35.0, 55.0]), {"age"}),
        "vocabulary_list": (color, {"color"}),
        "vocabulary_file": (fc.categorical_column_with_vocabulary_file("city", vocab_path, num_oov_buckets=1),
                            {"city"}),
        "identity": (dept, {"dept"}),
        "hash_bucket": (fc.categorical_column_with_hash_bucket("tag", 5), {"tag"}),
        "hash_bucket-int64": (fc.categorical_column_with_hash_bucket("code", 5, dtype=tf.int64), {"code"}),
        "crossed": (fc.crossed_column([fc.bucketized_column(age, [45.0]), "color"], 7), {"age", "color"}),
        "weighted": (fc.weighted_categorical_column(dept, "w"), {"dept", "w"}),
        "indicator": (fc.indicator_column(color), {"color"}),
        "embedding": (fc.embedding_column(dept, 3, combiner="sqrtn"), {"dept"}),
        "shared_embedding": (shared[0], {"color"}),
        "sequence_numeric": (fc.sequence_numeric_column("s", shape=2), {"s"}),
        "sequence_identity": (fc.sequence_categorical_column_with_identity("sid", 3), {"sid"}),
        "sequence_embedding": (fc.embedding_column(fc.sequence_categorical_column_with_identity("sid", 3), 2),
                               {"sid"}),
    }


KINDS = ["numeric", "numeric-shape-normalizer", "bucketized", "vocabulary_list", "vocabulary_file", "identity",
         "hash_bucket", "hash_bucket-int64", "crossed", "weighted", "indicator", "embedding", "shared_embedding",
         "sequence_numeric", "sequence_identity", "sequence_embedding"]


@pytest.fixture
def vocab_path(tmp_path):
    path = tmp_path / "cities.txt"
    path.write_text("sf\nny\n")
    return str(path)


@pytest.mark.parametrize("kind", KINDS)
def test_check_feature_column(kind, vocab_path, tmp_path):
    column, keys = _columns(vocab_path)[kind]
    check_feature_column(column, {key: FEATURES[key] for key in keys}, tmp_dir=tmp_path)


def test_every_column_kind_is_checked(vocab_path):
    columns = _columns(vocab_path)
    assert sorted(columns) == sorted(KINDS)
    checked = {type(column) for column, _ in columns.values()}
    kinds = {obj for name in dir(fc) if inspect.isclass(obj := getattr(fc, name))
             and issubclass(obj, fc.FeatureColumn) and not inspect.isabstract(obj)
             and obj not in (fc.FeatureColumn, fc.DenseColumn, fc.CategoricalColumn, fc.SequenceDenseColumn)}
    missing = sorted(c.__name__ for c in kinds - checked)
    assert not missing, f"feature column classes without a check_feature_column case: {missing}"
