"""tf.data over tf.SparseTensor: from_tensor_slices, batch, map, element_spec, checked against
TF 2.15 (tests/fixtures/tf_sparse_flow.json, tools/make_tf_sparse_flow_fixtures.py)."""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

FX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                                 "tf_sparse_flow.json")))["data"]


def st():
    return tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 3]],
                           [1.0, 2.0, 3.0, 4.0, 5.0], [3, 4])


def st3():
    return tf.SparseTensor([[0, 0, 1], [1, 1, 0], [2, 0, 2]], [7, 8, 9], [3, 2, 3])


def enc(x):
    if isinstance(x, tf.SparseTensor):
        return {"indices": x.indices.tolist(), "values": np.asarray(x.values).tolist(),
                "dense_shape": x.dense_shape.tolist()}
    if isinstance(x, dict):
        return {k: enc(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    return {"value": np.asarray(x).tolist()}


def test_slices_are_sparse_tensors_of_one_rank_less():
    ds = tf.data.Dataset.from_tensor_slices(st())
    assert repr(ds.element_spec) == FX["slices_spec"]
    assert isinstance(ds.element_spec, tf.SparseTensorSpec)
    elements = list(ds)
    assert all(isinstance(e, tf.SparseTensor) for e in elements)
    assert enc(elements) == FX["slices"]
    assert ds.cardinality() == 3
    ds3 = tf.data.Dataset.from_tensor_slices(st3())
    assert repr(ds3.element_spec) == FX["slices3_spec"]
    assert enc(list(ds3)) == FX["slices3"]


def test_slices_of_unordered_indices_keep_each_rows_entries():
    # (TF 2.15 raises "indices[1] = [0,0] is out of order" here; any order is accepted)
    sp = tf.SparseTensor([[2, 1], [0, 0], [2, 0]], [3.0, 1.0, 2.0], [3, 2])
    rows = list(tf.data.Dataset.from_tensor_slices(sp))
    assert [tf.sparse.to_dense(r).tolist() for r in rows] == [[1.0, 0.0], [0.0, 0.0],
                                                               [2.0, 3.0]]


def test_batch_gives_a_sparse_batch():
    ds = tf.data.Dataset.from_tensor_slices(st())
    b = ds.batch(2)
    assert repr(b.element_spec) == FX["slices_batch_spec"]
    assert enc(list(b)) == FX["slices_batch"]
    assert repr(ds.batch(2, drop_remainder=True).element_spec) == FX["slices_batch_drop_spec"]
    assert len(list(ds.batch(2, drop_remainder=True))) == 1
    assert enc(list(tf.data.Dataset.from_tensor_slices(st3()).batch(3))) == FX["slices3_batch"]


def test_dict_of_sparse_and_dense():
    d = tf.data.Dataset.from_tensor_slices({"s": st(), "y": tf.constant([1, 2, 3])})
    assert repr(d.element_spec["s"]) == FX["dict_spec"]
    assert d.element_spec["y"].shape == ()
    assert enc(list(d.batch(2))) == FX["dict_batch"]


def test_map_over_sparse_elements():
    ds = tf.data.Dataset.from_tensor_slices(st())
    assert enc(list(ds.map(tf.sparse.to_dense))) == FX["map_dense"]
    assert enc(list(ds.map(lambda s: s.values * 2.0))) == FX["map_values"]
    plus = ds.map(lambda s: tf.SparseTensor(s.indices, s.values + 1.0, s.dense_shape))
    assert isinstance(plus.element_spec, tf.SparseTensorSpec)
    assert enc(list(plus.batch(3))) == FX["map_sparse"]
    assert enc(list(ds.batch(2).map(tf.sparse.to_dense))) == FX["batch_map_dense"]


def test_batch_of_different_dense_shapes_takes_the_largest():
    lens = tf.data.Dataset.from_tensor_slices(tf.constant([2, 4, 1], tf.int64))
    var = lens.map(lambda n: tf.SparseTensor([[0]], [tf.cast(n, tf.float32)], [n]))
    assert enc(list(var.batch(3))) == FX["var_batch"]


def test_string_sparse_slices_and_batches():
    sp = tf.SparseTensor([[0, 1], [1, 0]], np.array(["a", "b"], dtype=object), [2, 2])
    ds = tf.data.Dataset.from_tensor_slices(sp)
    assert ds.element_spec.dtype == tf.string
    batch = next(iter(ds.batch(2)))
    assert batch.indices.tolist() == [[0, 1], [1, 0]] and list(batch.values) == ["a", "b"]


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="same size in their first dimension"):
        tf.data.Dataset.from_tensor_slices({"s": st(), "y": torch.arange(2)})
    mixed = tf.data.Dataset.range(2).map(
        lambda i: tf.SparseTensor([[0]], [1.0], [2]) if int(i) == 0
        else tf.SparseTensor([[0, 0]], [1.0], [2, 2]))
    with pytest.raises(ValueError, match="different shapes in component 0"):
        list(mixed.batch(2))
    with pytest.raises(ValueError, match="different ranks"):
        list(tf.data.Dataset.from_tensor_slices(st()).map(
            lambda s: s if int(s.indices[0, 0]) == 0 else tf.sparse.expand_dims(s, 0)).batch(3))


def test_positional_transformations_keep_sparse_elements():
    ds = tf.data.Dataset.from_tensor_slices(st())
    dense = [r["value"] for r in FX["map_dense"]]

    def rows(d):
        return [tf.sparse.to_dense(e).tolist() for e in d]

    assert rows(ds.repeat(2).take(4)) == dense + dense[:1]
    assert rows(ds.skip(1).prefetch(1)) == dense[1:]
    assert sorted(rows(ds.shuffle(3, seed=1))) == sorted(dense)
    assert rows(ds.filter(lambda s: tf.size(s.values) > 1)) == [dense[0], dense[2]]
    assert [tf.sparse.to_dense(b).tolist() for b in ds.repeat(2).batch(3)] == [dense, dense]
