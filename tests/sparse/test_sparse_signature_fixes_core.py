"""TF 2.15's signatures of tf.sparse.concat and the sparse segment reductions (values printed
by TF 2.15.1)."""

from __future__ import annotations

import numpy as np
import torch

import torchestimator as tf


def parts(sp):
    return sp.indices.tolist(), list(np.asarray(sp.values).tolist()), sp.dense_shape.tolist()


def test_concat_third_positional_is_expand_nonconcat_dims():
    a = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
    b = tf.SparseTensor([[0, 0], [2, 0]], [3.0, 4.0], [3, 1])
    want = ([[0, 0], [0, 2], [1, 1], [2, 2]], [1.0, 3.0, 2.0, 4.0], [3, 3])
    assert parts(tf.sparse.concat(1, [a, b], True)) == want
    assert parts(tf.sparse.concat(axis=1, sp_inputs=[a, b], expand_nonconcat_dims=True)) == want


def test_segment_ops_take_sparse_gradient_and_give_a_dense_gradient():
    data = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    mean = tf.sparse.segment_mean(data, [0, 2], [0, 0], None, None, True)  # positional, as TF's
    assert mean.tolist() == [[3.0, 4.0]]
    sqrt_n = tf.sparse.segment_sqrt_n(data, [0, 1, 2], [0, 0, 1], sparse_gradient=True)
    np.testing.assert_allclose(sqrt_n.detach().numpy(),
                               [[2.8284270763397217, 4.242640495300293], [5.0, 6.0]], rtol=1e-6)
    with tf.GradientTape() as tape:
        total = tf.sparse.segment_sum(data, [0, 2], [0, 0], sparse_gradient=True)
    grad = tape.gradient(total, data)
    # TF returns IndexedSlices; densified they are these values
    assert isinstance(grad, torch.Tensor) and grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]


def test_compat_v1_sparse_segment_sum_takes_sparse_gradient_sixth():
    got = tf.compat.v1.sparse_segment_sum([[1.0, 2.0], [3.0, 4.0]], [0, 1], [0, 0], None, 2, True)
    assert got.tolist() == [[4.0, 6.0], [0.0, 0.0]]
