"""TF1 sparse aliases (compat/v1/_sparse_ops.SPARSE_NAMES) against TF 2.15 fixtures."""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.compat.v1._sparse_ops import SPARSE_NAMES

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "tf_sparse_fixtures.json")))
A = tf.sparse.reorder(tf.sparse.SparseTensor([[1, 2], [0, 1], [2, 0], [0, 3]],
                                             [3.0, 1.0, 5.0, -2.0], [3, 4]))


def test_reduce_sum_old_names():
    got = SPARSE_NAMES["sparse_reduce_sum"](A, reduction_axes=0, keep_dims=True)
    np.testing.assert_allclose(got.numpy(), FIX["reduce_sum_0_keep"]["value"])
    sp = SPARSE_NAMES["sparse_reduce_sum_sparse"](A, 1)
    assert sp.indices.tolist() == FIX["reduce_sum_sparse"]["indices"]
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_axes' and 'axis'"):
        SPARSE_NAMES["sparse_reduce_sum"](A, axis=0, reduction_axes=0)


def test_split_and_concat_old_names():
    parts = SPARSE_NAMES["sparse_split"](sp_input=A, num_split=3, split_dim=1)
    assert [p.dense_shape.tolist() for p in parts] == [w["dense_shape"] for w in FIX["split"]]
    with pytest.raises(ValueError, match="Keyword arguments are required"):
        SPARSE_NAMES["sparse_split"](A, 3, 1)
    c = SPARSE_NAMES["sparse_concat"](None, [A, A], concat_dim=0)
    assert c.dense_shape.tolist() == [6, 4]


def test_sparse_to_dense_and_value():
    d = SPARSE_NAMES["sparse_to_dense"]([[0, 1], [2, 0]], [3, 2], [5.0, 6.0], default_value=-1.0)
    assert d.tolist() == [[-1.0, 5.0], [-1.0, -1.0], [6.0, -1.0]]
    d1 = SPARSE_NAMES["sparse_to_dense"]([0, 2], [4], 1)
    assert torch.equal(d1, torch.tensor([1, 0, 1, 0]))
    v = SPARSE_NAMES["SparseTensorValue"]([[0]], [1], [2])
    assert v.dense_shape == [2]
