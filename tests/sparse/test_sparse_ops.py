"""tf.sparse ops against TF 2.15 values (tests/sparse/tf_sparse_fixtures.json,
made by tools/make_tf_sparse_fixtures.py)."""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "tf_sparse_fixtures.json")))
A = tf.sparse.SparseTensor([[1, 2], [0, 1], [2, 0], [0, 3]], [3.0, 1.0, 5.0, -2.0], [3, 4])
B = tf.sparse.SparseTensor([[0, 1], [1, 1], [2, 0]], [4.0, 2.0, -5.0], [3, 4])
A3 = tf.sparse.SparseTensor([[0, 0, 1], [0, 2, 0], [1, 1, 1]], [1.0, 2.0, 3.0], [2, 3, 2])
o = tf.sparse.reorder
DATA = torch.tensor([[1.0, 2], [3, 4], [5, 6]])


def check(got, want):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
    elif "value" in want:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want["value"]), rtol=1e-6)
    else:
        assert isinstance(got, tf.sparse.SparseTensor)
        assert got.indices.tolist() == want["indices"]
        np.testing.assert_allclose(np.asarray(got.values), want["values"], rtol=1e-6)
        assert got.dense_shape.tolist() == want["dense_shape"]


CASES = {
    "reorder": lambda: o(A),
    "retain": lambda: tf.sparse.retain(o(A), [True, False, True, False]),
    "reset_shape": lambda: tf.sparse.reset_shape(o(A)),
    "reset_shape_new": lambda: tf.sparse.reset_shape(o(A), [5, 6]),
    "expand_dims_0": lambda: tf.sparse.expand_dims(o(A), 0),
    "expand_dims_m1": lambda: tf.sparse.expand_dims(o(A), -1),
    "eye": lambda: tf.sparse.eye(3, 4),
    "fill_empty_rows": lambda: tf.sparse.fill_empty_rows(
        tf.sparse.SparseTensor([[1, 0], [3, 2]], [7.0, 8.0], [5, 3]), -1.0),
    "reduce_sum": lambda: tf.sparse.reduce_sum(o(A)),
    "reduce_sum_1": lambda: tf.sparse.reduce_sum(o(A), 1),
    "reduce_sum_0_keep": lambda: tf.sparse.reduce_sum(o(A), 0, keepdims=True),
    "reduce_sum_sparse": lambda: tf.sparse.reduce_sum(o(A), 1, output_is_sparse=True),
    "reduce_max_1": lambda: tf.sparse.reduce_max(o(A), 1),
    "reduce_max_3d": lambda: tf.sparse.reduce_max(A3, [0, 2]),
    "add": lambda: tf.sparse.add(o(A), o(B)),
    "add_thresh": lambda: tf.sparse.add(o(A), o(B), threshold=2.5),
    "add_dense": lambda: tf.sparse.add(o(A), torch.ones(3, 4)),
    "maximum": lambda: tf.sparse.maximum(o(A), o(B)),
    "minimum": lambda: tf.sparse.minimum(o(A), o(B)),
    "transpose": lambda: tf.sparse.transpose(o(A)),
    "transpose_3d": lambda: tf.sparse.transpose(A3, [1, 2, 0]),
    "reshape": lambda: tf.sparse.reshape(o(A), [2, -1]),
    "reshape_3d": lambda: tf.sparse.reshape(A3, [-1, 2]),
    "slice": lambda: tf.sparse.slice(o(A), [0, 1], [2, 5]),
    "concat_1": lambda: tf.sparse.concat(1, [o(A), o(B)]),
    "concat_0": lambda: tf.sparse.concat(0, [o(A), o(B)]),
    "concat_expand": lambda: tf.sparse.concat(
        1, [o(A), tf.sparse.SparseTensor([[4, 0]], [9.0], [5, 2])], expand_nonconcat_dims=True),
    "split": lambda: tf.sparse.split(sp_input=o(A), num_split=3, axis=1),
    "matmul": lambda: tf.sparse.sparse_dense_matmul(o(A), torch.arange(8.0).reshape(4, 2)),
    "matmul_adj": lambda: tf.sparse.sparse_dense_matmul(
        o(A), torch.arange(6.0).reshape(3, 2), adjoint_a=True),
    "softmax": lambda: tf.sparse.softmax(o(A)),
    "to_indicator": lambda: tf.sparse.to_indicator(
        tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [3, 1, 0], [3, 2]), 4),
    "segment_sum": lambda: tf.sparse.segment_sum(DATA, [0, 1, 2], [0, 0, 1]),
    "segment_mean": lambda: tf.sparse.segment_mean(DATA, [0, 2, 1], [0, 0, 2]),
    "segment_sqrt_n": lambda: tf.sparse.segment_sqrt_n(DATA, [0, 1, 2], [0, 0, 0],
                                                       num_segments=2),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_matches_tf(key):
    check(CASES[key](), FIX[key])


def test_errors_match_tf_messages():
    with pytest.raises(ValueError, match=r"Requested new_shape should have dimension sizes >= "
                       r"sp_input.shape.  Found new_shape \(\[3, 4\]\), sp_input.shape \(\[2, 2\]\)"):
        tf.sparse.reset_shape(o(A), [2, 2])
    with pytest.raises(ValueError, match="Input shapes must match: expected 3 for dimension 0 "
                       "but got 2 at position 1"):
        tf.sparse.concat(1, [o(A), tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])])
    with pytest.raises(ValueError, match="Cannot multiply A and B because inner dimension does "
                       "not match: 4 vs. 3.  Did you forget a transpose?"):
        tf.sparse.sparse_dense_matmul(o(A), torch.ones(3, 2))
    with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
        tf.sparse.add(torch.ones(2), torch.ones(2))


def test_string_values_reorder_concat():
    s = tf.sparse.SparseTensor([[1, 0], [0, 0]], np.array([b"b", b"a"], dtype=object), [2, 1])
    r = tf.sparse.concat(1, [s, s])
    assert r.indices.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert list(r.values) == [b"a", b"a", b"b", b"b"]
    assert tf.sparse.to_dense(r).tolist() == [[b"a", b"a"], [b"b", b"b"]]
