"""Parity of the `tf.linalg` functions (LU helpers, banded/tridiagonal solvers, logm, sqrtm, ...) with TF 2.15."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

import _linalg_cases as cases  # noqa: E402

import torchestimator as tf  # noqa: E402

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
META = json.load(open(os.path.join(FIX, "linalg_tf215.json")))
ARRAYS = np.load(os.path.join(FIX, "linalg_tf215.npz"))
FN_CASES = cases.function_cases()


def T(a):
    return torch.from_numpy(np.array(a, copy=True))


def _outputs(v):
    v = v if isinstance(v, (tuple, list)) else [v]
    return [t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else np.asarray(t) for t in v]


@pytest.mark.parametrize("name", sorted(FN_CASES))
def test_function_matches_tf(name):
    got = _outputs(FN_CASES[name](tf, T))
    assert len(got) == META["functions"][name]
    for i, g in enumerate(got):
        want = ARRAYS[f"fn/{name}/{i}"]
        assert g.shape == want.shape, f"{name}[{i}]: shape {g.shape} != TF {want.shape}"
        assert g.dtype == want.dtype, f"{name}[{i}]: dtype {g.dtype} != TF {want.dtype}"
        if name == "eigh_tridiagonal_vectors" and i == 1:
            # eigenvectors are defined up to sign: align each column's sign with TF's
            signs = np.sign(np.sum(g * want, axis=0))
            g = g * signs
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9, err_msg=f"{name}[{i}]")


def test_tridiagonal_solve_singular_is_nan_and_perturb_gives_finite():
    # TF 2.15 (CPU): logs "The matrix is not invertible." and returns NaN; perturb_singular gives [1, 0, 1].
    diags = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]], dtype=torch.float64)
    rhs = torch.ones(3, 1, dtype=torch.float64)
    with pytest.warns(RuntimeWarning, match="not invertible"):
        out = tf.linalg.tridiagonal_solve(diags, rhs)
    assert torch.isnan(out).all()
    out = tf.linalg.tridiagonal_solve(diags, rhs, perturb_singular=True)
    np.testing.assert_allclose(out.numpy()[:, 0], [1.0, 0.0, 1.0])


def test_tridiagonal_solve_batched_matches_dense():
    g = np.random.RandomState(3)
    d = g.randn(4, 3, 6)
    d[:, 1] += 5
    rhs = g.randn(4, 6, 2)
    dense = np.stack([np.diag(x[1]) + np.diag(x[0, :-1], 1) + np.diag(x[2, 1:], -1) for x in d])
    out = tf.linalg.tridiagonal_solve(T(d), T(rhs)).numpy()
    np.testing.assert_allclose(out, np.linalg.solve(dense, rhs), rtol=1e-10)


def test_function_errors_name_arguments():
    with pytest.raises(ValueError, match="partial_pivoting"):
        tf.linalg.tridiagonal_solve(torch.ones(3, 3), torch.ones(3, 1), partial_pivoting=False, perturb_singular=True)
    with pytest.raises(ValueError, match="diagonals_format"):
        tf.linalg.tridiagonal_matmul(torch.ones(3, 3), torch.ones(3, 1), diagonals_format="bad")
    with pytest.raises(TypeError, match="complex"):
        tf.linalg.logm(torch.eye(2, dtype=torch.float64))


def test_conjugate_gradient_converges():
    a = torch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=torch.float64)
    op = tf.linalg.LinearOperatorFullMatrix(a, is_self_adjoint=True, is_positive_definite=True)
    state = tf.linalg.experimental.conjugate_gradient(op, torch.tensor([1.0, 2.0], dtype=torch.float64))
    np.testing.assert_allclose(state.x.numpy(), np.linalg.solve(a.numpy(), [1.0, 2.0]), rtol=1e-8)
    assert type(state).__name__ == "CGState" and state._fields == ("i", "x", "r", "p", "gamma")
