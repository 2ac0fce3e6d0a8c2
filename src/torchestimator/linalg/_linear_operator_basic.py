"""Dense, diagonal and lower-triangular `LinearOperator`s (TF 2.15 semantics)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.linalg._linear_operator import LinearOperator
from torchestimator.linalg._linear_operator_util import (
    _FLOATS,
    _adj,
    _check_min_rank,
    _combined_non_singular_hint,
    _commuting_hint,
    _invalid_argument,
    _real_diagonal_self_adjoint_hint,
    _set_diag,
    _tensor_shape,
    _to_tensor,
)

__all__ = [
    "LinearOperatorDiag",
    "LinearOperatorFullMatrix",
    "LinearOperatorLowerTriangular",
]


class LinearOperatorFullMatrix(LinearOperator):
    """`LinearOperator` that wraps a [batch] matrix.

    This operator wraps a [batch] matrix `A` (which is a `Tensor`) with shape
    `[B1,...,Bb, M, N]` for some `b >= 0`.
    """

    _param_ndims = {"matrix": 2}

    def __init__(
        self,
        matrix: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorFullMatrix",
    ) -> None:
        """Initialize a `LinearOperatorFullMatrix` from a float/complex `Tensor` of rank >= 2."""
        parameters = dict(
            matrix=matrix,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._matrix = _to_tensor(matrix, name="matrix")
        if self._matrix.dtype not in _FLOATS:
            raise TypeError(f"Argument `matrix` must have dtype in {list(_FLOATS)}. Received: {self._matrix.dtype}.")
        if self._matrix.ndim < 2:
            raise ValueError(f"Argument `matrix` must have at least 2 dimensions. Received: shape {tuple(self._matrix.shape)}.")
        super().__init__(
            dtype=self._matrix.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def matrix(self) -> torch.Tensor:
        """The matrix defining this operator."""
        return self._matrix

    def _shape(self):
        return _tensor_shape(list(self._matrix.shape))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        a = _adj(self._matrix) if adjoint else self._matrix
        return torch.matmul(a, _adj(x) if adjoint_arg else x)

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """`LinearOperator` acting like a [batch] square diagonal matrix.

    This operator acts like a [batch] diagonal matrix `A` with shape
    `[B1,...,Bb, N, N]`; `diag` has shape `[B1,...,Bb, N]`.
    """

    _param_ndims = {"diag": 1}

    def __init__(
        self,
        diag: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorDiag",
    ) -> None:
        """Initialize a `LinearOperatorDiag` from a `Tensor` `diag` of shape `[B1,...,Bb, N]`."""
        parameters = dict(
            diag=diag,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._diag = _check_min_rank(_to_tensor(diag, name="diag"), 1, "diag")
        is_self_adjoint = _real_diagonal_self_adjoint_hint(self._diag, is_self_adjoint)
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(
            dtype=self._diag.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    def _check_diag(self, diag):
        _check_min_rank(diag, 1, "diag")

    @property
    def diag(self) -> torch.Tensor:
        """The diagonal of this operator."""
        return self._diag

    def _shape(self):
        s = list(self._diag.shape)
        return _tensor_shape(s + s[-1:])

    def _linop_inverse(self):
        return LinearOperatorDiag(
            1.0 / self.diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_matmul(self, left_operator, right_operator):
        hints = dict(
            is_non_singular=_combined_non_singular_hint(left_operator, right_operator),
            is_self_adjoint=_commuting_hint(left_operator, right_operator, "is_self_adjoint"),
        )
        pd = _commuting_hint(left_operator, right_operator, "is_positive_definite")
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(left_operator.diag * right_operator.diag, is_positive_definite=pd, is_square=True, **hints)
        if hasattr(right_operator, "_ones_diag") and hasattr(right_operator, "multiplier"):
            return LinearOperatorDiag(
                left_operator.diag * right_operator.multiplier, is_positive_definite=pd, is_square=True, **hints
            )
        if isinstance(right_operator, LinearOperatorLowerTriangular):
            return LinearOperatorLowerTriangular(
                left_operator.diag[..., None] * right_operator.to_dense(), is_positive_definite=None, is_square=True, **hints
            )
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        hints = dict(
            is_non_singular=_combined_non_singular_hint(left_operator, right_operator),
            is_self_adjoint=_commuting_hint(left_operator, right_operator, "is_self_adjoint"),
        )
        pd = _commuting_hint(left_operator, right_operator, "is_positive_definite")
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(right_operator.diag / left_operator.diag, is_positive_definite=pd, is_square=True, **hints)
        if hasattr(right_operator, "_ones_diag") and hasattr(right_operator, "multiplier"):
            return LinearOperatorDiag(
                right_operator.multiplier / left_operator.diag, is_positive_definite=pd, is_square=True, **hints
            )
        if isinstance(right_operator, LinearOperatorLowerTriangular):
            return LinearOperatorLowerTriangular(
                right_operator.to_dense() / left_operator.diag[..., None], is_positive_definite=None, is_square=True, **hints
            )
        return super()._linop_solve(left_operator, right_operator)

    def _assert_non_singular(self):
        if bool((self._diag.abs() == 0).any()):
            raise _invalid_argument(f"{self.name}: Singular operator:  Diagonal contained zero values.")

    def _assert_positive_definite(self):
        if not bool((self._diag.real > 0).all()):
            if self.dtype.is_complex:
                msg = "Diagonal operator had diagonal entries with non-positive real part, thus was not positive definite."
            else:
                msg = "Real diagonal operator had non-positive diagonal entries, thus was not positive definite."
            raise _invalid_argument(f"{self.name}: {msg}")

    def _assert_self_adjoint(self):
        if self._diag.is_complex() and bool((self._diag.imag != 0).any()):
            raise _invalid_argument(
                f"{self.name}: This diagonal operator contained non-zero imaginary values.   Thus it was not self-adjoint."
            )

    def _linop_adjoint(self):
        d = self.diag.conj().resolve_conj() if self.diag.is_complex() else self.diag
        return LinearOperatorDiag(
            d,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorDiag(
            torch.sqrt(self.diag), is_non_singular=True, is_self_adjoint=True, is_positive_definite=True, is_square=True
        )

    def _dterm(self, adjoint):
        return self._diag.conj() if adjoint and self._diag.is_complex() else self._diag

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        return self._dterm(adjoint).unsqueeze(-1) * x

    def _matvec(self, x, adjoint=False):
        return self._dterm(adjoint) * x

    def _determinant(self):
        return torch.prod(self._diag, dim=-1)

    def _log_abs_determinant(self):
        return torch.log(torch.abs(self._diag)).sum(-1).to(self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adj(rhs) if adjoint_arg else rhs
        return rhs * (1.0 / self._dterm(adjoint)).unsqueeze(-1)

    def _to_dense(self):
        return torch.diag_embed(self._diag)

    def _diag_part(self):
        return self.diag

    def _add_to_tensor(self, x):
        return _set_diag(x, self._diag + torch.diagonal(x, dim1=-2, dim2=-1))

    def _eigvals(self):
        return self.diag

    def _cond(self):
        a = torch.abs(self.diag)
        return a.max(dim=-1).values / a.min(dim=-1).values


class LinearOperatorLowerTriangular(LinearOperator):
    """`LinearOperator` acting like a [batch] square lower triangular matrix.

    Only the lower triangle of `tril` is used; the strictly upper triangle is ignored.
    """

    _param_ndims = {"tril": 2}

    def __init__(
        self,
        tril: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorLowerTriangular",
    ) -> None:
        """Initialize a `LinearOperatorLowerTriangular` from `tril` of shape `[B1,...,Bb, N, N]`."""
        parameters = dict(
            tril=tril,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = _check_min_rank(_to_tensor(tril, name="tril"), 2, "tril")
        super().__init__(
            dtype=self._tril.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    @property
    def tril(self) -> torch.Tensor:
        """The lower triangular matrix defining this operator."""
        return self._tril

    def _get_tril(self):
        return torch.tril(self._tril)

    def _get_diag(self):
        return torch.diagonal(self._tril, dim1=-2, dim2=-1)

    def _shape(self):
        return _tensor_shape(list(self._tril.shape))

    def _assert_non_singular(self):
        if bool((self._get_diag().abs() == 0).any()):
            raise _invalid_argument(f"{self.name}: Singular operator:  Diagonal contained zero values.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        a = _adj(self._get_tril()) if adjoint else self._get_tril()
        return torch.matmul(a, _adj(x) if adjoint_arg else x)

    def _linop_matmul(self, left_operator, right_operator):
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorLowerTriangular(
                left_operator.to_dense() * right_operator.diag.unsqueeze(-2),
                is_non_singular=_combined_non_singular_hint(right_operator, left_operator),
                is_self_adjoint=_commuting_hint(right_operator, left_operator, "is_self_adjoint"),
                is_positive_definite=None,
                is_square=True,
            )
        return super()._linop_matmul(left_operator, right_operator)

    def _determinant(self):
        return torch.prod(self._get_diag(), dim=-1)

    def _log_abs_determinant(self):
        return torch.log(torch.abs(self._get_diag())).sum(-1).to(self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adj(rhs) if adjoint_arg else rhs
        tril = self._get_tril()
        batch = torch.broadcast_shapes(tril.shape[:-2], rhs.shape[:-2])
        tril = tril.expand(*batch, *tril.shape[-2:])
        rhs = rhs.expand(*batch, *rhs.shape[-2:])
        if adjoint:
            return torch.linalg.solve_triangular(_adj(tril), rhs, upper=True)
        return torch.linalg.solve_triangular(tril, rhs, upper=False)

    def _to_dense(self):
        return self._get_tril()

    def _eigvals(self):
        return self._get_diag()
