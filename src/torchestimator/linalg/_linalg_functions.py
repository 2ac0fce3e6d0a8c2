"""TF 2.15 `tf.linalg` functions: LU helpers, banded/tridiagonal solvers, `logm`, `sqrtm`, `eigh_tridiagonal`."""

from __future__ import annotations

import collections
import warnings
from typing import Any

import torch

from torchestimator.linalg._linear_operator import _adj, _to_tensor

__all__ = [
    "banded_triangular_solve",
    "conjugate_gradient",
    "eigh_tridiagonal",
    "logm",
    "lu_matrix_inverse",
    "lu_reconstruct",
    "lu_solve",
    "sqrtm",
    "tridiagonal_matmul",
    "tridiagonal_solve",
]


def _gather_rows(x: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    """`tf.gather(x, perm, axis=-2, batch_dims=perm.ndim - 1)` with batch broadcasting."""
    perm = perm.long()
    batch = torch.broadcast_shapes(x.shape[:-2], perm.shape[:-1])
    x = x.expand(*batch, *x.shape[-2:])
    idx = perm.expand(*batch, perm.shape[-1]).unsqueeze(-1).expand(*batch, perm.shape[-1], x.shape[-1])
    return torch.gather(x, -2, idx)


def _validate_lu(lower_upper: torch.Tensor, perm: torch.Tensor, validate_args: bool) -> None:
    if lower_upper.ndim < 2:
        raise ValueError(f"Input `lower_upper` must have at least 2 dimensions; got shape {tuple(lower_upper.shape)}.")
    if lower_upper.shape[-1] != lower_upper.shape[-2]:
        raise ValueError(f"Input `lower_upper` must be a square matrix; got shape {tuple(lower_upper.shape)}.")
    if validate_args and perm.shape[-1] != lower_upper.shape[-1]:
        raise ValueError(f"`perm` must have length {lower_upper.shape[-1]}, got {perm.shape[-1]}.")


def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False, name: str | None = None) -> torch.Tensor:
    """Solves systems of linear eqns `A X = RHS`, given LU factorizations.

    `lower_upper` and `perm` are the outputs of `tf.linalg.lu`; returns the
    solution `X` with the shape of `rhs` (batch dimensions broadcast).
    """
    lu = _to_tensor(lower_upper, name="lower_upper")
    perm = _to_tensor(perm, name="perm", device=lu.device)
    rhs = _to_tensor(rhs, dtype=lu.dtype, name="rhs", device=lu.device)
    _validate_lu(lu, perm, validate_args)
    if validate_args and rhs.shape[-2] != lu.shape[-1]:
        raise ValueError(f"Shapes of `lower_upper` {tuple(lu.shape)} and `rhs` {tuple(rhs.shape)} are incompatible.")
    permuted = _gather_rows(rhs, perm)
    batch = torch.broadcast_shapes(lu.shape[:-2], permuted.shape[:-2])
    lu = lu.expand(*batch, *lu.shape[-2:])
    permuted = permuted.expand(*batch, *permuted.shape[-2:])
    y = torch.linalg.solve_triangular(lu, permuted, upper=False, unitriangular=True)
    return torch.linalg.solve_triangular(lu, y, upper=True)


def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False, name: str | None = None) -> torch.Tensor:
    """Computes the inverse given the LU decomposition(s) of one or more matrices.

    Returns a matrix of the same shape and dtype as `lower_upper`.
    """
    lu = _to_tensor(lower_upper, name="lower_upper")
    eye = torch.eye(lu.shape[-1], dtype=lu.dtype, device=lu.device).expand(*lu.shape)
    return lu_solve(lu, perm, eye, validate_args=validate_args)


def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False, name: str | None = None) -> torch.Tensor:
    """The reconstruct one or more matrices from their LU decomposition(s).

    Returns `x` such that `tf.linalg.lu(x)` gives `(lower_upper, perm)`.
    """
    lu = _to_tensor(lower_upper, name="lower_upper")
    perm = _to_tensor(perm, name="perm", device=lu.device)
    _validate_lu(lu, perm, validate_args)
    n = lu.shape[-1]
    lower = torch.tril(lu, -1) + torch.eye(n, dtype=lu.dtype, device=lu.device)
    x = lower @ torch.triu(lu)
    inv = torch.argsort(perm.long(), dim=-1)
    return _gather_rows(x, inv)


def banded_triangular_solve(
    bands: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None
) -> torch.Tensor:
    """Solve triangular systems of equations with a banded solver.

    `bands` has shape `[..., K, M]`: for `lower=True` row `i` holds the `i`-th
    subdiagonal (the diagonal is the top row, subdiagonals padded on the left);
    for `lower=False` row `r` holds the `K-1-r`-th superdiagonal (the diagonal
    is the bottom row, superdiagonals padded on the right). Returns a `Tensor`
    of shape `[..., M, N]`.
    """
    bands = _to_tensor(bands, name="bands")
    rhs = _to_tensor(rhs, dtype=bands.dtype, name="rhs", device=bands.device)
    if bands.ndim < 2:
        raise ValueError(f"Argument `bands` must have rank >= 2 (shape [..., K, M]); got shape {tuple(bands.shape)}.")
    k, m = bands.shape[-2], bands.shape[-1]
    if rhs.shape[-2] != m:
        raise ValueError(f"Argument `rhs` must have {m} rows to match `bands` shape {tuple(bands.shape)}; got {tuple(rhs.shape)}.")
    dense = torch.zeros(*bands.shape[:-2], m, m, dtype=bands.dtype, device=bands.device)
    for r in range(min(k, m)):
        d = r if lower else k - 1 - r
        if d >= m:
            continue
        if lower:
            vals = bands[..., r, d:]
            torch.diagonal(dense, offset=-d, dim1=-2, dim2=-1).copy_(vals)
        else:
            vals = bands[..., r, : m - d]
            torch.diagonal(dense, offset=d, dim1=-2, dim2=-1).copy_(vals)
    batch = torch.broadcast_shapes(dense.shape[:-2], rhs.shape[:-2])
    dense = dense.expand(*batch, m, m)
    rhs = rhs.expand(*batch, *rhs.shape[-2:])
    if adjoint:
        return torch.linalg.solve_triangular(_adj(dense), rhs, upper=lower)
    return torch.linalg.solve_triangular(dense, rhs, upper=not lower)


def _compact_from(diagonals: Any, diagonals_format: str) -> torch.Tensor:
    if diagonals_format == "compact":
        d = _to_tensor(diagonals, name="diagonals")
        if d.ndim < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {d.ndim}")
        if d.shape[-2] != 3:
            raise ValueError(f"Expected 3 diagonals got {d.shape[-2]}")
        return d
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        sup, main, sub = (_to_tensor(t, name="diagonals") for t in diagonals)
        m = main.shape[-1]

        def pad(t, name, left):
            n = t.shape[-1]
            if n == m:
                return t
            if n == m - 1:
                z = torch.zeros(*t.shape[:-1], 1, dtype=t.dtype, device=t.device)
                return torch.cat([z, t] if left else [t, z], -1)
            raise ValueError(f"Expected {name} to be have length {m} or {m - 1}, got {n}.")

        sub, sup = pad(sub, "subdiagonal", True), pad(sup, "superdiagonal", False)
        batch = torch.broadcast_shapes(sup.shape[:-1], main.shape[:-1], sub.shape[:-1])
        return torch.stack([t.expand(*batch, m) for t in (sup, main, sub)], -2)
    if diagonals_format == "matrix":
        a = _to_tensor(diagonals, name="diagonals")
        if a.shape[-1] != a.shape[-2]:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got {a.shape[-1]} and {a.shape[-2]}")
        m = a.shape[-1]
        z = torch.zeros(*a.shape[:-2], 1, dtype=a.dtype, device=a.device)
        sup = torch.cat([torch.diagonal(a, 1, -2, -1), z], -1)
        sub = torch.cat([z, torch.diagonal(a, -1, -2, -1)], -1)
        return torch.stack([sup, torch.diagonal(a, 0, -2, -1).expand(*a.shape[:-2], m), sub], -2)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}; expected 'compact', 'sequence' or 'matrix'.")


def _compact_to_dense(d: torch.Tensor) -> torch.Tensor:
    return (
        torch.diag_embed(d[..., 1, :])
        + torch.diag_embed(d[..., 0, :-1], offset=1)
        + torch.diag_embed(d[..., 2, 1:], offset=-1)
    )


def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact", name: str | None = None) -> torch.Tensor:
    """Multiplies tridiagonal matrix by matrix.

    `diagonals` is in `compact` (`[..., 3, M]`), `sequence` (tuple of
    superdiagonal, diagonal, subdiagonal) or `matrix` (`[..., M, M]`) format;
    `rhs` has shape `[..., M, N]`. Returns a `Tensor` of shape `[..., M, N]`.
    """
    d = _compact_from(diagonals, diagonals_format)
    rhs = _to_tensor(rhs, dtype=d.dtype, name="rhs", device=d.device)
    sup, main, sub = d[..., 0, :, None], d[..., 1, :, None], d[..., 2, :, None]
    out = main * rhs
    zero = torch.zeros_like(rhs[..., :1, :])
    below = torch.cat([rhs[..., 1:, :], zero], -2)
    above = torch.cat([zero, rhs[..., :-1, :]], -2)
    sup = torch.cat([sup[..., :-1, :], torch.zeros_like(sup[..., :1, :])], -2)
    sub = torch.cat([torch.zeros_like(sub[..., :1, :]), sub[..., 1:, :]], -2)
    return out + sup * below + sub * above


def _gtsv(d: torch.Tensor, rhs: torch.Tensor, perturb_singular: bool) -> torch.Tensor:
    """Gaussian elimination with partial pivoting for a compact tridiagonal system (LAPACK gtsv)."""
    m = d.shape[-1]
    batch = torch.broadcast_shapes(d.shape[:-2], rhs.shape[:-2])
    d = d.expand(*batch, 3, m)
    b = rhs.expand(*batch, *rhs.shape[-2:]).clone()
    du = d[..., 0, :].clone()
    dm = d[..., 1, :].clone()
    dl = d[..., 2, :].clone()
    du2 = torch.zeros_like(du)
    real = dm.real.dtype if dm.is_complex() else dm.dtype
    tiny = torch.finfo(real).eps * float(d.abs().max()) if perturb_singular and d.numel() else 0.0
    singular = torch.zeros(batch, dtype=torch.bool, device=dm.device)
    for i in range(m - 1):
        a, c = dm[..., i], dl[..., i + 1]
        swap = a.abs() < c.abs()
        # swapped rows: row i <- row i+1
        new_a = torch.where(swap, c, a)
        fact = torch.where(new_a == 0, torch.zeros_like(new_a), torch.where(swap, a, c) / torch.where(new_a == 0, torch.ones_like(new_a), new_a))
        u_i, u_i1 = du[..., i], dm[..., i + 1]
        nxt = du[..., i + 1] if i + 1 < m - 1 else torch.zeros_like(u_i)
        # no swap
        ns_u1 = u_i1 - fact * u_i
        # swap
        s_du = u_i1
        s_dm1 = u_i - fact * u_i1
        s_du2 = nxt
        s_du1 = -fact * nxt
        dm[..., i] = new_a
        du[..., i] = torch.where(swap, s_du, u_i)
        dm[..., i + 1] = torch.where(swap, s_dm1, ns_u1)
        du2[..., i] = torch.where(swap, s_du2, torch.zeros_like(u_i))
        if i + 1 < m - 1:
            du[..., i + 1] = torch.where(swap, s_du1, nxt)
        bi, bi1 = b[..., i, :].clone(), b[..., i + 1, :].clone()
        sw = swap[..., None]
        f = fact[..., None]
        b[..., i, :] = torch.where(sw, bi1, bi)
        b[..., i + 1, :] = torch.where(sw, bi - f * bi1, bi1 - f * bi)
    zero_piv = dm == 0
    if bool(zero_piv.any()):
        if perturb_singular:
            dm = torch.where(zero_piv, torch.full_like(dm, tiny), dm)
        else:
            # TF's CPU kernel logs "The matrix is not invertible." and returns NaN for that system.
            singular |= zero_piv.any(-1)
            warnings.warn(
                "tridiagonal_solve: The matrix is not invertible; its solution is NaN. Pass perturb_singular=True "
                "to get a finite result.",
                RuntimeWarning,
                stacklevel=3,
            )
    x = torch.zeros_like(b)
    for i in range(m - 1, -1, -1):
        acc = b[..., i, :]
        if i + 1 < m:
            acc = acc - du[..., i, None] * x[..., i + 1, :]
        if i + 2 < m:
            acc = acc - du2[..., i, None] * x[..., i + 2, :]
        x[..., i, :] = acc / dm[..., i, None]
    if bool(singular.any()):
        x = torch.where(singular[..., None, None], torch.full_like(x, float("nan")), x)
    return x


def tridiagonal_solve(
    diagonals: Any,
    rhs: Any,
    diagonals_format: str = "compact",
    transpose_rhs: bool = False,
    conjugate_rhs: bool = False,
    name: str | None = None,
    partial_pivoting: bool = True,
    perturb_singular: bool = False,
) -> torch.Tensor:
    """Solves tridiagonal systems of equations.

    `rhs` has shape `[..., M]` or `[..., M, K]` (`[..., K, M]` with
    `transpose_rhs=True`). Returns a `Tensor` of shape `[..., M]` or
    `[..., M, K]` holding the solution.

    Raises:
      ValueError: On incompatible shapes or `perturb_singular` without
        `partial_pivoting`.

    A singular system (with `perturb_singular=False`) warns "The matrix is not
    invertible." and yields NaN, as TF's CPU kernel does.
    """
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    d = _compact_from(diagonals, diagonals_format)
    rhs = _to_tensor(rhs, dtype=d.dtype, name="rhs", device=d.device)
    dr, rr = d.ndim, rhs.ndim
    if rr != dr and rr != dr - 1:
        raise ValueError(f"Expected the rank of rhs to be {dr - 1} or {dr}, got {rr}")
    vec = rr == dr - 1
    if vec:
        rhs = rhs.conj() if conjugate_rhs and rhs.is_complex() else rhs
        rhs = rhs.unsqueeze(-1)
    elif transpose_rhs:
        rhs = rhs.transpose(-1, -2)
        rhs = rhs.conj() if conjugate_rhs and rhs.is_complex() else rhs
    elif conjugate_rhs and rhs.is_complex():
        rhs = rhs.conj()
    rhs = rhs.resolve_conj()
    if d.shape[-1] != rhs.shape[-2]:
        raise ValueError(
            f"Expected number of left-hand sided and right-hand sides to be equal, got {d.shape[-1]} and {rhs.shape[-2]}"
        )
    if partial_pivoting:
        x = _gtsv(d, rhs, perturb_singular)
    else:
        dense, r = _compact_to_dense(d), rhs
        batch = torch.broadcast_shapes(dense.shape[:-2], r.shape[:-2])
        x = torch.linalg.solve(dense.expand(*batch, *dense.shape[-2:]), r.expand(*batch, *r.shape[-2:]))
    return x.squeeze(-1) if vec else x


def _eig_fn(a: torch.Tensor, fn) -> torch.Tensor:
    w, v = torch.linalg.eig(a)
    return v @ torch.diag_embed(fn(w)) @ torch.linalg.inv(v)


def _denman_beavers(a: torch.Tensor, max_iter: int = 60) -> tuple[torch.Tensor, bool]:
    """Principal square root by the (product-form) Denman-Beavers iteration; works for defective matrices."""
    n = a.shape[-1]
    eye = torch.eye(n, dtype=a.dtype, device=a.device).expand_as(a)
    m, y = a, a
    real = a.real.dtype if a.is_complex() else a.dtype
    tol = 10 * n * torch.finfo(real).eps
    for _ in range(max_iter):
        m_inv = torch.linalg.inv(m)
        y_new = 0.5 * y @ (eye + m_inv)
        m = 0.5 * (eye + 0.5 * (m + m_inv))
        delta = torch.linalg.matrix_norm(y_new - y, ord=1) / torch.linalg.matrix_norm(y_new, ord=1).clamp_min(1e-300)
        y = y_new
        if not bool(torch.isfinite(y).all()):
            return y, False
        if bool((delta <= tol).all()):
            return y, True
    return y, bool((torch.linalg.matrix_norm(y @ y - a, ord=1) <= 1e3 * tol * torch.linalg.matrix_norm(a, ord=1)).all())


def _sqrtm(a: torch.Tensor) -> torch.Tensor:
    y, ok = _denman_beavers(a)
    return y if ok else _eig_fn(a.to(torch.complex128 if a.dtype in (torch.float64, torch.complex128) else torch.complex64), torch.sqrt)


def _logm(a: torch.Tensor) -> torch.Tensor:
    """Inverse scaling and squaring: take square roots until near I, then the atanh series, then scale back."""
    n = a.shape[-1]
    eye = torch.eye(n, dtype=a.dtype, device=a.device).expand_as(a)
    k = 0
    while k < 60 and bool((torch.linalg.matrix_norm(a - eye, ord=1) > 0.25).any()):
        a, ok = _denman_beavers(a)
        if not ok:
            return _eig_fn(a, torch.log) * (2.0**k)
        k += 1
    w = torch.linalg.solve(a + eye, a - eye)  # (A - I)(A + I)^{-1}; A and (A + I)^{-1} commute
    w2 = w @ w
    term, out = w, w.clone()
    for j in range(3, 61, 2):
        term = term @ w2
        out = out + term / j
        if bool((torch.linalg.matrix_norm(term, ord=1) / j < 1e-18).all()):
            break
    return 2.0 * out * (2.0**k)


def logm(input: Any, name: str | None = None) -> torch.Tensor:  # noqa: A002 - TF's argument name
    """Computes the matrix logarithm of one or more square matrices.

    `input` is complex64/complex128 of shape `[..., M, M]`; returns the
    principal logarithm with the same shape and dtype.
    """
    a = _to_tensor(input, name="input")
    if not a.is_complex():
        raise TypeError(
            f"logm: Value for attr 'T' of {a.dtype} is not in the list of allowed values: complex64, complex128. "
            "Cast `input` to a complex dtype."
        )
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"logm: `input` must be a batch of square matrices; got shape {tuple(a.shape)}.")
    return _logm(a)


def sqrtm(input: Any, name: str | None = None) -> torch.Tensor:  # noqa: A002 - TF's argument name
    """Computes the matrix square root of one or more square matrices.

    Returns the principal square root with the same shape and dtype as `input`.
    """
    a = _to_tensor(input, name="input")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"sqrtm: `input` must be a batch of square matrices; got shape {tuple(a.shape)}.")
    out = _sqrtm(a)
    return out if a.is_complex() else out.real.to(a.dtype)


def eigh_tridiagonal(
    alpha: Any,
    beta: Any,
    eigvals_only: bool = True,
    select: str = "a",
    select_range: Any = None,
    tol: Any = None,
    name: str | None = None,
) -> Any:
    """Computes the eigenvalues of a Hermitian tridiagonal matrix.

    `alpha` is the diagonal (length `n`), `beta` the first off-diagonal
    (length `n-1`). `select` is `'a'` (all), `'v'` (eigenvalues in the
    interval `(select_range[0], select_range[1]]`) or `'i'` (eigenvalues with
    index `select_range[0] <= i <= select_range[1]`). Returns the eigenvalues in
    ascending order, and with `eigvals_only=False` also the eigenvectors as
    columns: `(eig_vals, eig_vectors)`.
    """
    alpha = _to_tensor(alpha, name="alpha")
    beta = _to_tensor(beta, name="beta", device=alpha.device)
    if alpha.ndim != 1 or beta.ndim != 1:
        raise ValueError(f"Only 1-D alpha and beta supported; got shapes {tuple(alpha.shape)} and {tuple(beta.shape)}.")
    n = alpha.shape[0]
    if beta.shape[0] != n - 1 and n > 0:
        raise ValueError(f"beta must have length {n - 1} for alpha of length {n}; got {beta.shape[0]}.")
    if select not in ("a", "v", "i"):
        raise ValueError(f"Invalid select: {select!r}; expected 'a', 'v' or 'i'.")
    dtype = beta.dtype if beta.is_complex() else alpha.dtype
    a = torch.diag_embed(alpha.to(dtype))
    if n > 1:
        a = a + torch.diag_embed(beta.to(dtype), -1) + torch.diag_embed(beta.to(dtype).conj(), 1)
    w, v = torch.linalg.eigh(a)
    keep = torch.ones(n, dtype=torch.bool, device=w.device)
    if select == "v":
        lo, hi = (float(t) for t in select_range)
        keep = (w > lo) & (w <= hi)
    elif select == "i":
        lo, hi = (int(t) for t in select_range)
        idx = torch.arange(n, device=w.device)
        keep = (idx >= lo) & (idx <= hi)
    w = w[keep].to(alpha.real.dtype if alpha.is_complex() else alpha.dtype)
    if eigvals_only:
        return w
    return w, v[:, keep]


CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def conjugate_gradient(
    operator: Any,
    rhs: Any,
    preconditioner: Any = None,
    x: Any = None,
    tol: float = 1e-05,
    max_iter: int = 20,
    name: str = "conjugate_gradient",
) -> CGState:
    """Conjugate gradient solver for `A x = rhs` with a self-adjoint positive definite `LinearOperator`.

    Returns a namedtuple `CGState(i, x, r, p, gamma)`: iterations run, the
    solution, the residual, the search direction and `r^H q`.

    Raises:
      ValueError: If `operator` is not hinted self-adjoint and positive definite.
    """
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError(
            "Expected a self-adjoint, positive definite operator; construct it with is_self_adjoint=True and "
            "is_positive_definite=True."
        )
    rhs = _to_tensor(rhs, name="rhs", device=operator._tensor_device)

    def dot(a, b):
        return (a.conj() * b).sum(-1) if a.is_complex() else (a * b).sum(-1)

    batch = torch.broadcast_shapes(rhs.shape[:-1], tuple(operator.batch_shape.as_list()))
    if preconditioner is not None:
        batch = torch.broadcast_shapes(batch, tuple(preconditioner.batch_shape.as_list()))
    r0 = rhs.expand(*batch, rhs.shape[-1])
    tol = tol * torch.linalg.vector_norm(r0, dim=-1)
    if x is None:
        x = torch.zeros(*batch, rhs.shape[-1], dtype=rhs.dtype, device=rhs.device)
    else:
        x = _to_tensor(x, dtype=rhs.dtype, name="x", device=rhs.device)
        r0 = rhs - operator.matvec(x)
    p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
    state = CGState(torch.tensor(0, dtype=torch.int32, device=rhs.device), x, r0, p0, dot(r0, p0))
    i = 0
    while i < max_iter and bool((torch.linalg.vector_norm(state.r, dim=-1) > tol).any()):
        z = operator.matvec(state.p)
        alpha = state.gamma / dot(state.p, z)
        xn = state.x + alpha[..., None] * state.p
        r = state.r - alpha[..., None] * z
        q = r if preconditioner is None else preconditioner.matvec(r)
        gamma = dot(r, q)
        beta = gamma / state.gamma
        p = q + beta[..., None] * state.p
        i += 1
        state = CGState(torch.tensor(i, dtype=torch.int32, device=rhs.device), xn, r, p, gamma)
    return state
