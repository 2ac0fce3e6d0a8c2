"""Block `LinearOperator`s and the low-rank update (Woodbury / matrix determinant lemma)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.linalg._linear_operator import (
    LinearOperator,
    _adj,
    _broadcast_batch,
    _matrix_solve_with_broadcast,
    _tensor_shape,
    _to_tensor,
)
from torchestimator.linalg._linear_operator_basic import (
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
)
from torchestimator.linalg._linear_operator_composite import _batch_of, _check_operator_list
from torchestimator.linalg._linear_operator_identity import LinearOperatorIdentity
from torchestimator.linalg._linear_operator_util import _BlockwiseArgsMixin

__all__ = ["LinearOperatorBlockDiag", "LinearOperatorBlockLowerTriangular", "LinearOperatorLowRankUpdate"]


def _cat_rows(blocks: list[torch.Tensor]) -> torch.Tensor:
    batch: tuple = ()
    for b in blocks:
        batch = torch.broadcast_shapes(batch, b.shape[:-2])
    return torch.cat([b.expand(*batch, *b.shape[-2:]) for b in blocks], dim=-2)


def _split_rows(x: torch.Tensor, sizes: list[int], arg: str, op_name: str) -> list[torch.Tensor]:
    if x.shape[-2] != sum(sizes):
        raise ValueError(f"{op_name}: `{arg}` has {x.shape[-2]} rows; expected {sum(sizes)} (sum of block sizes {sizes}).")
    return list(torch.split(x, sizes, dim=-2))


class LinearOperatorBlockDiag(_BlockwiseArgsMixin, LinearOperator):
    """Combines one or more `LinearOperators` in to a Block Diagonal matrix.

    `A = diag(A1, A2, ..., AJ)`; matmul/solve split the argument into row
    blocks and apply each operator to its block.
    """

    _param_ndims = {"operators": "ops"}

    def __init__(
        self,
        operators: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = True,
        name: str | None = None,
    ) -> None:
        """Initialize a `LinearOperatorBlockDiag` from a non-empty list of operators of the same dtype."""
        parameters = dict(
            operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        operators = _check_operator_list(operators, "block_diag")
        self._operators = operators
        self._diagonal_operators = operators
        for attr, what in (
            ("is_non_singular", "The direct sum of non-singular operators is always non-singular."),
            ("is_self_adjoint", "The direct sum of self-adjoint operators is always self-adjoint."),
            ("is_positive_definite", "The direct sum of positive definite operators is always positive definite."),
        ):
            if all(getattr(o, attr) for o in operators):
                provided = {"is_non_singular": is_non_singular, "is_self_adjoint": is_self_adjoint,
                            "is_positive_definite": is_positive_definite}[attr]
                if provided is False:
                    raise ValueError(what)
                if attr == "is_non_singular":
                    is_non_singular = True
                elif attr == "is_self_adjoint":
                    is_self_adjoint = True
                else:
                    is_positive_definite = True
        if name is None:
            name = "_ds_".join(o.name for o in operators)
        super().__init__(
            dtype=operators[0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name,
        )

    @property
    def operators(self) -> list:
        """The list of diagonal blocks."""
        return self._operators

    def _shape(self):
        m = sum(o.range_dimension for o in self.operators)
        n = sum(o.domain_dimension for o in self.operators)
        return _tensor_shape(_batch_of(self.operators) + [m, n])

    def _linop_adjoint(self):
        return LinearOperatorBlockDiag(
            [o.adjoint() for o in self.operators], is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag(
            [o.cholesky() for o in self.operators], is_non_singular=True, is_self_adjoint=None, is_square=True
        )

    def _linop_inverse(self):
        return LinearOperatorBlockDiag(
            [o.inverse() for o in self.operators], is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _in_sizes(self, adjoint):
        return [o.range_dimension if adjoint else o.domain_dimension for o in self.operators]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        parts = _split_rows(x, self._in_sizes(adjoint), "x", self.name)
        return _cat_rows([o.matmul(p, adjoint=adjoint) for o, p in zip(self.operators, parts)])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adj(rhs) if adjoint_arg else rhs
        sizes = [o.domain_dimension if adjoint else o.range_dimension for o in self.operators]
        parts = _split_rows(rhs, sizes, "rhs", self.name)
        return _cat_rows([o.solve(p, adjoint=adjoint) for o, p in zip(self.operators, parts)])

    def _determinant(self):
        det = self.operators[0].determinant()
        for o in self.operators[1:]:
            det = det * o.determinant()
        return det

    def _log_abs_determinant(self):
        lad = self.operators[0].log_abs_determinant()
        for o in self.operators[1:]:
            lad = lad + o.log_abs_determinant()
        return lad

    def _trace(self):
        tr = self.operators[0].trace()
        for o in self.operators[1:]:
            tr = tr + o.trace()
        return tr

    def _diag_part(self):
        parts = [o.diag_part() for o in self.operators]
        batch = self.batch_shape.as_list()
        return torch.cat([p.expand(*batch, p.shape[-1]) for p in parts], -1)

    def _to_dense(self):
        batch = self.batch_shape.as_list()
        rows = []
        n = self.domain_dimension
        col = 0
        for o in self.operators:
            d = o.to_dense().expand(*batch, o.range_dimension, o.domain_dimension)
            z_left = torch.zeros(*batch, o.range_dimension, col, dtype=self.dtype, device=d.device)
            z_right = torch.zeros(
                *batch, o.range_dimension, n - col - o.domain_dimension, dtype=self.dtype, device=d.device)
            rows.append(torch.cat([z_left, d, z_right], -1))
            col += o.domain_dimension
        return torch.cat(rows, -2)

    def _eigvals(self):
        batch = self.batch_shape.as_list()
        return torch.cat([e.expand(*batch, e.shape[-1]) for e in (o.eigvals() for o in self.operators)], -1)

    def _assert_non_singular(self):
        for o in self.operators:
            o.assert_non_singular()

    def _assert_self_adjoint(self):
        for o in self.operators:
            o.assert_self_adjoint()

    def _assert_positive_definite(self):
        for o in self.operators:
            o.assert_positive_definite()


class LinearOperatorBlockLowerTriangular(_BlockwiseArgsMixin, LinearOperator):
    """Combines `LinearOperators` into a blockwise lower-triangular matrix.

    `operators` is a list of rows: row `i` holds `i + 1` operators
    `[A_i0, ..., A_ii]`; the last of each row is the (square) diagonal block.
    Solve uses block forward (or, for the adjoint, backward) substitution.
    """

    _param_ndims = {"operators": "ops2"}

    def __init__(
        self,
        operators: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorBlockLowerTriangular",
    ) -> None:
        """Initialize a `LinearOperatorBlockLowerTriangular` from a lower-triangular list of lists of operators."""
        parameters = dict(
            operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        operators = [list(row) for row in operators]
        if not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. Received: {operators}.")
        self._operators = operators
        self._diagonal_operators = [row[-1] for row in operators]
        dtype = operators[0][0].dtype
        for i, row in enumerate(operators):
            for o in row:
                if o.dtype != dtype:
                    raise TypeError(
                        f"Expected all operators to have the same dtype.  Found {[str((p.name, p.dtype)) for p in row]} "
                        f"in row {i} and {dtype} in row 0."
                    )
        if all(o.is_non_singular for o in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError(
                    "A blockwise lower-triangular operator with non-singular operators on the main diagonal is always "
                    f"non-singular. Expected argument `is_non_singular` to be True. Received: {is_non_singular}."
                )
            is_non_singular = True
        elif any(o.is_non_singular is False for o in self._diagonal_operators):
            if is_non_singular is True:
                raise ValueError(
                    "A blockwise lower-triangular operator with a singular operator on the main diagonal is always "
                    f"singular. Expected argument `is_non_singular` to be True. Received: {is_non_singular}."
                )
            is_non_singular = False
        for i, row in enumerate(operators):
            if len(row) != i + 1:
                raise ValueError(
                    f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Received: {len(row)} blocks."
                )
        for i, row in enumerate(operators):
            for j, o in enumerate(row):
                if o.range_dimension != self._diagonal_operators[i].range_dimension:
                    raise ValueError(
                        f"Argument `operators[{i}][{j}].range_dimension` must be the same as "
                        f"`operators[{i}][{i}].range_dimension`. Received: {o.range_dimension} and "
                        f"{self._diagonal_operators[i].range_dimension}."
                    )
                if o.domain_dimension != self._diagonal_operators[j].domain_dimension:
                    raise ValueError(
                        f"Argument `operators[{i}][{j}].domain_dimension` must be the same as "
                        f"`operators[{j}][{j}].domain_dimension`. Received: {o.domain_dimension} and "
                        f"{self._diagonal_operators[j].domain_dimension}."
                    )
        if is_square is False:
            raise ValueError(
                f"`LinearOperatorBlockLowerTriangular` must be square. Expected argument `is_square` to be True. "
                f"Received: {is_square}."
            )
        for i, o in enumerate(self._diagonal_operators):
            if o.is_square is False:
                raise ValueError(
                    "Matrices on the diagonal (the final elements of each row-partition in the `operators` list) must "
                    f"be square. Expected argument `operators[{i}][-1].is_square` to be True. Received: {o.is_square}."
                )
        super().__init__(
            dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=True, parameters=parameters, name=name,
        )

    @property
    def operators(self) -> list:
        """The lower-triangular list of lists of blocks."""
        return self._operators

    def _linop_inverse(self):
        """Blockwise inverse: diagonal blocks invert, off-diagonal blocks become dense `FullMatrix` operators."""
        k = len(self.operators)
        inv: list[list] = [[None] * (i + 1) for i in range(k)]
        for i in range(k):
            inv[i][i] = self.operators[i][i].inverse()
            for j in range(i - 1, -1, -1):
                acc = None
                for m in range(j, i):
                    term = self.operators[i][m].matmul(inv[m][j].to_dense())
                    acc = term if acc is None else acc + term
                inv[i][j] = LinearOperatorFullMatrix(-inv[i][i].matmul(acc))
        return LinearOperatorBlockLowerTriangular(
            inv, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _all_ops(self):
        return [o for row in self.operators for o in row]

    def _shape(self):
        n = sum(o.domain_dimension for o in self._diagonal_operators)
        return _tensor_shape(_batch_of(self._all_ops()) + [n, n])

    def _sizes(self):
        return [o.domain_dimension for o in self._diagonal_operators]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        xs = _split_rows(x, self._sizes(), "x", self.name)
        k = len(self.operators)
        out = []
        if adjoint:
            for j in range(k):
                acc = None
                for i in range(j, k):
                    y = self.operators[i][j].matmul(xs[i], adjoint=True)
                    acc = y if acc is None else acc + y
                out.append(acc)
        else:
            for row in self.operators:
                acc = None
                for j, o in enumerate(row):
                    y = o.matmul(xs[j])
                    acc = y if acc is None else acc + y
                out.append(acc)
        return _cat_rows(out)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adj(rhs) if adjoint_arg else rhs
        bs = _split_rows(rhs, self._sizes(), "rhs", self.name)
        k = len(self.operators)
        sol: list = [None] * k
        if adjoint:
            for j in range(k - 1, -1, -1):
                acc = bs[j]
                for i in range(j + 1, k):
                    acc = acc - self.operators[i][j].matmul(sol[i], adjoint=True)
                sol[j] = self.operators[j][j].solve(acc, adjoint=True)
        else:
            for i in range(k):
                acc = bs[i]
                for j in range(i):
                    acc = acc - self.operators[i][j].matmul(sol[j])
                sol[i] = self.operators[i][i].solve(acc)
        return _cat_rows(sol)

    def _determinant(self):
        det = self._diagonal_operators[0].determinant()
        for o in self._diagonal_operators[1:]:
            det = det * o.determinant()
        return det

    def _log_abs_determinant(self):
        lad = self._diagonal_operators[0].log_abs_determinant()
        for o in self._diagonal_operators[1:]:
            lad = lad + o.log_abs_determinant()
        return lad

    def _trace(self):
        tr = self._diagonal_operators[0].trace()
        for o in self._diagonal_operators[1:]:
            tr = tr + o.trace()
        return tr

    def _diag_part(self):
        batch = self.batch_shape.as_list()
        parts = [o.diag_part() for o in self._diagonal_operators]
        return torch.cat([p.expand(*batch, p.shape[-1]) for p in parts], -1)

    def _to_dense(self):
        batch = self.batch_shape.as_list()
        sizes = self._sizes()
        n = sum(sizes)
        rows = []
        for i, row in enumerate(self.operators):
            blocks = [o.to_dense().expand(*batch, sizes[i], sizes[j]) for j, o in enumerate(row)]
            used = sum(sizes[: i + 1])
            blocks.append(torch.zeros(*batch, sizes[i], n - used, dtype=self.dtype, device=blocks[0].device))
            rows.append(torch.cat(blocks, -1))
        return torch.cat(rows, -2)

    def _eigvals(self):
        batch = self.batch_shape.as_list()
        return torch.cat([e.expand(*batch, e.shape[-1]) for e in (o.eigvals() for o in self._diagonal_operators)], -1)

    def _assert_non_singular(self):
        for o in self._diagonal_operators:
            o.assert_non_singular()


class LinearOperatorLowRankUpdate(LinearOperator):
    """Perturb a `LinearOperator` with a rank `K` update: `A = L + U D V^H`.

    `L` is `base_operator`, `U` is `[..., M, K]`, `D` (`diag_update`, default
    the identity) is `[..., K]` and `V` defaults to `U`. `solve` uses the
    Woodbury identity and the determinant the matrix determinant lemma, both
    through the `K x K` capacitance matrix `C = D^{-1} + V^H L^{-1} U`.
    """

    _param_ndims = {"base_operator": "op", "u": 2, "diag_update": 1, "v": 2}

    def __init__(
        self,
        base_operator: LinearOperator,
        u: Any,
        diag_update: Any = None,
        v: Any = None,
        is_diag_update_positive: bool | None = None,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorLowRankUpdate",
    ) -> None:
        """Initialize a `LinearOperatorLowRankUpdate` representing `base_operator + u diag(diag_update) v^H`."""
        parameters = dict(
            base_operator=base_operator, u=u, diag_update=diag_update, v=v,
            is_diag_update_positive=is_diag_update_positive, is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )

        dtype = base_operator.dtype
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError(
                    "Default diagonal is the identity, which is positive.  However, user set "
                    "'is_diag_update_positive' to False."
                )
            is_diag_update_positive = True
        self._use_cholesky = bool(
            base_operator.is_positive_definite and base_operator.is_self_adjoint and is_diag_update_positive and v is None
        )
        if base_operator.is_self_adjoint and v is None and not dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError(
                    "A = L + UDU^H, with L self-adjoint and D real diagonal.  Since UDU^H is self-adjoint, this must "
                    "be a self-adjoint operator."
                )
            is_self_adjoint = True
        if self._use_cholesky:
            if is_positive_definite is False or is_self_adjoint is False or is_non_singular is False:
                raise ValueError("Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
            is_self_adjoint = True
        self._u = _to_tensor(u, name="u")
        self._v = self._u if v is None else _to_tensor(v, name="v")
        self._diag_update = None if diag_update is None else _to_tensor(diag_update, name="diag_update")
        self._base_operator = base_operator
        super().__init__(
            dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name,
        )
        if self._diag_update is not None:
            self._diag_operator = LinearOperatorDiag(self._diag_update, is_positive_definite=is_diag_update_positive)
        else:
            self._diag_operator = LinearOperatorIdentity(num_rows=self._u.shape[-1], dtype=dtype)
        self._is_diag_update_positive = is_diag_update_positive
        uv = torch.broadcast_shapes(self._u.shape, self._v.shape)
        if base_operator.domain_dimension != uv[-2]:
            raise ValueError(
                f"{name}: Dimensions {base_operator.domain_dimension} and {uv[-2]} are not compatible: `u`/`v` must "
                f"have as many rows as `base_operator` has columns."
            )
        if self._diag_update is not None and self._diag_update.shape[-1] != uv[-1]:
            raise ValueError(
                f"{name}: Dimensions {uv[-1]} and {self._diag_update.shape[-1]} are not compatible: `diag_update` "
                "must have one entry per column of `u`."
            )

    @property
    def u(self) -> torch.Tensor:
        """If this operator is `A = L + U D V^H`, this is the `U`."""
        return self._u

    @property
    def v(self) -> torch.Tensor:
        """If this operator is `A = L + U D V^H`, this is the `V`."""
        return self._v

    @property
    def is_diag_update_positive(self) -> bool | None:
        """If this operator is `A = L + U D V^H`, this hints `D > 0` elementwise."""
        return self._is_diag_update_positive

    @property
    def diag_update(self) -> torch.Tensor | None:
        """If this operator is `A = L + U D V^H`, this is the diagonal of `D`."""
        return self._diag_update

    @property
    def diag_operator(self) -> LinearOperator:
        """If this operator is `A = L + U D V^H`, this is `D`."""
        return self._diag_operator

    @property
    def base_operator(self) -> LinearOperator:
        """If this operator is `A = L + U D V^H`, this is the `L`."""
        return self._base_operator

    def _assert_self_adjoint(self):
        if self.u is self.v and self.diag_update is None:
            return self.base_operator.assert_self_adjoint()
        return super()._assert_self_adjoint()

    def _shape(self):
        b = torch.broadcast_shapes(
            tuple(self.base_operator.batch_shape.as_list()), tuple(self.diag_operator.batch_shape.as_list()),
            self.u.shape[:-2], self.v.shape[:-2],
        )
        return _tensor_shape(list(b) + self.base_operator.shape.as_list()[-2:])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = self.u, self.v
        lead = self.base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        xx = _adj(x) if adjoint_arg else x
        a, b = (u, v) if adjoint else (v, u)
        ah_x = torch.matmul(_adj(a), xx)
        d_ah_x = self.diag_operator.matmul(ah_x, adjoint=adjoint)
        return lead + torch.matmul(b, d_ah_x)

    def _make_capacitance(self, u, v):
        linv_u = self.base_operator.solve(u)
        vh_linv_u = torch.matmul(_adj(v), linv_u)
        return self._diag_operator.inverse().add_to_tensor(vh_linv_u)

    def _determinant(self):
        if self.is_positive_definite:
            return torch.exp(self.log_abs_determinant())
        det_c = torch.linalg.det(self._make_capacitance(self.u, self.v))
        return det_c * self.diag_operator.determinant() * self.base_operator.determinant()

    def _diag_part(self):
        v = self.v.conj() if self.v.is_complex() else self.v
        prod = self.u * v
        if self.diag_update is not None:
            prod = prod * self.diag_update.unsqueeze(-2)
        return prod.sum(-1) + self.base_operator.diag_part()

    def _log_abs_determinant(self):
        lad_d = self.diag_operator.log_abs_determinant()
        lad_l = self.base_operator.log_abs_determinant()
        cap = self._make_capacitance(self.u, self.v)
        if self._use_cholesky:
            lad_c = 2 * torch.log(torch.diagonal(torch.linalg.cholesky(cap), dim1=-2, dim2=-1)).sum(-1)
        else:
            lad_c = torch.log(torch.abs(torch.linalg.det(cap)))
            if self.dtype.is_complex:
                lad_c = lad_c.to(self.dtype)
        return lad_c + lad_d + lad_l

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self.base_operator.is_non_singular is False:
            raise ValueError(
                f"{self.name}: Solve not implemented unless this is a perturbation of a non-singular LinearOperator."
            )
        base = self.base_operator
        if adjoint:
            v, u = self.u, self.v
        else:
            u, v = self.u, self.v
        cap = self._make_capacitance(self.u, self.v)
        linv_rhs = base.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = torch.matmul(_adj(v), linv_rhs)
        if self._use_cholesky:
            chol, vh_linv_rhs = _broadcast_batch(torch.linalg.cholesky(cap), vh_linv_rhs)
            capinv = torch.cholesky_solve(vh_linv_rhs, chol)
        else:
            capinv = _matrix_solve_with_broadcast(cap, vh_linv_rhs, adjoint=adjoint)
        return linv_rhs - base.solve(torch.matmul(u, capinv), adjoint=adjoint)
