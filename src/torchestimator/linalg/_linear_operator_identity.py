"""Identity, scaled identity and zero `LinearOperator`s (TF 2.15 semantics)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.linalg._linear_operator import LinearOperator
from torchestimator.linalg._linear_operator_basic import LinearOperatorDiag
from torchestimator.linalg._linear_operator_util import (
    _adj,
    _check_hints,
    _combined_non_singular_hint,
    _commuting_hint,
    _invalid_argument,
    _real_diagonal_self_adjoint_hint,
    _set_diag,
    _static_int,
    _static_shape,
    _tensor_shape,
    _to_tensor,
)

__all__ = ["LinearOperatorIdentity", "LinearOperatorScaledIdentity", "LinearOperatorZeros"]


class _BaseIdentity(LinearOperator):
    def _min_matrix_dim(self) -> int:
        return min(self.domain_dimension, self.range_dimension)

    def _ones_diag(self) -> torch.Tensor:
        return torch.ones(self.batch_shape.as_list() + [self._min_matrix_dim()], dtype=self.dtype, device=self._tensor_device)

    def _batch_ones(self) -> torch.Tensor:
        return torch.ones(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _possibly_broadcast_batch_shape(self, x: torch.Tensor) -> torch.Tensor:
        if getattr(self, "_batch_shape_arg", None) is None:
            return x
        special = self.batch_shape.as_list() + [1, 1]
        out_shape = torch.broadcast_shapes(tuple(x.shape), tuple(special))
        if tuple(out_shape) == tuple(x.shape):
            return x
        return x + torch.zeros(special, dtype=self.dtype, device=x.device)

    def _check_proper(self, x: torch.Tensor) -> None:
        if getattr(self, "_assert_proper_shapes", False) and x.shape[-2] != self.domain_dimension:
            raise _invalid_argument(
                f"{self.name}: Incompatible matrix dimensions: operator has domain dimension {self.domain_dimension}, "
                f"argument has {x.shape[-2]} rows."
            )


class LinearOperatorIdentity(_BaseIdentity):
    """`LinearOperator` acting like a [batch] square identity matrix.

    This operator acts like a [batch] identity matrix `A` with shape
    `[B1,...,Bb, N, N]`; `batch_shape=None` means no batch, and matmul then
    broadcasts against the argument without copying.
    """

    _param_ndims = {"batch_shape": None}

    def __init__(
        self,
        num_rows: Any,
        batch_shape: Any = None,
        dtype: Any = None,
        is_non_singular: bool = True,
        is_self_adjoint: bool = True,
        is_positive_definite: bool = True,
        is_square: bool = True,
        assert_proper_shapes: bool = False,
        name: str = "LinearOperatorIdentity",
    ) -> None:
        """Initialize a `LinearOperatorIdentity` with `num_rows` rows (a non-negative 0-D integer)."""
        parameters = dict(
            num_rows=num_rows,
            batch_shape=batch_shape,
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            assert_proper_shapes=assert_proper_shapes,
            name=name,
        )
        dtype = dtype or torch.float32
        self._assert_proper_shapes = assert_proper_shapes
        _check_hints(
            (not is_self_adjoint, "An identity operator is always self adjoint."),
            (not is_non_singular, "An identity operator is always non-singular."),
            (not is_positive_definite, "An identity operator is always positive-definite."),
            (not is_square, "An identity operator is always square."),
        )
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )
        self._num_rows = _static_int(num_rows, "num_rows")
        self._batch_shape_arg = _static_shape(batch_shape)

    def _shape(self):
        return _tensor_shape((self._batch_shape_arg or []) + [self._num_rows, self._num_rows])

    def _linop_adjoint(self):
        return self

    def _linop_cholesky(self):
        return LinearOperatorIdentity(
            num_rows=self._num_rows, batch_shape=self._batch_shape_arg, dtype=self.dtype
        )

    def _linop_inverse(self):
        return self

    def _linop_matmul(self, left_operator, right_operator):
        return right_operator

    def _linop_solve(self, left_operator, right_operator):
        return right_operator

    def _assert_non_singular(self):
        return None

    def _assert_positive_definite(self):
        return None

    def _assert_self_adjoint(self):
        return None

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        self._check_proper(x)
        return self._possibly_broadcast_batch_shape(x)

    def _determinant(self):
        return self._batch_ones()

    def _log_abs_determinant(self):
        return torch.zeros(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _trace(self):
        return self._min_matrix_dim() * self._batch_ones()

    def _diag_part(self):
        return self._ones_diag()

    def add_to_tensor(self, mat: Any, name: str = "add_to_tensor") -> torch.Tensor:
        """Add matrix represented by this operator to `mat`.  Equiv to `I + mat`."""
        mat = _to_tensor(mat, name="mat", device=self._tensor_device)
        return _set_diag(mat, 1 + torch.diagonal(mat, dim1=-2, dim2=-1))

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return self._batch_ones()


class LinearOperatorScaledIdentity(_BaseIdentity):
    """`LinearOperator` acting like a scaled [batch] identity matrix `A = c I`.

    `multiplier` has shape `[B1,...,Bb]` and gives the batch shape.
    """

    _param_ndims = {"multiplier": 0}

    def __init__(
        self,
        num_rows: Any,
        multiplier: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        assert_proper_shapes: bool = False,
        name: str = "LinearOperatorScaledIdentity",
    ) -> None:
        """Initialize a `LinearOperatorScaledIdentity` with `num_rows` rows and scale `multiplier`."""
        parameters = dict(
            num_rows=num_rows,
            multiplier=multiplier,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            assert_proper_shapes=assert_proper_shapes,
            name=name,
        )
        self._assert_proper_shapes = assert_proper_shapes
        self._multiplier = _to_tensor(multiplier, name="multiplier")
        is_self_adjoint = _real_diagonal_self_adjoint_hint(self._multiplier, is_self_adjoint)
        _check_hints((not is_square, "A ScaledIdentity operator is always square."))
        super().__init__(
            dtype=self._multiplier.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )
        self._num_rows = _static_int(num_rows, "num_rows")

    @property
    def multiplier(self) -> torch.Tensor:
        """The [batch] scalar `Tensor`, `c` in `cI`."""
        return self._multiplier

    def _shape(self):
        return _tensor_shape(list(self._multiplier.shape) + [self._num_rows, self._num_rows])

    def _mult_matrix(self, conjugate=False):
        m = self._multiplier[..., None, None]
        return m.conj() if conjugate and m.is_complex() else m

    def _assert_non_singular(self):
        if not bool((self._multiplier.abs() > 0).all()):
            raise _invalid_argument(f"{self.name}: LinearOperator was singular")

    def _assert_positive_definite(self):
        if not bool((self._multiplier.real > 0).all()):
            raise _invalid_argument(f"{self.name}: LinearOperator was not positive definite.")

    def _assert_self_adjoint(self):
        if self._multiplier.is_complex() and bool((self._multiplier.imag != 0).any()):
            raise _invalid_argument(f"{self.name}: LinearOperator was not self-adjoint")

    def _linop_adjoint(self):
        m = self._multiplier.conj().resolve_conj() if self._multiplier.is_complex() else self._multiplier
        return LinearOperatorScaledIdentity(
            self._num_rows, m, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(
            self._num_rows, torch.sqrt(self._multiplier), is_non_singular=True, is_self_adjoint=True,
            is_positive_definite=True, is_square=True,
        )

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(
            self._num_rows, 1.0 / self._multiplier, is_non_singular=self.is_non_singular, is_self_adjoint=True,
            is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _linop_matmul(self, left_operator, right_operator):
        hints = dict(
            is_non_singular=_combined_non_singular_hint(left_operator, right_operator),
            is_self_adjoint=_commuting_hint(left_operator, right_operator, "is_self_adjoint"),
            is_positive_definite=_commuting_hint(left_operator, right_operator, "is_positive_definite"),
            is_square=True,
        )
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                left_operator.domain_dimension, left_operator.multiplier * right_operator.multiplier, **hints
            )
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(right_operator.diag * left_operator.multiplier, **hints)
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        hints = dict(
            is_non_singular=_combined_non_singular_hint(left_operator, right_operator),
            is_self_adjoint=_commuting_hint(left_operator, right_operator, "is_self_adjoint"),
            is_positive_definite=_commuting_hint(left_operator, right_operator, "is_positive_definite"),
            is_square=True,
        )
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                left_operator.domain_dimension, right_operator.multiplier / left_operator.multiplier, **hints
            )
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(right_operator.diag / left_operator.multiplier, **hints)
        return super()._linop_solve(left_operator, right_operator)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        self._check_proper(x)
        return x * self._mult_matrix(conjugate=adjoint)

    def _determinant(self):
        return self._multiplier ** self._num_rows

    def _log_abs_determinant(self):
        return (self._num_rows * torch.log(torch.abs(self._multiplier)))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adj(rhs) if adjoint_arg else rhs
        self._check_proper(rhs)
        return rhs / self._mult_matrix(conjugate=adjoint)

    def _trace(self):
        return self._multiplier * self._min_matrix_dim() * self._batch_ones()

    def _diag_part(self):
        return self._ones_diag() * self._multiplier[..., None]

    def add_to_tensor(self, mat: Any, name: str = "add_to_tensor") -> torch.Tensor:
        """Add matrix represented by this operator to `mat`.  Equiv to `cI + mat`."""
        mat = _to_tensor(mat, name="mat", device=self._tensor_device)
        return _set_diag(mat, self._multiplier[..., None] + torch.diagonal(mat, dim1=-2, dim2=-1))

    def _eigvals(self):
        return self._ones_diag() * self._multiplier[..., None]

    def _cond(self):
        device = self._multiplier.device
        one = torch.ones((), dtype=self.dtype, device=device)
        return torch.where(self._multiplier == 0, torch.full((), float("nan"), dtype=self.dtype, device=device), one)


class LinearOperatorZeros(LinearOperator):
    """`LinearOperator` acting like a [batch] zero matrix of shape `[B1,...,Bb, N, M]`."""

    _param_ndims = {"batch_shape": None}

    def __init__(
        self,
        num_rows: Any,
        num_columns: Any = None,
        batch_shape: Any = None,
        dtype: Any = None,
        is_non_singular: bool = False,
        is_self_adjoint: bool = True,
        is_positive_definite: bool = False,
        is_square: bool = True,
        assert_proper_shapes: bool = False,
        name: str = "LinearOperatorZeros",
    ) -> None:
        """Initialize a `LinearOperatorZeros` with `num_rows` rows and `num_columns` (default `num_rows`) columns."""
        parameters = dict(
            num_rows=num_rows,
            num_columns=num_columns,
            batch_shape=batch_shape,
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            assert_proper_shapes=assert_proper_shapes,
            name=name,
        )
        dtype = dtype or torch.float32
        self._assert_proper_shapes = assert_proper_shapes
        _check_hints(
            (not is_self_adjoint and is_square, "A zero operator is always self adjoint."),
            (bool(is_non_singular), "A zero operator is always singular."),
            (bool(is_positive_definite), "A zero operator is always not positive-definite."),
        )
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )
        self._num_rows = _static_int(num_rows, "num_rows")
        self._num_columns = _static_int(num_rows if num_columns is None else num_columns, "num_columns")
        if is_square and self._num_rows != self._num_columns:
            raise ValueError(
                f"LinearOperatorZeros initialized as is_square=True, but got num_rows({self._num_rows}) != "
                f"num_columns({self._num_columns})"
            )
        self._batch_shape_arg = _static_shape(batch_shape)

    def _shape(self):
        return _tensor_shape((self._batch_shape_arg or []) + [self._num_rows, self._num_columns])

    def _assert_non_singular(self):
        raise _invalid_argument(f"{self.name}: Zero operators are always non-invertible.")

    def _assert_positive_definite(self):
        raise _invalid_argument(f"{self.name}: Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return None

    def _possibly_broadcast_batch_shape(self, x):
        return _BaseIdentity._possibly_broadcast_batch_shape(self, x)

    def _zeros_diag(self) -> torch.Tensor:
        shape = self.batch_shape.as_list() + [min(self._num_rows, self._num_columns)]
        return torch.zeros(shape, dtype=self.dtype, device=self._tensor_device)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if self._assert_proper_shapes:
            xx = _adj(x) if adjoint_arg else x
            if xx.shape[-2] != self.domain_dimension:
                raise _invalid_argument(f"{self.name}: Incompatible matrix dimensions.")
        xs = list(x.shape)
        if self.is_square:
            shape = xs[:-2] + ([xs[-1], xs[-2]] if adjoint_arg else xs[-2:])
        else:
            n = self._num_columns if adjoint else self._num_rows
            shape = xs[:-2] + [n, xs[-2] if adjoint_arg else xs[-1]]
        return self._possibly_broadcast_batch_shape(torch.zeros(shape, dtype=x.dtype, device=x.device))

    def _linop_matmul(self, left_operator, right_operator):
        if not left_operator.is_square or not right_operator.is_square:
            raise ValueError(
                "Matmul with non-square `LinearOperator`s or non-square `LinearOperatorZeros` not supported at this time."
            )
        return left_operator

    def _determinant(self):
        return torch.zeros(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _trace(self):
        return torch.zeros(self.batch_shape.as_list(), dtype=self.dtype, device=self._tensor_device)

    def _diag_part(self):
        return self._zeros_diag()

    def add_to_tensor(self, mat: Any, name: str = "add_to_tensor") -> torch.Tensor:
        """Add matrix represented by this operator to `mat`.  Equiv to `0 + mat`."""
        return self._possibly_broadcast_batch_shape(_to_tensor(mat, name="mat", device=self._tensor_device))

    def _to_dense(self):
        return torch.zeros(self.shape.as_list(), dtype=self.dtype, device=self._tensor_device)
