"""Householder reflection and permutation `LinearOperator`s (TF 2.15 semantics)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.linalg._linear_operator import LinearOperator
from torchestimator.linalg._linear_operator_util import (
    _adj,
    _check_hints,
    _check_min_rank,
    _invalid_argument,
    _tensor_shape,
    _to_tensor,
)

__all__ = ["LinearOperatorHouseholder", "LinearOperatorPermutation"]


class LinearOperatorHouseholder(LinearOperator):
    """`LinearOperator` acting like a [batch] of Householder transformations.

    `A = I - 2 v v^H / ||v||^2` for `v = reflection_axis`; always self-adjoint,
    non positive definite, and its own inverse.
    """

    _param_ndims = {"reflection_axis": 1}

    def __init__(
        self,
        reflection_axis: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorHouseholder",
    ) -> None:
        """Initialize a `LinearOperatorHouseholder` from `reflection_axis` of shape `[B1,...,Bb, N]`."""
        parameters = dict(
            reflection_axis=reflection_axis, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        self._reflection_axis = _check_min_rank(
            _to_tensor(reflection_axis, name="reflection_axis"), 1, "reflection_axis")
        _check_hints(
            (is_self_adjoint is False, "A Householder operator is always self adjoint."),
            (is_positive_definite is True, "A Householder operator is always non-positive definite."),
            (is_square is False, "A Householder operator is always square."),
        )
        super().__init__(
            dtype=self._reflection_axis.dtype, is_non_singular=is_non_singular, is_self_adjoint=True,
            is_positive_definite=False, is_square=True, parameters=parameters, name=name,
        )

    @property
    def reflection_axis(self) -> torch.Tensor:
        """The reflection axis `v`."""
        return self._reflection_axis

    def _shape(self):
        s = list(self._reflection_axis.shape)
        return _tensor_shape(s + s[-1:])

    def _assert_non_singular(self):
        return None

    def _assert_positive_definite(self):
        raise _invalid_argument(f"{self.name}: Householder operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return None

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _normalized(self):
        v = self._reflection_axis
        sq = (v.abs() ** 2).sum(-1, keepdim=True)
        return v * torch.rsqrt(torch.clamp(sq, min=1e-12)).to(v.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        mat = self._normalized()[..., None]
        return x - 2 * mat * torch.matmul(_adj(mat), x)

    def _trace(self):
        return (self.domain_dimension - 2) * torch.ones(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _determinant(self):
        return -torch.ones(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _log_abs_determinant(self):
        return torch.zeros(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        mat = self._normalized()[..., None]
        m = -2 * torch.matmul(mat, _adj(mat))
        return m + torch.eye(m.shape[-1], dtype=m.dtype, device=m.device)

    def _diag_part(self):
        v = self._normalized()
        return 1.0 - 2 * v * (v.conj() if v.is_complex() else v)

    def _eigvals(self):
        s = list(self._reflection_axis.shape)
        ones = torch.ones(s, dtype=self.dtype, device=self._tensor_device)
        return torch.cat([-ones[..., :1], ones[..., 1:]], -1)

    def _cond(self):
        return torch.ones(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)


class LinearOperatorPermutation(LinearOperator):
    """`LinearOperator` acting like a [batch] of permutation matrices.

    Row `i` of the matrix is the `perm[i]`-th unit vector, so `A x = x[perm]`.
    """

    _param_ndims = {"perm": 1}

    def __init__(
        self,
        perm: Any,
        dtype: Any = torch.float32,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorPermutation",
    ) -> None:
        """Initialize a `LinearOperatorPermutation` from an integer `perm` of shape `[B1,...,Bb, N]`."""
        parameters = dict(
            perm=perm, dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        self._perm = _to_tensor(perm, name="perm")
        if self._perm.ndim < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {self._perm!r}.")
        if self._perm.is_floating_point() or self._perm.is_complex() or self._perm.dtype == torch.bool:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {self._perm!r}.")
        n = self._perm.shape[-1]
        if bool((torch.sort(self._perm, dim=-1).values != torch.arange(n, device=self._perm.device)).any()):
            raise ValueError(f"Argument `perm` must be a vector of unique integers from 0 to {n - 1}.")
        if is_non_singular is False:
            raise ValueError(
                "A Permutation operator is always non-singular. Expected argument `is_non_singular` to be True. "
                f"Received: {is_non_singular}."
            )
        if is_square is False:
            raise ValueError(
                f"A Permutation operator is always square. Expected argument `is_square` to be True. Received: {is_square}."
            )
        super().__init__(
            dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=True, parameters=parameters, name=name,
        )

    @property
    def perm(self) -> torch.Tensor:
        """The permutation vector."""
        return self._perm

    def _shape(self):
        s = list(self._perm.shape)
        return _tensor_shape(s + s[-1:])

    def _assert_non_singular(self):
        return None

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        perm = self._perm.long()
        if adjoint and not self.is_self_adjoint:
            perm = torch.argsort(perm, dim=-1)
        x = _adj(x) if adjoint_arg else x
        batch = torch.broadcast_shapes(x.shape[:-2], perm.shape[:-1])
        x = x.expand(*batch, *x.shape[-2:])
        perm = perm.expand(*batch, perm.shape[-1])
        return torch.gather(x, -2, perm[..., None].expand(*batch, perm.shape[-1], x.shape[-1]))

    def _log_abs_determinant(self):
        return torch.zeros(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        n = self._perm.shape[-1]
        return (torch.arange(n, device=self._perm.device) == self._perm.long()[..., None]).to(self.dtype)

    def _diag_part(self):
        n = self._perm.shape[-1]
        return (torch.arange(n, device=self._perm.device) == self._perm.long()).to(self.dtype)

    def _cond(self):
        return torch.ones(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)
