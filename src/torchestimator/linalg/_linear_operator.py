"""`tf.linalg.LinearOperator`: the abstract base of TF's matrix-free operators, on torch.

A `LinearOperator` acts like a (batch) matrix `A` of shape `[B1,...,Bb, M, N]`
without necessarily materialising it. Subclasses override the private hooks
(`_shape`, `_matmul`, and optionally `_solve`, `_determinant`, ...) exactly as
TF 2.15's `linear_operator.py` does; the public methods add TF's hint and
shape/dtype checks.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.loop import op_device
from torchestimator.linalg._linear_operator_util import (
    _expand_batch_index,
    _slice_value,
    _tensors_device,
)

__all__ = ["LinearOperator"]


# ----------------------------------------------------------------------------- helpers


from torchestimator.linalg._linear_operator_util import (  # noqa: F401 - re-exported to sibling modules
    _FLOATS,
    _adj,
    _broadcast_batch,
    _check_compatible,
    _combined_non_singular_hint,
    _commuting_hint,
    _eps,
    _invalid_argument,
    _is_square_pair,
    _matrix_solve_with_broadcast,
    _ModuleLikeMixin,
    _set_diag,
    _static_int,
    _static_shape,
    _te,
    _tensor_shape,
    _to_tensor,
)


class LinearOperator(_ModuleLikeMixin):
    """Base class defining a [batch of] linear operator[s].

    Subclasses of `LinearOperator` provide access to common methods on a
    (batch) matrix, without the need to materialize the matrix. Hints
    (`is_non_singular`, `is_self_adjoint`, `is_positive_definite`, `is_square`)
    are promises about the operator that enable efficient algorithms; `None`
    means unknown.
    """

    def __init__(
        self,
        dtype: Any,
        graph_parents: Any = None,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
        parameters: dict | None = None,
    ) -> None:
        """Initializes the `LinearOperator`, checking that the hints are consistent.

        Raises:
          ValueError: If hints are set incorrectly (e.g. positive definite but
            `is_non_singular=False`).
        """
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._graph_parents = list(graph_parents) if graph_parents is not None else []
        self._dtype = _te().as_dtype(dtype) if dtype is not None else dtype
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = dict(parameters) if parameters is not None else {}
        self._name = name or type(self).__name__

    # ------------------------------------------------------------------ properties
    @property
    def parameters(self) -> dict:
        """Dictionary of parameters used to instantiate this `LinearOperator`."""
        return dict(self._parameters)

    @property
    def dtype(self) -> torch.dtype:
        """The `DType` of `Tensor`s handled by this `LinearOperator`."""
        return self._dtype

    @property
    def name(self) -> str:
        """Name prepended to all ops created by this `LinearOperator`."""
        return self._name

    @property
    def graph_parents(self) -> list:
        """List of graph dependencies of this `LinearOperator` (deprecated)."""
        return self._graph_parents

    @property
    def is_non_singular(self) -> bool | None:
        """Hint: the operator is non-singular."""
        return self._is_non_singular

    @property
    def is_self_adjoint(self) -> bool | None:
        """Hint: the operator equals its hermitian transpose."""
        return self._is_self_adjoint

    @property
    def is_positive_definite(self) -> bool | None:
        """Hint: `x^H A x` has positive real part for all nonzero `x`."""
        return self._is_positive_definite

    @property
    def is_square(self) -> bool | None:
        """Return `True/False` depending on if this operator is square."""
        auto_square_check = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto_square_check:
            raise ValueError(
                f"{self.name}: User set is_square hint to False, but the operator was square."
            )
        if self._is_square_set_or_implied_by_hints is None:
            return auto_square_check
        return self._is_square_set_or_implied_by_hints

    @property
    def _tensor_device(self) -> torch.device | None:
        """Where this operator's tensors are (those of its sub-operators for a composite), and so
        where the tensors it makes go; one with none (an identity, zeros) makes them where TF's
        ops put tensors (`op_device`: the GPU when there is one; None -- torch's default device
        -- on the host)."""
        found = _tensors_device(vars(self).values())
        return found if found is not None else op_device()

    def _shape(self):
        raise NotImplementedError(f"{type(self).__name__} must implement `_shape`.")

    @property
    def shape(self):
        """`TensorShape` of this `LinearOperator`: `[B1,...,Bb, M, N]`."""
        return self._shape()

    def shape_tensor(self, name: str = "shape_tensor") -> torch.Tensor:
        """Shape of this `LinearOperator`, determined at runtime, as an `int32` `Tensor`."""
        return torch.tensor(self.shape.as_list(), dtype=torch.int32, device=self._tensor_device)

    @property
    def batch_shape(self):
        """`TensorShape` of batch dimensions of this `LinearOperator`: `[B1,...,Bb]`."""
        return self.shape[:-2]

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> torch.Tensor:
        """Shape of batch dimensions of this operator, as an `int32` `Tensor`."""
        return torch.tensor(self.batch_shape.as_list(), dtype=torch.int32, device=self._tensor_device)

    @property
    def tensor_rank(self) -> int:
        """Rank (in the sense of tensors) of matrix corresponding to this operator: `b + 2`."""
        return self.shape.rank

    def tensor_rank_tensor(self, name: str = "tensor_rank_tensor") -> torch.Tensor:
        """Rank (in the sense of tensors) of this operator, as an `int32` `Tensor`."""
        return torch.tensor(self.tensor_rank, dtype=torch.int32, device=self._tensor_device)

    @property
    def domain_dimension(self) -> int | None:
        """Dimension (in the sense of vector spaces) of the domain: `N`."""
        return None if self.shape.rank is None else self.shape[-1]

    def domain_dimension_tensor(self, name: str = "domain_dimension_tensor") -> torch.Tensor:
        """Dimension of the domain of this operator, as an `int32` `Tensor`."""
        return torch.tensor(self.domain_dimension, dtype=torch.int32, device=self._tensor_device)

    @property
    def range_dimension(self) -> int | None:
        """Dimension (in the sense of vector spaces) of the range: `M`."""
        return None if self.shape.rank is None else self.shape[-2]

    def range_dimension_tensor(self, name: str = "range_dimension_tensor") -> torch.Tensor:
        """Dimension of the range of this operator, as an `int32` `Tensor`."""
        return torch.tensor(self.range_dimension, dtype=torch.int32, device=self._tensor_device)

    # ------------------------------------------------------------------ assertions
    def _max_condition_number_to_be_non_singular(self) -> float:
        eps = max(100.0, float(self.range_dimension), float(self.domain_dimension)) * _eps(self.dtype)
        return 1.0 / eps

    def _assert_non_singular(self) -> None:
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        s = torch.linalg.svdvals(self.to_dense())
        cond = s.max(dim=-1).values / s.min(dim=-1).values
        if not bool((cond < self._max_condition_number_to_be_non_singular()).all()):
            raise _invalid_argument(f"{self.name}: Singular matrix up to precision epsilon.")
        return None

    def assert_non_singular(self, name: str = "assert_non_singular") -> None:
        """Returns an `Op` that asserts this operator is non singular.

        In eager mode this raises `InvalidArgumentError` right away when the
        condition number is at least `max{100, M, N} / eps`; otherwise returns `None`.
        """
        return self._assert_non_singular()

    def _assert_positive_definite(self) -> None:
        if self.is_self_adjoint:
            chol, info = torch.linalg.cholesky_ex(self.to_dense())
            if bool((info != 0).any()) or not bool((torch.diagonal(chol, dim1=-2, dim2=-1).real > 0).all()):
                raise _invalid_argument(f"{self.name}: Matrix was not positive definite.")
            return None
        raise NotImplementedError(
            f"{self.name}: assert_positive_definite is not implemented for an operator not hinted "
            "`is_self_adjoint=True`; pass is_self_adjoint=True if the matrix is self-adjoint."
        )

    def assert_positive_definite(self, name: str = "assert_positive_definite") -> None:
        """Returns an `Op` that asserts this operator is positive definite.

        In eager mode this raises `InvalidArgumentError` right away when it is not.
        """
        return self._assert_positive_definite()

    def _assert_self_adjoint(self) -> None:
        dense = self.to_dense()
        if not bool(torch.equal(dense, _adj(dense))):
            raise _invalid_argument(f"{self.name}: Matrix was not equal to its adjoint.")
        return None

    def assert_self_adjoint(self, name: str = "assert_self_adjoint") -> None:
        """Returns an `Op` that asserts this operator is self-adjoint (exactly equal to `A^H`)."""
        return self._assert_self_adjoint()

    def _check_input_dtype(self, arg: torch.Tensor) -> None:
        if arg.dtype != self.dtype:
            raise TypeError(
                f"{self.name}: Expected argument to have dtype {self.dtype}.  Found: {arg.dtype} in tensor "
                f"of shape {tuple(arg.shape)}. Cast the argument to {self.dtype}."
            )

    # ------------------------------------------------------------------ matmul / solve
    def _matmul(self, x: torch.Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> torch.Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement `_matmul`.")

    def matmul(self, x: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str = "matmul") -> Any:
        """Transform [batch] matrix `x` with left multiplication:  `x --> Ax`.

        Returns a `LinearOperator` (when `x` is one) or a `Tensor` of shape
        `[..., M, R]` with the same `dtype` as `self`.
        """
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            if (
                right.range_dimension is not None
                and left.domain_dimension is not None
                and right.range_dimension != left.domain_dimension
            ):
                raise ValueError(
                    f"{self.name}: Operators are incompatible. Expected `x` to have dimension "
                    f"{left.domain_dimension} but got {right.range_dimension}."
                )
            return self._linop_matmul(left, right)
        x = _to_tensor(x, name="x", device=self._tensor_device)
        self._check_input_dtype(x)
        self_dim = -2 if adjoint else -1
        arg_dim = -1 if adjoint_arg else -2
        _check_compatible(self.shape[self_dim], x.shape[arg_dim], "`x`", self.name)
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_matmul(self, left_operator: LinearOperator, right_operator: LinearOperator) -> LinearOperator:
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator
        if hasattr(right_operator, "_zeros_diag"):
            if not right_operator.is_square or not left_operator.is_square:
                raise ValueError(
                    "Matmul with non-square `LinearOperator`s or non-square `LinearOperatorZeros` not "
                    "supported at this time."
                )
            return right_operator
        is_square = _is_square_pair(left_operator, right_operator)
        is_non_singular = is_self_adjoint = is_positive_definite = None
        if is_square:
            is_non_singular = _combined_non_singular_hint(left_operator, right_operator)
        elif is_square is False:
            is_non_singular = is_self_adjoint = is_positive_definite = False
        from torchestimator.linalg._linear_operator_composite import (  # lazy: subclass (linalg._linear_operator_composite subclasses LinearOperator, which builds it)
            LinearOperatorComposition,
        )

        return LinearOperatorComposition(
            operators=[left_operator, right_operator],
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
        )

    def __matmul__(self, other: Any) -> Any:
        return self.matmul(other)

    def _matvec(self, x: torch.Tensor, adjoint: bool = False) -> torch.Tensor:
        return self.matmul(x.unsqueeze(-1), adjoint=adjoint).squeeze(-1)

    def matvec(self, x: Any, adjoint: bool = False, name: str = "matvec") -> torch.Tensor:
        """Transform [batch] vector `x` with left multiplication:  `x --> Ax`.

        Returns a `Tensor` with shape `[..., M]` and same `dtype` as `self`.
        """
        x = _to_tensor(x, name="x", device=self._tensor_device)
        self._check_input_dtype(x)
        _check_compatible(self.shape[-2 if adjoint else -1], x.shape[-1], "`x`", self.name)
        return self._matvec(x, adjoint=adjoint)

    def _determinant(self) -> torch.Tensor:
        if self._can_use_cholesky():
            return torch.exp(self.log_abs_determinant())
        return torch.linalg.det(self.to_dense())

    def determinant(self, name: str = "det") -> torch.Tensor:
        """Determinant for every batch member; a `Tensor` of shape `batch_shape`.

        Raises:
          NotImplementedError: If `self.is_square` is `False`.
        """
        if self.is_square is False:
            raise NotImplementedError(
                f"{self.name}: Determinant not implemented for an operator that is expected to not be square."
            )
        return self._determinant()

    def _log_abs_determinant(self) -> torch.Tensor:
        if self._can_use_cholesky():
            d = torch.diagonal(torch.linalg.cholesky(self.to_dense()), dim1=-2, dim2=-1)
            return 2 * torch.log(d).sum(-1).real if d.is_complex() else 2 * torch.log(d).sum(-1)
        return torch.linalg.slogdet(self.to_dense())[1].to(self.dtype)

    def log_abs_determinant(self, name: str = "log_abs_det") -> torch.Tensor:
        """Log absolute value of determinant for every batch member.

        Raises:
          NotImplementedError: If `self.is_square` is `False`.
        """
        if self.is_square is False:
            raise NotImplementedError(
                f"{self.name}: Determinant not implemented for an operator that is expected to not be square."
            )
        return self._log_abs_determinant()

    def _dense_solve(self, rhs: torch.Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> torch.Tensor:
        if self.is_square is False:
            raise NotImplementedError(f"{self.name}: Solve is not yet implemented for non-square operators.")
        rhs = _adj(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            chol, rhs = _broadcast_batch(torch.linalg.cholesky(self.to_dense()), rhs)
            return torch.cholesky_solve(rhs, chol)
        return _matrix_solve_with_broadcast(self.to_dense(), rhs, adjoint=adjoint)

    def _solve(self, rhs: torch.Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> torch.Tensor:
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solve(self, rhs: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str = "solve") -> Any:
        """Solve (exact or approx) `R` (batch) systems of equations: `A X = rhs`.

        Returns a `Tensor` with shape `[..., N, R]` (or a `LinearOperator` when
        `rhs` is one).

        Raises:
          NotImplementedError: If `self.is_non_singular` or `is_square` is False.
        """
        if self.is_non_singular is False:
            raise NotImplementedError(
                f"{self.name}: Exact solve not implemented for an operator that is expected to be singular."
            )
        if self.is_square is False:
            raise NotImplementedError(
                f"{self.name}: Exact solve not implemented for an operator that is expected to not be square."
            )
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            if (
                right.range_dimension is not None
                and left.domain_dimension is not None
                and right.range_dimension != left.domain_dimension
            ):
                raise ValueError(
                    f"{self.name}: Operators are incompatible. Expected `rhs` to have dimension "
                    f"{left.domain_dimension} but got {right.range_dimension}."
                )
            return self._linop_solve(left, right)
        rhs = _to_tensor(rhs, name="rhs", device=self._tensor_device)
        self._check_input_dtype(rhs)
        _check_compatible(self.shape[-1 if adjoint else -2], rhs.shape[-1 if adjoint_arg else -2], "`rhs`", self.name)
        return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_solve(self, left_operator: LinearOperator, right_operator: LinearOperator) -> LinearOperator:
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator.inverse()
        is_square = _is_square_pair(left_operator, right_operator)
        is_non_singular = is_self_adjoint = is_positive_definite = None
        if is_square:
            is_non_singular = _combined_non_singular_hint(left_operator, right_operator)
        elif is_square is False:
            is_non_singular = is_self_adjoint = is_positive_definite = False
        from torchestimator.linalg._linear_operator_composite import (  # lazy: subclass (linalg._linear_operator_composite subclasses LinearOperator, which builds it)
            LinearOperatorComposition,
            LinearOperatorInversion,
        )

        return LinearOperatorComposition(
            operators=[LinearOperatorInversion(left_operator), right_operator],
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
        )

    def _solvevec(self, rhs: torch.Tensor, adjoint: bool = False) -> torch.Tensor:
        return self.solve(rhs.unsqueeze(-1), adjoint=adjoint).squeeze(-1)

    def solvevec(self, rhs: Any, adjoint: bool = False, name: str = "solve") -> torch.Tensor:
        """Solve single equation with best effort: `A X = rhs`; returns shape `[..., N]`.

        Raises:
          NotImplementedError: If `self.is_non_singular` or `is_square` is False.
        """
        rhs = _to_tensor(rhs, name="rhs", device=self._tensor_device)
        self._check_input_dtype(rhs)
        _check_compatible(self.shape[-1 if adjoint else -2], rhs.shape[-1], "`rhs`", self.name)
        return self._solvevec(rhs, adjoint=adjoint)

    # ------------------------------------------------------------------ derived operators
    def adjoint(self, name: str = "adjoint") -> LinearOperator:
        """Returns the adjoint of the current `LinearOperator` (`A^H`); `self.H` is the same."""
        if self.is_self_adjoint is True:
            return self
        return self._linop_adjoint()

    H = property(adjoint, None)

    def _linop_adjoint(self) -> LinearOperator:
        from torchestimator.linalg._linear_operator_composite import (  # lazy: subclass (linalg._linear_operator_composite subclasses LinearOperator, which builds it)
            LinearOperatorAdjoint,
        )

        return LinearOperatorAdjoint(
            self,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=self.is_square,
        )

    def inverse(self, name: str = "inverse") -> LinearOperator:
        """Returns the Inverse of this `LinearOperator`.

        Raises:
          ValueError: When the `LinearOperator` is hinted non-square or singular.
        """
        if self.is_square is False:
            raise ValueError(f"{self.name}: Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError(f"{self.name}: Cannot take the Inverse: This operator represents a singular matrix.")
        return self._linop_inverse()

    def _linop_inverse(self) -> LinearOperator:
        from torchestimator.linalg._linear_operator_composite import (  # lazy: subclass (linalg._linear_operator_composite subclasses LinearOperator, which builds it)
            LinearOperatorInversion,
        )

        return LinearOperatorInversion(
            self,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=self.is_square,
        )

    def cholesky(self, name: str = "cholesky") -> LinearOperator:
        """Returns a Cholesky factor `L` (a `LinearOperator`) with `A = L L^H`.

        Raises:
          ValueError: When the `LinearOperator` is not hinted to be positive
            definite and self adjoint.
        """
        if not self._can_use_cholesky():
            raise ValueError(
                f"{self.name}: Cannot take the Cholesky decomposition: Not a positive definite self adjoint "
                "matrix. Construct the operator with is_self_adjoint=True and is_positive_definite=True."
            )
        return self._linop_cholesky()

    def _linop_cholesky(self) -> LinearOperator:
        from torchestimator.linalg._linear_operator_basic import (  # lazy: subclass (linalg._linear_operator_basic subclasses LinearOperator, which builds it)
            LinearOperatorLowerTriangular,
        )

        return LinearOperatorLowerTriangular(
            torch.linalg.cholesky(self.to_dense()), is_non_singular=True, is_self_adjoint=False, is_square=True
        )

    # ------------------------------------------------------------------ dense views
    def _to_dense(self) -> torch.Tensor:
        n = self.domain_dimension
        eye = torch.eye(n, dtype=self.dtype, device=self._tensor_device).expand(*self.batch_shape.as_list(), n, n)
        return self.matmul(eye)

    def to_dense(self, name: str = "to_dense") -> torch.Tensor:
        """Return a dense (batch) matrix representing this operator."""
        return self._to_dense()

    def _diag_part(self) -> torch.Tensor:
        return torch.diagonal(self.to_dense(), dim1=-2, dim2=-1)

    def diag_part(self, name: str = "diag_part") -> torch.Tensor:
        """Efficiently get the [batch] diagonal part of this operator: shape `[B1,...,Bb, min(M, N)]`."""
        return self._diag_part()

    def _trace(self) -> torch.Tensor:
        return self.diag_part().sum(-1)

    def trace(self, name: str = "trace") -> torch.Tensor:
        """Trace of the linear operator, equal to sum of `self.diag_part()`; shape `[B1,...,Bb]`."""
        return self._trace()

    def _add_to_tensor(self, x: torch.Tensor) -> torch.Tensor:
        return self.to_dense() + x

    def add_to_tensor(self, x: Any, name: str = "add_to_tensor") -> torch.Tensor:
        """Add matrix represented by this operator to `x`.  Equivalent to `A + x`."""
        x = _to_tensor(x, name="x", device=self._tensor_device)
        self._check_input_dtype(x)
        return self._add_to_tensor(x)

    def _eigvals(self) -> torch.Tensor:
        return torch.linalg.eigvalsh(self.to_dense()).to(self.dtype)

    def eigvals(self, name: str = "eigvals") -> torch.Tensor:
        """Returns the eigenvalues of this linear operator (self-adjoint operators only).

        Raises:
          NotImplementedError: If the operator is not hinted `is_self_adjoint=True`.
        """
        if not self.is_self_adjoint:
            raise NotImplementedError(
                f"{self.name}: Only self-adjoint matrices are supported. Construct the operator with "
                "is_self_adjoint=True if it is self-adjoint."
            )
        return self._eigvals()

    def _cond(self) -> torch.Tensor:
        if not self.is_self_adjoint:
            vals = torch.linalg.svdvals(self.to_dense())
        else:
            vals = torch.abs(self._eigvals())
        return vals.max(dim=-1).values / vals.min(dim=-1).values

    def cond(self, name: str = "cond") -> torch.Tensor:
        """Returns the condition number of this linear operator; shape `[B1,...,Bb]`."""
        return self._cond()

    def _can_use_cholesky(self) -> bool:
        return bool(self.is_self_adjoint and self.is_positive_definite)

    _param_ndims: dict = {}

    def _param_ndims_for(self) -> dict:
        return self._param_ndims

    def __getitem__(self, slices: Any) -> LinearOperator:
        """Slices the batch dimensions of this operator, e.g. `op[1:, 0]` (matrix dimensions are kept)."""
        batch = self.batch_shape.as_list()
        idx = _expand_batch_index(slices, len(batch))
        params = self.parameters
        ndims = self._param_ndims_for()
        for key, nd in ndims.items():
            if key == "batch_shape":
                if params.get("batch_shape") is not None:
                    params["batch_shape"] = list(torch.empty(batch, device="meta")[tuple(idx)].shape)
                continue
            params[key] = _slice_value(params.get(key), nd, idx, batch)
        return type(self)(**params)

    def __repr__(self) -> str:
        return (
            f'<tf.linalg.{type(self).__name__} "{self.name}" batch_shape={self.batch_shape.as_list()} '
            f"shape={self.shape.as_list()} dtype={self.dtype}>"
        )
