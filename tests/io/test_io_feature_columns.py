"""Feature columns take parse_example's output: SparseTensors of VarLenFeatures, dense
FixedLenFeatures, and make_parse_example_spec's spec round-trips through Examples."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.io._from_values import _example_from_values

fc = tf.feature_column
ROWS = [
    {"kind": ["a", "b"], "x": [1.0, 2.0], "ids": [3, 1], "w": [0.5, 2.0]},
    {"kind": ["c"], "x": [3.0, 4.0], "ids": [2], "w": [1.5]},
    {"kind": ["b", "b", "a"], "x": [5.0, 6.0], "ids": [0, 1, 2], "w": [1.0, 1.0, 3.0]},
    {"x": [7.0, 8.0]},  # no kind, ids or weights
]


def _serialized():
    return [_example_from_values(r).SerializeToString() for r in ROWS]


def _ragged(key):
    return [r.get(key, []) for r in ROWS]


def test_dense_features_on_parsed_examples_equal_ragged_list_input():
    torch.manual_seed(0)
    kind = fc.categorical_column_with_vocabulary_list("kind", ["a", "b", "c"])
    ids = fc.categorical_column_with_identity("ids", 4)
    columns = [fc.embedding_column(kind, 3, combiner="mean"), fc.indicator_column(kind),
               fc.indicator_column(ids), fc.numeric_column("x", shape=(2,)),
               fc.embedding_column(fc.weighted_categorical_column(ids, "w"), 2, combiner="sum")]
    spec = fc.make_parse_example_spec(columns)
    assert isinstance(spec["kind"], tf.io.VarLenFeature)
    parsed = tf.io.parse_example(_serialized(), spec)
    assert isinstance(parsed["kind"], tf.SparseTensor)
    layer = tf.keras.layers.DenseFeatures(columns)
    from_examples = layer(parsed)
    from_lists = layer({"kind": _ragged("kind"), "ids": _ragged("ids"), "w": _ragged("w"),
                        "x": np.array([r["x"] for r in ROWS], np.float32)})
    torch.testing.assert_close(from_examples, from_lists, rtol=0, atol=0)
    only_kind = tf.keras.layers.DenseFeatures([fc.indicator_column(kind)])(parsed)
    assert only_kind.tolist() == [[1, 1, 0], [0, 0, 1], [1, 2, 0], [0, 0, 0]]


def test_numeric_column_refuses_a_sparse_tensor_with_a_clear_error():
    parsed = tf.io.parse_example(_serialized(), {"x": tf.io.VarLenFeature(tf.float32)})
    layer = tf.keras.layers.DenseFeatures([fc.numeric_column("x", shape=(2,))])
    with pytest.raises(ValueError, match="numeric_column 'x'.*SparseTensor.*FixedLenFeature"):
        layer(parsed)


def test_sequence_columns_take_var_len_sparse_tensors():
    kind = fc.sequence_categorical_column_with_vocabulary_list("kind", ["a", "b", "c"])
    columns = [fc.indicator_column(kind)]
    parsed = tf.io.parse_example(_serialized(), {"kind": tf.io.VarLenFeature(tf.string)})
    layer = tf.keras.experimental.SequenceFeatures(columns)
    out_sparse, len_sparse = layer(parsed)
    out_lists, len_lists = layer({"kind": _ragged("kind")})
    torch.testing.assert_close(out_sparse, out_lists)
    assert len_sparse.tolist() == len_lists.tolist() == [2, 1, 3, 0]
