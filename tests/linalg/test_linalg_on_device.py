"""`tf.linalg`'s operators and functions on a second device (`lazy:0`, `_harness/device_leaks.py`:
a stand-in for a GPU, where mixing its tensors with CPU ones raises as CUDA does). Each operator
is built from Python lists inside the block, so its tensors go where TF's ops put them (the
device); every tensor a method returns (dense views, solves, determinants, diagonals, shape
tensors, the tensors of derived operators) must be there too and equal the CPU result. An
operator with no tensor at all (an identity, zeros) makes its tensors there as well."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import available, on_leak_device

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

_W = [[4.0, 1.0, 0.5], [0.2, 3.0, 0.1], [0.3, -0.4, 5.0]]
_SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]]
_W2 = [[2.0, 0.5], [0.1, 1.0]]


def _grid(rows: int, cols: int) -> list:
    return [[1.0 + 0.5 * i - 0.25 * j for j in range(cols)] for i in range(rows)]


L = tf.linalg
_OPERATORS = {
    "diag": lambda: L.LinearOperatorDiag([1.5, -2.0, 3.0]),
    "diag_pd": lambda: L.LinearOperatorDiag([[1.5, 2.0, 3.0], [0.5, 1.0, 4.0]], is_positive_definite=True),
    "full": lambda: L.LinearOperatorFullMatrix(_W),
    "full_spd": lambda: L.LinearOperatorFullMatrix(_SPD, is_self_adjoint=True, is_positive_definite=True),
    "identity": lambda: L.LinearOperatorIdentity(3),
    "identity_batch": lambda: L.LinearOperatorIdentity(3, batch_shape=[2]),
    "scaled_identity": lambda: L.LinearOperatorScaledIdentity(3, [2.0, -3.0]),
    "zeros": lambda: L.LinearOperatorZeros(3, batch_shape=[2]),
    "zeros_rect": lambda: L.LinearOperatorZeros(3, 4, is_square=False, is_self_adjoint=False),
    "lower_triangular": lambda: L.LinearOperatorLowerTriangular(_W),
    "low_rank_update": lambda: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorDiag([1.0, 2.0, 3.0], is_positive_definite=True), [[1.0], [0.5], [0.25]],
        diag_update=[0.5], is_diag_update_positive=True),
    "low_rank_update_uv": lambda: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorFullMatrix(_W), [[1.0], [0.5], [0.25]], v=[[0.2], [0.1], [-0.3]]),
    "kronecker": lambda: L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(_W2), L.LinearOperatorDiag([1.0, 3.0])]),
    "block_diag": lambda: L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(_W2), L.LinearOperatorDiag([3.0])]),
    "block_lower_triangular": lambda: L.LinearOperatorBlockLowerTriangular(
        [[L.LinearOperatorFullMatrix(_W2)], [L.LinearOperatorFullMatrix([[0.3, -0.2]]), L.LinearOperatorDiag([3.0])]]),
    "circulant": lambda: L.LinearOperatorCirculant(
        [6.0, 2.0, 1.0, 2.0], input_output_dtype=tf.float32, is_self_adjoint=True, is_positive_definite=True),
    "toeplitz": lambda: L.LinearOperatorToeplitz([4.0, 1.0, 0.5], [4.0, -1.0, 0.3]),
    "householder": lambda: L.LinearOperatorHouseholder([1.0, 2.0, -0.5]),
    "permutation": lambda: L.LinearOperatorPermutation([[2, 0, 1], [1, 2, 0]]),
    "tridiag": lambda: L.LinearOperatorTridiag([[1.0, 0.5, 0.0], [4.0, 5.0, 6.0], [0.0, 0.2, -0.3]]),
    "tridiag_sequence": lambda: L.LinearOperatorTridiag(
        [[1.0, 0.5, 0.0], [4.0, 5.0, 6.0], [0.0, 0.2, -0.3]], diagonals_format="sequence"),
    "composition": lambda: L.LinearOperatorComposition([L.LinearOperatorFullMatrix(_W), L.LinearOperatorDiag([1.0, 2.0, 3.0])]),
    "adjoint": lambda: L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix(_W)),
    "inversion": lambda: L.LinearOperatorInversion(L.LinearOperatorFullMatrix(_W)),
}


def _operator_outputs(op) -> dict:
    n, m = op.domain_dimension, op.range_dimension
    out = {
        "to_dense": op.to_dense(),
        "matmul": op.matmul(_grid(n, 2)),
        "matmul_adjoint": op.matmul(_grid(2, m), adjoint=True, adjoint_arg=True),
        "matvec": op.matvec(_grid(1, n)[0]),
        "diag_part": op.diag_part(),
        "trace": op.trace(),
        "add_to_tensor": op.add_to_tensor(_grid(m, n)),
        "adjoint": op.adjoint().to_dense(),
        "shape_tensor": op.shape_tensor(),
        "batch_shape_tensor": op.batch_shape_tensor(),
        "tensor_rank_tensor": op.tensor_rank_tensor(),
        "domain_dimension_tensor": op.domain_dimension_tensor(),
        "range_dimension_tensor": op.range_dimension_tensor(),
        "cond": op.cond(),
    }
    if hasattr(op, "block_shape_tensor"):
        out["block_shape_tensor"] = op.block_shape_tensor()
    if op.is_square:
        out["determinant"] = op.determinant()
        out["log_abs_determinant"] = op.log_abs_determinant()
    if op.is_square and op.is_non_singular is not False:
        out["solve"] = op.solve(_grid(n, 2))
        out["solve_adjoint"] = op.solve(_grid(2, n), adjoint=True, adjoint_arg=True)
        out["solvevec"] = op.solvevec(_grid(1, n)[0])
        out["inverse"] = op.inverse().to_dense()
        out["inverse_matvec"] = op.inverse().matvec(_grid(1, n)[0])
    if op.is_self_adjoint:
        out["eigvals"] = op.eigvals()
    if op.is_self_adjoint and op.is_positive_definite:
        out["cholesky"] = op.cholesky().to_dense()
    return out


def _lu():
    lu, perm = tf.linalg.lu(tf.constant(_W))
    return lu.tolist(), perm.tolist()


def _quietly(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "The matrix is not invertible": NaN
        return fn(*args, **kwargs)


_LU, _PERM = _lu()
_BANDS = [[1.0, 2.0, 3.0], [0.0, 0.5, 0.25]]
_TRI = [[1.0, 0.5, 0.0], [4.0, 5.0, 6.0], [0.0, 0.2, -0.3]]
_CG_OP = lambda: L.LinearOperatorFullMatrix(_SPD, is_self_adjoint=True, is_positive_definite=True)  # noqa: E731
_FUNCTIONS = {
    "lu_solve": lambda: L.lu_solve(_LU, _PERM, _grid(3, 2)),
    "lu_matrix_inverse": lambda: L.lu_matrix_inverse(_LU, _PERM),
    "lu_reconstruct": lambda: L.lu_reconstruct(_LU, _PERM),
    "banded_triangular_solve": lambda: L.banded_triangular_solve(_BANDS, _grid(3, 2)),
    "banded_triangular_solve_upper_adjoint": lambda: L.banded_triangular_solve(
        _BANDS[::-1], _grid(3, 2), lower=False, adjoint=True),
    "tridiagonal_matmul": lambda: L.tridiagonal_matmul(_TRI, _grid(3, 2)),
    "tridiagonal_matmul_sequence": lambda: L.tridiagonal_matmul(
        ([1.0, 0.5], [4.0, 5.0, 6.0], [0.2, -0.3]), _grid(3, 2), diagonals_format="sequence"),
    "tridiagonal_matmul_matrix": lambda: L.tridiagonal_matmul(_W, _grid(3, 2), diagonals_format="matrix"),
    "tridiagonal_solve": lambda: L.tridiagonal_solve(_TRI, _grid(3, 2)),
    "tridiagonal_solve_vector": lambda: L.tridiagonal_solve(_TRI, _grid(1, 3)[0], perturb_singular=True),
    "tridiagonal_solve_no_pivoting": lambda: L.tridiagonal_solve(_TRI, _grid(2, 3), transpose_rhs=True,
                                                                 partial_pivoting=False),
    "tridiagonal_solve_singular": lambda: _quietly(L.tridiagonal_solve, [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]],
                                                   _grid(3, 2)),
    "sqrtm": lambda: L.sqrtm(_SPD),
    "logm": lambda: L.logm([[4.0 + 0j, 1.0], [1.0, 3.0]]),
    "eigh_tridiagonal": lambda: L.eigh_tridiagonal([1.0, 2.0, 3.0], [0.5, 0.25], eigvals_only=False),
    "eigh_tridiagonal_index": lambda: L.eigh_tridiagonal([1.0, 2.0, 3.0], [0.5, 0.25], select="i", select_range=[1, 2]),
    "eigh_tridiagonal_value": lambda: L.eigh_tridiagonal([1.0, 2.0, 3.0], [0.5, 0.25], select="v",
                                                          select_range=[0.0, 2.5]),
    "conjugate_gradient": lambda: tuple(L.experimental.conjugate_gradient(_CG_OP(), [1.0, 2.0, 3.0])),
    "conjugate_gradient_solved_already": lambda: tuple(L.experimental.conjugate_gradient(_CG_OP(), [0.0, 0.0, 0.0])),
    "conjugate_gradient_from_x": lambda: tuple(L.experimental.conjugate_gradient(
        _CG_OP(), [1.0, 2.0, 3.0], x=[0.5, 0.5, 0.5], preconditioner=L.LinearOperatorDiag(
            [0.25, 0.3, 0.2], is_self_adjoint=True, is_positive_definite=True))),
}


def _assert_on_device_and_equal(got: dict, expected: dict, device: torch.device) -> None:
    assert got.keys() == expected.keys()
    for key, want in expected.items():
        for i, (g, w) in enumerate(zip(got[key], want) if isinstance(want, tuple) else [(got[key], want)]):
            assert isinstance(g, torch.Tensor), (key, i, g)
            assert g.device.type == device.type, f"{key}[{i}] is on {g.device}, not on {device}"
            torch.testing.assert_close(g.cpu(), w.cpu(), rtol=1e-4, atol=1e-5, equal_nan=True,
                                       msg=lambda m, where=f"{key}[{i}]": f"{where}: {m}")


@pytest.mark.parametrize("name", sorted(_OPERATORS))
def test_an_operators_methods_run_and_return_tensors_on_the_device_of_its_tensors(name):
    expected = _operator_outputs(_OPERATORS[name]())
    with on_leak_device() as device:
        got = _operator_outputs(_OPERATORS[name]())
    _assert_on_device_and_equal(got, expected, device)


@pytest.mark.parametrize("name", sorted(_FUNCTIONS))
def test_a_linalg_function_returns_tensors_on_the_device_of_its_inputs(name):
    expected = {name: _FUNCTIONS[name]()}
    with on_leak_device() as device:
        got = {name: _FUNCTIONS[name]()}
    _assert_on_device_and_equal(got, expected, device)


def test_a_batch_slice_of_an_operator_stays_on_the_device():
    expected = _OPERATORS["identity_batch"]()[0].to_dense(), _OPERATORS["diag_pd"]()[1:].to_dense()
    with on_leak_device() as device:
        got = _OPERATORS["identity_batch"]()[0].to_dense(), _OPERATORS["diag_pd"]()[1:].to_dense()
    _assert_on_device_and_equal({"slices": got}, {"slices": expected}, device)


def _host_operands() -> dict:
    """Operators and factorizations made of host tensors (the user's own), given list arguments."""
    w, spd = torch.tensor(_W), torch.tensor(_SPD)
    full = L.LinearOperatorFullMatrix(w)
    blocks = L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(torch.tensor(_W2)), L.LinearOperatorDiag(torch.ones(1))])
    lu, perm = torch.tensor(_LU), torch.tensor(_PERM, dtype=torch.int32)
    cg_op = L.LinearOperatorFullMatrix(spd, is_self_adjoint=True, is_positive_definite=True)
    return {
        "matmul": full.matmul(_grid(3, 2)), "matvec": full.matvec(_grid(1, 3)[0]),
        "solve": full.solve(_grid(3, 2)), "solvevec": full.solvevec(_grid(1, 3)[0]),
        "add_to_tensor": full.add_to_tensor(_grid(3, 3)),
        "scaled_identity_add_to_tensor": L.LinearOperatorScaledIdentity(3, torch.tensor(2.0)).add_to_tensor(_grid(3, 3)),
        "blockwise_matvec": tuple(blocks.matvec([np.ones(2, np.float32), np.ones(1, np.float32)])),
        "lu_solve": L.lu_solve(lu, _PERM, _grid(3, 2)), "lu_reconstruct": L.lu_reconstruct(lu, _PERM),
        "lu_solve_perm": L.lu_solve(lu, perm, _grid(3, 2)),
        "banded_triangular_solve": L.banded_triangular_solve(torch.tensor(_BANDS), _grid(3, 2)),
        "tridiagonal_matmul": L.tridiagonal_matmul(torch.tensor(_TRI), _grid(3, 2)),
        "tridiagonal_solve": L.tridiagonal_solve(torch.tensor(_TRI), _grid(3, 2)),
        "eigh_tridiagonal": L.eigh_tridiagonal(torch.tensor([1.0, 2.0, 3.0]), [0.5, 0.25]),
        "conjugate_gradient": tuple(L.experimental.conjugate_gradient(cg_op, [1.0, 2.0, 3.0], x=[0.5, 0.5, 0.5])),
    }


def test_list_arguments_go_where_the_operators_or_factorizations_tensors_are():
    """An argument that is not a tensor yet meets the tensors it is combined with: those of an
    operator (or an LU factorization, bands, diagonals) the user made on the host stay there."""
    expected = _host_operands()
    with on_leak_device():
        got = _host_operands()
    _assert_on_device_and_equal(got, expected, torch.device("cpu"))
