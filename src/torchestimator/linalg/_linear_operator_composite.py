"""`LinearOperator`s built from other operators: adjoint, inversion, composition, Kronecker product."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.linalg._linear_operator import (
    LinearOperator,
    _adj,
    _invalid_argument,
    _tensor_shape,
)

__all__ = [
    "LinearOperatorAdjoint",
    "LinearOperatorComposition",
    "LinearOperatorInversion",
    "LinearOperatorKronecker",
]


def _combine_hint(operator: LinearOperator, attr: str, provided: bool | None, message: str) -> bool | None:
    op_hint = getattr(operator, attr)
    if op_hint is False and provided:
        raise ValueError(message)
    if op_hint and provided is False:
        raise ValueError(message)
    if op_hint or provided:
        return True
    if op_hint is False or provided is False:
        return False
    return None


def _conj(t: torch.Tensor) -> torch.Tensor:
    return t.conj().resolve_conj() if t.is_complex() else t


def _check_operator_list(operators: Any, what: str) -> list:
    if isinstance(operators, (str, bytes)) or not hasattr(operators, "__iter__"):
        raise TypeError(f"Expected argument `operators` to be a list of LinearOperators; got {operators!r}.")
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    dtype = operators[0].dtype
    for o in operators:
        if o.dtype != dtype:
            found = "   ".join(str((p.name, p.dtype)) for p in operators)
            raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")
    return operators


def _batch_of(operators) -> list[int]:
    shape: tuple = ()
    for o in operators:
        shape = torch.broadcast_shapes(shape, tuple(o.batch_shape.as_list()))
    return list(shape)


class LinearOperatorAdjoint(LinearOperator):
    """`LinearOperator` representing the adjoint of another operator.

    Given operator `A`, this represents `A^H` (conjugate transpose) without
    materialising it: every method defers to `A` with the `adjoint` flag flipped.
    """

    _param_ndims = {"operator": "op"}

    def __init__(
        self,
        operator: LinearOperator,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        """Initialize a `LinearOperatorAdjoint` of `operator`; hints must agree with `operator`'s."""
        parameters = dict(
            operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        self._operator = operator
        is_square = _combine_hint(operator, "is_square", is_square, "An operator is square if and only if its adjoint is square.")
        is_non_singular = _combine_hint(
            operator, "is_non_singular", is_non_singular,
            "An operator is non-singular if and only if its adjoint is non-singular.",
        )
        is_self_adjoint = _combine_hint(
            operator, "is_self_adjoint", is_self_adjoint,
            "An operator is self-adjoint if and only if its adjoint is self-adjoint.",
        )
        is_positive_definite = _combine_hint(
            operator, "is_positive_definite", is_positive_definite,
            "An operator is positive-definite if and only if its adjoint is positive-definite.",
        )
        if name is None:
            name = operator.name + "_adjoint"
        super().__init__(
            dtype=operator.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name,
        )

    @property
    def operator(self) -> LinearOperator:
        """The operator before taking the adjoint."""
        return self._operator

    def _linop_adjoint(self):
        return self.operator

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _shape(self):
        s = self.operator.shape.as_list()
        return _tensor_shape(s[:-2] + [s[-1], s[-2]])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self.operator.matvec(x, adjoint=not adjoint)

    def _determinant(self):
        return _conj(self.operator.determinant()) if self.is_self_adjoint is not True else self.operator.determinant()

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _trace(self):
        return _conj(self.operator.trace())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self.operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        if self.is_self_adjoint:
            return self.operator.to_dense()
        return _adj(self.operator.to_dense())

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def _eigvals(self):
        return _conj(self.operator.eigvals())

    def _cond(self):
        return self.operator.cond()


class LinearOperatorInversion(LinearOperator):
    """`LinearOperator` representing the inverse of another operator.

    `matmul` of this operator is `solve` of the wrapped one and vice versa.
    """

    _param_ndims = {"operator": "op"}

    def __init__(
        self,
        operator: LinearOperator,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        """Initialize a `LinearOperatorInversion` of a square, non-singular `operator`."""
        parameters = dict(
            operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                "Argument `is_non_singular` or argument `operator` must have supplied hint `is_non_singular` equal to "
                f"`True` or `None`. Found `operator.is_non_singular`: {operator.is_non_singular}, `is_non_singular`: "
                f"{is_non_singular}."
            )
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "Argument `is_square` or argument `operator` must have supplied hint `is_square` equal to `True` or "
                f"`None`. Found `operator.is_square`: {operator.is_square}, `is_square`: {is_square}."
            )
        is_square = _combine_hint(operator, "is_square", is_square, "An operator is square if and only if its inverse is square.")
        is_non_singular = _combine_hint(
            operator, "is_non_singular", is_non_singular,
            "An operator is non-singular if and only if its inverse is non-singular.",
        )
        is_self_adjoint = _combine_hint(
            operator, "is_self_adjoint", is_self_adjoint,
            "An operator is self-adjoint if and only if its inverse is self-adjoint.",
        )
        is_positive_definite = _combine_hint(
            operator, "is_positive_definite", is_positive_definite,
            "An operator is positive-definite if and only if its inverse is positive-definite.",
        )
        if name is None:
            name = operator.name + "_inv"
        super().__init__(
            dtype=operator.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name,
        )

    @property
    def operator(self) -> LinearOperator:
        """The operator before inversion."""
        return self._operator

    def _linop_inverse(self):
        return self.operator

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _shape(self):
        return self.operator.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self.operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self.operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self):
        return 1.0 / self.operator.eigvals()

    def _cond(self):
        return self.operator.cond()


def _is_adjoint_pair(x: LinearOperator, y: LinearOperator) -> bool:
    if x is y:
        if x.is_self_adjoint is False:
            return False
        if x.is_self_adjoint:
            return True
    return x.H is y or y.H is x


def _is_aat_form(operators: list) -> bool:
    if len(operators) % 2:
        return False
    return all(_is_adjoint_pair(operators[i], operators[-1 - i]) for i in range(len(operators) // 2))


class LinearOperatorComposition(LinearOperator):
    """Composes one or more `LinearOperators`: `A = A1 A2 ... AJ`.

    Applies the operators right to left without forming the product.
    """

    _param_ndims = {"operators": "ops"}

    def __init__(
        self,
        operators: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        """Initialize a `LinearOperatorComposition` of the `operators` list (same dtype, compatible shapes)."""
        parameters = dict(
            operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        operators = _check_operator_list(operators, "composition")
        self._operators = operators
        if all(o.is_non_singular for o in operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always non-singular.")
            is_non_singular = True
        if (len(operators) == 1 and operators[0].is_self_adjoint) or _is_aat_form(operators):
            if is_self_adjoint is False:
                raise ValueError(
                    "The composition was determined to be self-adjoint but user provided incorrect `False` hint."
                )
            is_self_adjoint = True
        if _is_aat_form(operators):
            if is_square is False:
                raise ValueError(
                    "The composition was determined have the form A @ A.H, hence it must be square. The user provided "
                    "an incorrect `False` hint."
                )
            is_square = True
            if is_non_singular:
                if is_positive_definite is False:
                    raise ValueError(
                        "The composition was determined to be non-singular and have the form A @ A.H, hence it must "
                        "be positive-definite. The user provided an incorrect `False` hint."
                    )
                is_positive_definite = True
        if name is None:
            name = "_o_".join(o.name for o in operators)
        for a, b in zip(operators[:-1], operators[1:]):
            if a.domain_dimension is not None and b.range_dimension is not None and a.domain_dimension != b.range_dimension:
                raise ValueError(
                    f"Operators are incompatible.  Expected domain dimension {a.domain_dimension} of {a.name} to "
                    f"match range dimension {b.range_dimension} of {b.name}."
                )
        super().__init__(
            dtype=operators[0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name,
        )

    @property
    def operators(self) -> list:
        """The list of composed operators."""
        return self._operators

    def _shape(self):
        return _tensor_shape(
            _batch_of(self.operators) + [self.operators[0].range_dimension, self.operators[-1].domain_dimension]
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if adjoint:
            result = self.operators[0].matmul(x, adjoint=True, adjoint_arg=adjoint_arg)
            for o in self.operators[1:]:
                result = o.matmul(result, adjoint=True)
            return result
        result = self.operators[-1].matmul(x, adjoint_arg=adjoint_arg)
        for o in reversed(self.operators[:-1]):
            result = o.matmul(result)
        return result

    def _determinant(self):
        if all(o.is_square for o in self.operators):
            det = self.operators[0].determinant()
            for o in self.operators[1:]:
                det = det * o.determinant()
            return det
        return super()._determinant()

    def _log_abs_determinant(self):
        if all(o.is_square for o in self.operators):
            lad = self.operators[0].log_abs_determinant()
            for o in self.operators[1:]:
                lad = lad + o.log_abs_determinant()
            return lad
        return super()._log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if adjoint:
            sol = self.operators[-1].solve(rhs, adjoint=True, adjoint_arg=adjoint_arg)
            for o in reversed(self.operators[:-1]):
                sol = o.solve(sol, adjoint=True)
            return sol
        sol = self.operators[0].solve(rhs, adjoint_arg=adjoint_arg)
        for o in self.operators[1:]:
            sol = o.solve(sol)
        return sol


class LinearOperatorKronecker(LinearOperator):
    """Kronecker product between two or more `LinearOperators`: `A = A1 x A2 x ... x AJ`.

    matmul and solve apply each factor along its own axis of the reshaped
    argument, never forming the product.
    """

    _param_ndims = {"operators": "ops"}

    def __init__(
        self,
        operators: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        """Initialize a `LinearOperatorKronecker` of the `operators` list (same dtype)."""
        parameters = dict(
            operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        if isinstance(operators, (list, tuple)) and not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. Received: {operators}.")
        operators = _check_operator_list(operators, "kronecker")
        self._operators = operators
        for attr, what in (
            ("is_non_singular", "non-singular"),
            ("is_self_adjoint", "self-adjoint"),
            ("is_positive_definite", "positive-definite"),
        ):
            if all(getattr(o, attr) for o in operators):
                provided = {"is_non_singular": is_non_singular, "is_self_adjoint": is_self_adjoint,
                            "is_positive_definite": is_positive_definite}[attr]
                if provided is False:
                    raise ValueError(
                        f"The Kronecker product of {what} operators is always {what}. Expected argument `{attr}` to "
                        f"be True. Received: {provided}."
                    )
                if attr == "is_non_singular":
                    is_non_singular = True
                elif attr == "is_self_adjoint":
                    is_self_adjoint = True
                else:
                    is_positive_definite = True
        if name is None:
            name = "_x_".join(o.name for o in operators)
        super().__init__(
            dtype=operators[0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name,
        )

    @property
    def operators(self) -> list:
        """The list of Kronecker factors."""
        return self._operators

    def _shape(self):
        m = n = 1
        for o in self.operators:
            m *= o.range_dimension
            n *= o.domain_dimension
        return _tensor_shape(_batch_of(self.operators) + [m, n])

    def _linop_adjoint(self):
        return LinearOperatorKronecker(
            [o.adjoint() for o in self.operators], is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorKronecker(
            [o.cholesky() for o in self.operators], is_non_singular=True, is_self_adjoint=None, is_square=True
        )

    def _linop_inverse(self):
        return LinearOperatorKronecker(
            [o.inverse() for o in self.operators], is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _apply(self, x, fn, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        k = len(self.operators)
        in_dims = [o.range_dimension if adjoint else o.domain_dimension for o in self.operators]
        r = x.shape[-1]
        t = x.reshape(*x.shape[:-2], *in_dims, r)
        for i, o in enumerate(self.operators):
            pos = -(k + 1) + i
            t = torch.movedim(t, pos, -1)  # [B..., other dims..., R, d_i]
            inner = list(t.shape[len(t.shape) - k - 1 : -1])  # other dims + R
            flat = t.reshape(*t.shape[: len(t.shape) - k - 1], -1, t.shape[-1])  # [B..., M, d_i]
            y = fn(o, flat.transpose(-1, -2))  # [B'..., e_i, M]
            y = y.transpose(-1, -2)
            t = y.reshape(*y.shape[:-2], *inner, y.shape[-1])
            t = torch.movedim(t, -1, pos)
        out_rows = self.domain_dimension if adjoint else self.range_dimension
        return t.reshape(*t.shape[: len(t.shape) - k - 1], out_rows, r)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, lambda o, v: o.matmul(v, adjoint=adjoint), adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, lambda o, v: o.solve(v, adjoint=adjoint), adjoint, adjoint_arg)

    def _determinant(self):
        total = self.domain_dimension
        det = 1.0
        for o in self.operators:
            det = det * o.determinant() ** (total / o.domain_dimension)
        return det

    def _log_abs_determinant(self):
        total = self.domain_dimension
        lad = 0.0
        for o in self.operators:
            lad = lad + o.log_abs_determinant() * (total / o.domain_dimension)
        return lad

    def _trace(self):
        tr = 1.0
        for o in self.operators:
            tr = tr * o.trace()
        return tr

    def _diag_part(self):
        d = self.operators[0].diag_part()
        for o in self.operators[1:]:
            d = d[..., :, None] * o.diag_part()[..., None, :]
            d = d.reshape(*d.shape[:-2], -1)
        return d

    def _to_dense(self):
        p = self.operators[0].to_dense()
        for o in self.operators[1:]:
            q = o.to_dense()
            p = p[..., :, None, :, None] * q[..., None, :, None, :]
            s = p.shape
            p = p.reshape(*s[:-4], s[-4] * s[-3], s[-2] * s[-1])
        return p

    def _eigvals(self):
        p = self.operators[0].eigvals()
        for o in self.operators[1:]:
            p = p[..., None] * o.eigvals()[..., None, :]
            p = p.reshape(*p.shape[:-2], -1)
        return p

    def _assert_non_singular(self):
        if all(o.is_square for o in self.operators):
            for o in self.operators:
                o.assert_non_singular()
            return None
        raise _invalid_argument(
            f"{self.name}: All Kronecker factors must be square for the product to be invertible. Expected hint "
            "`is_square` to be True for every operator in argument `operators`."
        )

    def _assert_self_adjoint(self):
        if all(o.is_square for o in self.operators):
            for o in self.operators:
                o.assert_self_adjoint()
            return None
        raise _invalid_argument(
            f"{self.name}: All Kronecker factors must be square for the product to be invertible. Expected hint "
            "`is_square` to be True for every operator in argument `operators`."
        )
