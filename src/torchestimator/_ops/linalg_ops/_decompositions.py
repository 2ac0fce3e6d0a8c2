"""tf.linalg's inverses, determinants, decompositions and solvers: inv, det, slogdet, logdet,
cholesky, qr, svd, eig*, lu, solve, triangular_solve, lstsq, pinv, matrix_rank, expm."""

from __future__ import annotations

import collections
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import shapes_error
from torchestimator._ops.linalg_ops._common import Tensor, _matrix, _mT, _not_invertible, _pair

LogMatrixDeterminant = collections.namedtuple(
    "LogMatrixDeterminant", ["sign", "log_abs_determinant"]
)
Qr = collections.namedtuple("Qr", ["q", "r"])
Lu = collections.namedtuple("Lu", ["lu", "p"])


# ----------------------------------------------------------------------------- decompositions


def inv(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """The inverse of each square matrix (of its adjoint when `adjoint`).

    Returns:
        A tensor of the same shape; a singular matrix raises `InvalidArgumentError`.
    """
    x = _matrix(input, "inv", square=True)
    if adjoint:
        x = _mT(x, True)
    out, info = torch.linalg.inv_ex(x)
    _not_invertible(info, "inv", "Input")
    return out


def det(input: Any, name: str | None = None) -> Tensor:
    """The determinant of each square matrix.

    Returns:
        A tensor of shape `batch`.
    """
    return torch.linalg.det(_matrix(input, "det", square=True))


def slogdet(input: Any, name: str | None = None) -> LogMatrixDeterminant:
    """The sign and the log of the absolute value of the determinant of each square matrix.

    Returns:
        `LogMatrixDeterminant(sign, log_abs_determinant)`.
    """
    sign, logabs = torch.linalg.slogdet(_matrix(input, "slogdet", square=True))
    return LogMatrixDeterminant(sign, logabs)


def logdet(matrix: Any, name: str | None = None) -> Tensor:
    """The log of the determinant of each Hermitian positive definite matrix (via Cholesky).

    Returns:
        A tensor of shape `batch`.
    """
    chol = cholesky(_matrix(matrix, "logdet", square=True))
    return 2.0 * torch.log(torch.diagonal(chol, dim1=-2, dim2=-1).real).sum(-1)


def cholesky(input: Any, name: str | None = None) -> Tensor:
    """The lower-triangular Cholesky factor of each Hermitian positive definite matrix (a
    matrix that is not positive definite gives NaNs, as TF).

    Returns:
        A tensor of the same shape.
    """
    x = _matrix(input, "cholesky", square=True)
    out, info = torch.linalg.cholesky_ex(x)
    failed = info != 0
    if bool(failed.any()):
        lower = torch.ones(x.shape[-2:], dtype=torch.bool, device=x.device).tril()
        nan = torch.tensor(float("nan"), dtype=out.dtype, device=out.device)
        out = torch.where(failed[..., None, None] & lower, nan, out)
    return out


def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> Tensor:
    """Solves `A X = rhs` given the lower Cholesky factor `chol` of A.

    Returns:
        A tensor of the shape of `rhs`.
    """
    c, b = _pair(chol, rhs, "cholesky_solve")
    _matrix(c, "cholesky_solve", "chol", square=True)
    _matrix(b, "cholesky_solve", "rhs")
    if c.shape[-1] != b.shape[-2]:
        raise shapes_error("cholesky_solve", c.shape, b.shape, "chol's size must equal rhs's rows.")
    return torch.cholesky_solve(b, c, upper=False)


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> Qr:
    """The QR decomposition of each matrix (`full_matrices` for the complete Q).

    Returns:
        `Qr(q, r)`.
    """
    x = _matrix(input, "qr")
    q, r = torch.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return Qr(q, r)


def svd(
    tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None
) -> Any:
    """The singular value decomposition of each matrix: `tensor = u @ diag(s) @ adjoint(v)`.

    Returns:
        `(s, u, v)` in TF's order (v, not its adjoint), or `s` alone when not `compute_uv`.
    """
    x = _matrix(tensor, "svd", "tensor")
    if not compute_uv:
        return torch.linalg.svdvals(x)
    u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
    return s, u, vh.mH


def eigh(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The eigen decomposition of each self-adjoint matrix (lower triangle used).

    Returns:
        `(e, v)`: eigenvalues in ascending order and the eigenvectors as columns.
    """
    e, v = torch.linalg.eigh(_matrix(tensor, "eigh", "tensor", square=True))
    return e, v


def eigvalsh(tensor: Any, name: str | None = None) -> Tensor:
    """The eigenvalues of each self-adjoint matrix, ascending.

    Returns:
        A tensor of shape `batch + [N]`.
    """
    return torch.linalg.eigvalsh(_matrix(tensor, "eigvalsh", "tensor", square=True))


def eig(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The eigen decomposition of each square matrix (complex results).

    Returns:
        `(e, v)`: complex eigenvalues and eigenvectors (as columns).
    """
    e, v = torch.linalg.eig(_matrix(tensor, "eig", "tensor", square=True))
    return e, v


def eigvals(tensor: Any, name: str | None = None) -> Tensor:
    """The (complex) eigenvalues of each square matrix.

    Returns:
        A complex tensor of shape `batch + [N]`.
    """
    return torch.linalg.eigvals(_matrix(tensor, "eigvals", "tensor", square=True))


def lu(input: Any, output_idx_type: Any = torch.int32, name: str | None = None) -> Lu:
    """The LU decomposition with partial pivoting, `input[p] = L @ U`.

    Returns:
        `Lu(lu, p)`: L (unit diagonal, below) and U packed in one matrix, and the row
        permutation `p` (`output_idx_type`).
    """
    x = _matrix(input, "lu", square=True)
    packed, pivots = torch.linalg.lu_factor(x)
    perm, _, _ = torch.lu_unpack(packed, pivots, unpack_data=False)
    p = perm.argmax(dim=-2).to(_dtypes.as_dtype(output_idx_type))
    return Lu(packed, p)


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """Solves `matrix @ X = rhs` (or `adjoint(matrix) @ X = rhs`) for each square matrix.

    Returns:
        A tensor of the shape of `rhs`; a singular matrix raises `InvalidArgumentError`.
    """
    a, b = _pair(matrix, rhs, "solve")
    _matrix(a, "solve", "matrix", square=True)
    if b.dim() != a.dim():
        raise shapes_error("solve", a.shape, b.shape, "All input tensors must have the same rank.")
    if b.shape[-2] != a.shape[-1] or b.shape[:-2] != a.shape[:-2]:
        raise shapes_error("solve", a.shape, b.shape, "Input matrix and rhs are incompatible.")
    if adjoint:
        a = _mT(a, True)
    out, info = torch.linalg.solve_ex(a, b)
    _not_invertible(info, "solve")
    return out


def triangular_solve(
    matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None
) -> Tensor:
    """Solves `matrix @ X = rhs` for triangular matrices (lower or upper; the other triangle is
    ignored), or `adjoint(matrix) @ X = rhs`.

    Returns:
        A tensor of the broadcast shape of `rhs`.
    """
    a, b = _pair(matrix, rhs, "triangular_solve")
    _matrix(a, "triangular_solve", "matrix", square=True)
    _matrix(b, "triangular_solve", "rhs")
    if a.shape[-1] != b.shape[-2]:
        raise shapes_error(
            "triangular_solve", a.shape, b.shape, "matrix's size must equal rhs's rows."
        )
    a = torch.tril(a) if lower else torch.triu(a)
    if adjoint:
        return torch.linalg.solve_triangular(_mT(a, True), b, upper=lower)
    return torch.linalg.solve_triangular(a, b, upper=not lower)


def lstsq(
    matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True, name: str | None = None
) -> Tensor:
    """The (regularized) least-squares solution of `matrix @ X = rhs`. With `fast` (default),
    TF's normal equations: `(A^H A + l2 I)^-1 A^H rhs` for tall A, `A^H (A A^H + l2 I)^-1 rhs`
    for wide A; otherwise the minimum-norm solution via the pseudo-inverse.

    Returns:
        A tensor of shape `batch + [columns of matrix, columns of rhs]`.
    """
    a, b = _pair(matrix, rhs, "lstsq")
    _matrix(a, "lstsq", "matrix")
    _matrix(b, "lstsq", "rhs")
    if a.shape[-2] != b.shape[-2]:
        raise shapes_error(
            "lstsq", a.shape, b.shape, "matrix and rhs must have the same number of rows."
        )
    reg = float(l2_regularizer)
    m, n = a.shape[-2], a.shape[-1]
    if not fast:
        if reg:
            raise ValueError("lstsq: l2_regularizer is only supported with fast=True (as in TF).")
        return torch.linalg.pinv(a) @ b
    ah = _mT(a, True)
    if m >= n:
        gram = ah @ a + reg * torch.eye(n, dtype=a.dtype, device=a.device)
        return torch.cholesky_solve(ah @ b, torch.linalg.cholesky(gram))
    gram = a @ ah + reg * torch.eye(m, dtype=a.dtype, device=a.device)
    return ah @ torch.cholesky_solve(b, torch.linalg.cholesky(gram))


def pinv(a: Any, rcond: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix; singular values below
    `rcond * max(s)` (default `10 * max(rows, cols) * eps`) are treated as zero.

    Returns:
        A tensor of shape `batch + [columns, rows]`.
    """
    x = _matrix(a, "pinv", "a")
    if rcond is None:
        rcond = 10.0 * max(x.shape[-2], x.shape[-1]) * torch.finfo(x.dtype).eps
    return torch.linalg.pinv(x, rtol=float(rcond))


def matrix_rank(
    a: Any, tol: Any = None, validate_args: bool = False, name: str | None = None
) -> Tensor:
    """The number of singular values of each matrix above `tol` (default
    `eps * max(rows, cols) * max(s)`).

    Returns:
        An int32 tensor of shape `batch`.
    """
    x = _matrix(a, "matrix_rank", "a")
    if tol is None:
        out = torch.linalg.matrix_rank(x)
    else:
        out = torch.linalg.matrix_rank(x, atol=float(tol), rtol=0.0)
    return out.to(torch.int32)


def expm(input: Any, name: str | None = None) -> Tensor:
    """The matrix exponential of each square matrix.

    Returns:
        A tensor of the same shape.
    """
    return torch.linalg.matrix_exp(_matrix(input, "expm", square=True))
