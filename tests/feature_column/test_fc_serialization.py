"""Columns are data: get_config/from_config and serialize/deserialize round-trip every column."""

import json

import numpy as np
import pytest
import torch

import torchestimator as tf

fc = tf.feature_column
DenseFeatures = tf.keras.layers.DenseFeatures


def all_columns(vocab_path):
    age = fc.numeric_column("age", shape=1, default_value=30.0, normalizer_fn=fc.ZScoreNormalizer(40.0, 12.0))
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g"], num_oov_buckets=2)
    city = fc.categorical_column_with_vocabulary_file("city", vocab_path, num_oov_buckets=1)
    ident = fc.categorical_column_with_identity("dept", 4, default_value=0)
    bucket = fc.bucketized_column(age, [18.0, 65.0])
    return [
        age, color, city, ident, bucket,
        fc.categorical_column_with_hash_bucket("tag", 9, dtype=tf.int64),
        fc.crossed_column([bucket, "city", color], 31, hash_key=99),
        fc.embedding_column(color, 3, combiner="sqrtn", max_norm=1.5, trainable=False),
        fc.embedding_column(ident, 2, initializer=tf.keras.initializers.Constant(0.5)),
        fc.indicator_column(fc.weighted_categorical_column(ident, "w")),
        *fc.shared_embeddings([color, fc.categorical_column_with_vocabulary_list("c2", ["a", "b", "c", "d"])], 4),
        fc.sequence_numeric_column("s", shape=2, default_value=-1.0),
        fc.sequence_categorical_column_with_identity("sid", 3),
    ]


@pytest.fixture
def vocab_path(tmp_path):
    path = tmp_path / "cities.txt"
    path.write_text("sf\nny\n")
    return str(path)


def test_every_column_round_trips_through_json(vocab_path):
    for column in all_columns(vocab_path):
        config = fc.serialize_feature_column(column)
        text = json.dumps(config)
        back = fc.deserialize_feature_column(json.loads(text))
        assert type(back) is type(column) and back.name == column.name
        assert back.get_config() == column.get_config()
        assert back == column or column.get_config().get("initializer") is not None


def test_config_holds_the_preprocessing_state(vocab_path):
    cols = all_columns(vocab_path)
    assert cols[1].get_config() == {
        "key": "color", "vocabulary_list": ["r", "g"], "dtype": "string", "default_value": -1,
        "num_oov_buckets": 2,
    }
    assert cols[0].get_config()["normalizer_fn"]["config"] == {"mean": 40.0, "std": 12.0}
    assert cols[4].get_config()["boundaries"] == [18.0, 65.0]
    assert cols[6].get_config()["hash_bucket_size"] == 31 and cols[6].get_config()["hash_key"] == 99
    assert cols[2].get_config()["vocabulary_file"] == vocab_path


def test_rebuilt_columns_compute_the_same_outputs(vocab_path):
    cols = [c for c in all_columns(vocab_path) if not c.name.startswith(("s", "tag"))]
    cols = [c for c in cols if isinstance(c, fc.DenseColumn)]
    feats = {
        "age": [20.0, 70.0], "color": np.array(["r", "blue"]), "city": np.array(["ny", "la"]),
        "dept": [[1, 3], [7]], "w": [[0.5, 2.0], [1.0]], "c2": np.array(["d", "a"]),
    }
    layer = DenseFeatures(cols)
    out = layer(feats)
    rebuilt = DenseFeatures(fc.deserialize_feature_columns(json.loads(json.dumps(fc.serialize_feature_columns(cols)))))
    rebuilt(feats)
    rebuilt.load_state_dict(layer.state_dict())
    torch.testing.assert_close(rebuilt(feats), out)


def test_lambda_normalizer_cannot_be_serialized_and_the_error_says_what_to_use():
    col = fc.numeric_column("x", normalizer_fn=lambda x: x / 2)
    with pytest.raises(ValueError, match=r"normalizer_fn .*lambda.* is a Python function.*ZScoreNormalizer"):
        fc.serialize_feature_column(col)
    emb = fc.embedding_column(fc.categorical_column_with_identity("i", 3), 2, initializer=lambda s, dtype=None: torch.zeros(s))
    with pytest.raises(ValueError, match="tf.keras.initializers"):
        emb.get_config()


def test_registered_normalizer_function_round_trips():
    from torchestimator.keras._registry import register_keras_serializable

    @register_keras_serializable(package="fc_test")
    def halve(x):
        return x / 2

    col = fc.numeric_column("x", normalizer_fn=halve)
    back = fc.deserialize_feature_column(fc.serialize_feature_column(col))
    assert back.normalizer_fn is halve


def test_shared_parents_are_deduplicated_by_name():
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g"])
    configs = fc.serialize_feature_columns([fc.indicator_column(color), fc.embedding_column(color, 2)])
    a, b = fc.deserialize_feature_columns(configs)
    assert a.categorical_column is b.categorical_column


def test_deserialization_errors():
    with pytest.raises(ValueError, match="Unknown feature column class 'Nope'"):
        fc.deserialize_feature_column({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="Improper config format"):
        fc.deserialize_feature_column({"config": {}})
    with pytest.raises(ValueError, match="unknown keys"):
        fc.deserialize_feature_column({"class_name": "NumericColumn", "config": {"key": "a", "bogus": 1}})
    with pytest.raises(ValueError, match="is not a FeatureColumn"):
        fc.serialize_feature_column("age")


def test_columns_are_immutable_and_hashable():
    col = fc.numeric_column("a")
    with pytest.raises(AttributeError):
        col.key = "b"
    assert {col, fc.numeric_column("a")} == {col}


_WITHOUT_KERAS = """
import json, sys
import torchestimator.feature_column as fc
from torchestimator.feature_column import serialization
assert serialization._OBJECT_CODEC is None
def norm(x):
    return x
cols = [fc.numeric_column("x", normalizer_fn=fc.ZScoreNormalizer(1.0, 2.0)),
        fc.numeric_column("y", normalizer_fn=norm),
        fc.embedding_column(fc.categorical_column_with_identity("i", 5), 2)]
configs = json.loads(json.dumps(fc.serialize_feature_columns(cols)))
back = fc.deserialize_feature_columns(configs, {"norm": norm})
keras_config = dict(configs[2], config=dict(configs[2]["config"], initializer={
    "class_name": "TruncatedNormal", "config": {"stddev": 0.1}, "registered_name": "TruncatedNormal"}))
try:
    fc.deserialize_feature_column(keras_config)
    error = None
except ValueError as e:
    error = str(e)
keras_loaded = sorted(m for m in sys.modules if m.startswith("torchestimator.keras"))
import torchestimator.keras.saving
rebuilt = fc.deserialize_feature_column(keras_config)
print(json.dumps({"equal": back == cols, "configs": configs[:2], "error": error,
                  "keras_loaded": keras_loaded, "codec": serialization._OBJECT_CODEC is not None,
                  "initializer": type(rebuilt.initializer).__name__}))
"""


def test_columns_serialize_without_keras_and_keras_registers_its_object_codec():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _WITHOUT_KERAS], capture_output=True, text=True,
                         check=True).stdout
    report = json.loads(out.strip().splitlines()[-1])
    assert report["keras_loaded"] == []  # tf.feature_column imports no Keras
    assert report["equal"]
    # the same configs Keras's serialize_keras_object writes
    assert report["configs"][0]["config"]["normalizer_fn"] == {
        "class_name": "ZScoreNormalizer", "config": {"mean": 1.0, "std": 2.0},
        "registered_name": "ZScoreNormalizer"}
    assert report["configs"][1]["config"]["normalizer_fn"] == {
        "module": "builtins", "class_name": "function", "config": "norm", "registered_name": "function"}
    assert "initializer" in report["error"] and "TruncatedNormal" in report["error"]
    assert "Import tf.keras" in report["error"]
    assert report["codec"] and report["initializer"] == "TruncatedNormal"
