"""`tf.linalg` paths no other test runs: `eig`, and the properties of the linear operators
(`matrix`, `tril`, `multiplier`, `perm`, `reflection_axis`, `diagonals`, `diagonals_format`,
`is_diag_update_positive`, `graph_parents`)."""

from __future__ import annotations

import numpy as np
import torch

import torchestimator as tf


def test_eig_satisfies_the_eigen_equation():
    a = tf.constant([[2.0, 1.0], [0.0, 3.0]])
    e, v = tf.linalg.eig(a)
    assert e.dtype == torch.complex64 and v.dtype == torch.complex64
    np.testing.assert_allclose(np.sort(e.numpy().real), [2.0, 3.0], atol=1e-6)
    batch = tf.constant(np.random.RandomState(0).randn(2, 3, 3))
    e, v = tf.linalg.eig(batch)
    assert e.dtype == torch.complex128 and tuple(v.shape) == (2, 3, 3)
    torch.testing.assert_close(batch.to(v.dtype) @ v, v * e[..., None, :])
    np.testing.assert_allclose(np.sort_complex(e.numpy()),
                               np.sort_complex(np.linalg.eigvals(batch.numpy())), atol=1e-10)


def test_operator_properties_return_what_defines_them():
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tf.linalg.LinearOperatorFullMatrix(m).matrix.numpy(), m.numpy())
    low = tf.linalg.LinearOperatorLowerTriangular(m)
    np.testing.assert_array_equal(low.tril.numpy(), m.numpy())  # as given; to_dense drops the top
    np.testing.assert_array_equal(low.to_dense().numpy(), [[1.0, 0.0], [3.0, 4.0]])
    assert float(tf.linalg.LinearOperatorScaledIdentity(3, 2.5).multiplier) == 2.5
    assert tf.linalg.LinearOperatorPermutation([2, 0, 1]).perm.tolist() == [2, 0, 1]
    np.testing.assert_array_equal(
        tf.linalg.LinearOperatorHouseholder([1.0, 0.0]).reflection_axis.numpy(), [1.0, 0.0])
    assert tf.linalg.LinearOperatorFullMatrix(m).graph_parents == []


def test_tridiag_diagonals_and_format():
    diagonals = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 0.0]]
    expected = [[3.0, 0.0, 0.0], [7.0, 4.0, 1.0], [0.0, 0.0, 5.0]]
    seq = tf.linalg.LinearOperatorTridiag([tf.constant(d) for d in diagonals],
                                          diagonals_format="sequence")
    assert seq.diagonals_format == "sequence"
    assert [d.tolist() for d in seq.diagonals] == diagonals
    np.testing.assert_array_equal(seq.to_dense().numpy(), expected)
    compact = tf.linalg.LinearOperatorTridiag(tf.constant(diagonals))
    assert compact.diagonals_format == "compact"
    np.testing.assert_array_equal(compact.diagonals.numpy(), diagonals)
    np.testing.assert_array_equal(compact.to_dense().numpy(), expected)


def test_low_rank_update_is_diag_update_positive():
    op = tf.linalg.LinearOperatorLowRankUpdate(
        tf.linalg.LinearOperatorDiag([1.0, 2.0]), u=tf.constant([[1.0], [2.0]]), diag_update=[3.0],
        is_diag_update_positive=True)
    assert op.is_diag_update_positive is True
    np.testing.assert_allclose(op.to_dense().numpy(), [[4.0, 6.0], [6.0, 14.0]])
