"""Structured `LinearOperator`s: circulant (FFT), Toeplitz, tridiagonal, Householder, permutation."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.linalg._linalg_functions import (
    _compact_from,
    _compact_to_dense,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from torchestimator.linalg._linear_operator import (
    LinearOperator,
    _adj,
    _combined_non_singular_hint,
    _eps,
    _invalid_argument,
    _tensor_shape,
    _to_tensor,
)
from torchestimator.linalg._linear_operator_util import _check_min_rank

__all__ = [
    "LinearOperatorCirculant",
    "LinearOperatorCirculant2D",
    "LinearOperatorCirculant3D",
    "LinearOperatorToeplitz",
    "LinearOperatorTridiag",
]


def _to_complex(x: torch.Tensor) -> torch.Tensor:
    if x.is_complex():
        return x
    return x.to(torch.complex128 if x.dtype == torch.float64 else torch.complex64)


def _cast(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """TF `cast`: complex -> real keeps the real part."""
    if x.is_complex() and not dtype.is_complex:
        x = x.real
    return x.to(dtype)


def _commuting(left, right, attr):
    return True if getattr(left, attr) and getattr(right, attr) else None


class _BaseLinearOperatorCirculant(LinearOperator):
    def __init__(
        self,
        spectrum: Any,
        block_depth: int,
        input_output_dtype: Any = torch.complex64,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        parameters: dict | None = None,
        name: str = "LinearOperatorCirculant",
    ) -> None:
        if block_depth not in (1, 2, 3):
            raise ValueError(f"Argument `block_depth` must be one of [1, 2, 3]. Received: {block_depth}.")
        self._block_depth = block_depth
        self._spectrum = _to_tensor(spectrum, name="spectrum")
        if self._spectrum.ndim < block_depth:
            raise ValueError(
                f"Argument `spectrum` must have at least {block_depth} dimensions. Received shape: "
                f"{tuple(self._spectrum.shape)}."
            )
        if not self._spectrum.is_complex():
            if is_self_adjoint is False:
                raise ValueError(
                    "A real spectrum always corresponds to a self-adjoint operator. Expected argument "
                    f"`is_self_adjoint` to be True when `spectrum.dtype.is_complex` = True. Received: {is_self_adjoint}."
                )
            is_self_adjoint = True
        if is_square is False:
            raise ValueError(
                "A [[nested] block] circulant operator is always square. Expected argument `is_square` to be True. "
                f"Received: {is_square}."
            )
        super().__init__(
            dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    def _param_ndims_for(self) -> dict:
        return {"spectrum": self._block_depth}

    @property
    def block_depth(self) -> int:
        """Depth of recursively defined circulant blocks defining this `Operator`."""
        return self._block_depth

    @property
    def spectrum(self) -> torch.Tensor:
        """The spectrum (FFT of the convolution kernel) of this operator."""
        return self._spectrum

    @property
    def block_shape(self):
        """The trailing `block_depth` dimensions of `spectrum`."""
        return _tensor_shape(list(self._spectrum.shape[-self._block_depth :]))

    def block_shape_tensor(self) -> torch.Tensor:
        """Shape of the block dimensions of `self.spectrum`, as an `int32` `Tensor`."""
        return torch.tensor(self.block_shape.as_list(), dtype=torch.int32, device=self._spectrum.device)

    def _same(self, spectrum, **hints):
        cls = type(self)
        if cls is _BaseLinearOperatorCirculant:
            return _BaseLinearOperatorCirculant(spectrum, self.block_depth, input_output_dtype=self.dtype, **hints)
        return cls(spectrum, input_output_dtype=self.dtype, **hints)

    def _linop_adjoint(self):
        s = self.spectrum.conj().resolve_conj() if self.spectrum.is_complex() else self.spectrum
        return self._same(
            s, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _linop_inverse(self):
        return self._same(
            1.0 / self.spectrum, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True,
        )

    def _combo(self, left, right, spectrum):
        return _BaseLinearOperatorCirculant(
            spectrum,
            self.block_depth,
            input_output_dtype=self.dtype,
            is_non_singular=_combined_non_singular_hint(left, right),
            is_self_adjoint=_commuting(left, right, "is_self_adjoint"),
            is_positive_definite=_commuting(left, right, "is_positive_definite"),
            is_square=True,
        )

    def _linop_matmul(self, left_operator, right_operator):
        if not isinstance(right_operator, _BaseLinearOperatorCirculant) or not isinstance(left_operator, type(right_operator)):
            return super()._linop_matmul(left_operator, right_operator)
        return self._combo(left_operator, right_operator, left_operator.spectrum * right_operator.spectrum)

    def _linop_solve(self, left_operator, right_operator):
        if not isinstance(right_operator, _BaseLinearOperatorCirculant) or not isinstance(left_operator, type(right_operator)):
            return super()._linop_solve(left_operator, right_operator)
        return self._combo(left_operator, right_operator, right_operator.spectrum / left_operator.spectrum)

    def _dims(self):
        return tuple(range(-self._block_depth, 0))

    def _fft(self, x):
        return torch.fft.fftn(_to_complex(x), dim=self._dims())

    def _ifft(self, x):
        return torch.fft.ifftn(_to_complex(x), dim=self._dims())

    def convolution_kernel(self, name: str = "convolution_kernel") -> torch.Tensor:
        """Convolution kernel corresponding to `self.spectrum` (its inverse FFT), cast to `self.dtype`."""
        return _cast(self._ifft(self.spectrum), self.dtype)

    def _shape(self):
        s = list(self._spectrum.shape)
        n = int(np.prod(s[-self._block_depth :]))
        return _tensor_shape(s[: -self._block_depth] + [n, n])

    def assert_hermitian_spectrum(self, name: str = "assert_hermitian_spectrum") -> None:
        """Asserts that `self.spectrum` is Hermitian (so the operator is real); raises `InvalidArgumentError` if not."""
        real = self.dtype.is_complex and torch.empty((), dtype=self.dtype, device="meta").real.dtype or self.dtype
        max_err = _eps(real) * self.domain_dimension
        imag = self._ifft(self.spectrum).imag
        if not bool((imag.abs() < max_err).all()):
            raise _invalid_argument(f"{self.name}: Spectrum was not Hermitian")

    def _assert_non_singular(self):
        if bool((self.spectrum.abs() == 0).any()):
            raise _invalid_argument(f"{self.name}: Singular operator:  Spectrum contained zero values.")

    def _assert_positive_definite(self):
        if not bool((self.spectrum.real > 0).all()):
            raise _invalid_argument(f"{self.name}: Not positive definite:  Real part of spectrum was not all positive.")

    def _assert_self_adjoint(self):
        if self.spectrum.is_complex() and bool((self.spectrum.imag != 0).any()):
            raise _invalid_argument(f"{self.name}: Not self-adjoint:  The spectrum contained non-zero imaginary part.")

    def _unblockify(self, x):
        s = list(x.shape)
        return x.reshape(s[: -self._block_depth] + [int(np.prod(s[-self._block_depth :]))])

    def _apply(self, x, spectrum):
        # x: [..., N, R] -> [R, ..., block_shape]
        batch = torch.broadcast_shapes(x.shape[:-2], spectrum.shape[: -self._block_depth])
        x = x.expand(*batch, *x.shape[-2:])
        spectrum = spectrum.expand(*batch, *spectrum.shape[-self._block_depth :])
        vec = torch.movedim(x, -1, 0)
        vb = vec.reshape(*vec.shape[:-1], *self.block_shape.as_list())
        return vb, spectrum

    def _finish(self, y_vb):
        flat = self._unblockify(y_vb)
        return _cast(torch.movedim(flat, 0, -1), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = spectrum.conj()
        x = x.to(spectrum.dtype) if not x.is_complex() else x
        vb, spectrum = self._apply(x, spectrum)
        return self._finish(self._ifft(spectrum * self._fft(vb)))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adj(rhs) if adjoint_arg else rhs
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = spectrum.conj()
        vb, spectrum = self._apply(rhs, spectrum)
        return self._finish(self._ifft(self._fft(vb) / spectrum))

    def _determinant(self):
        return _cast(torch.prod(self._unblockify(self.spectrum), dim=-1), self.dtype)

    def _log_abs_determinant(self):
        return _cast(torch.log(torch.abs(self._unblockify(self.spectrum))).sum(-1), self.dtype)

    def _trace(self):
        flat = self._unblockify(self.spectrum)
        re = flat.real.sum(-1) if flat.is_complex() else flat.sum(-1)
        if not self.dtype.is_complex:
            return re.to(self.dtype)
        im = torch.zeros_like(re) if (self.is_self_adjoint or not flat.is_complex()) else flat.imag.sum(-1)
        return torch.complex(re, im).to(self.dtype)

    def _diag_part(self):
        n = self.domain_dimension
        return (self.trace() / n)[..., None] * torch.ones(self.shape.as_list()[:-1], dtype=self.dtype, device=self._spectrum.device)

    def _cond(self):
        a = torch.abs(self._unblockify(self.spectrum))
        return a.max(-1).values / a.min(-1).values

    def _eigvals(self):
        return self._unblockify(self.spectrum)


def _circulant_doc_init(cls_name: str, block_depth: int):
    def __init__(
        self,
        spectrum: Any,
        input_output_dtype: Any = torch.complex64,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        name: str = cls_name,
    ) -> None:
        parameters = dict(
            spectrum=spectrum,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        _BaseLinearOperatorCirculant.__init__(
            self,
            spectrum,
            block_depth=block_depth,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    __init__.__doc__ = f"Initialize an `{cls_name}` from its `spectrum` (the FFT of its convolution kernel)."
    return __init__


class LinearOperatorCirculant(_BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a circulant matrix.

    The operator is `A = DFT^{-1} diag(spectrum) DFT`; `spectrum` has shape
    `[B1,...,Bb, N]` and matmul/solve run through the FFT in `O(N log N)`.
    """

    __init__ = _circulant_doc_init("LinearOperatorCirculant", 1)


class LinearOperatorCirculant2D(_BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a block circulant matrix with circulant blocks.

    `spectrum` has shape `[B1,...,Bb, N0, N1]`; the operator is `N0*N1 x N0*N1`.
    """

    __init__ = _circulant_doc_init("LinearOperatorCirculant2D", 2)


class LinearOperatorCirculant3D(_BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a nested block circulant matrix (depth 3).

    `spectrum` has shape `[B1,...,Bb, N0, N1, N2]`; the operator is `N0*N1*N2` square.
    """

    __init__ = _circulant_doc_init("LinearOperatorCirculant3D", 3)


class LinearOperatorToeplitz(LinearOperator):
    """`LinearOperator` acting like a [batch] of toeplitz matrices.

    `col` is the first column and `row` the first row (`row[0]` is ignored in
    favour of `col[0]`); matmul embeds the matrix in a circulant and uses the FFT.
    """

    _param_ndims = {"col": 1, "row": 1}

    def __init__(
        self,
        col: Any,
        row: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorToeplitz",
    ) -> None:
        """Initialize a `LinearOperatorToeplitz` from its first column `col` and first row `row`."""
        parameters = dict(
            col=col, row=row, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        self._row = _to_tensor(row, name="row")
        self._col = _to_tensor(col, name="col")
        for n, t in (("row", self._row), ("col", self._col)):
            _check_min_rank(t, 1, n)
        if self._row.shape[-1] != self._col.shape[-1]:
            raise ValueError("Expected square matrix, got row and col with mismatched dimensions.")
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        super().__init__(
            dtype=self._row.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=True, parameters=parameters, name=name,
        )

    @property
    def col(self) -> torch.Tensor:
        """The first column of the operator."""
        return self._col

    @property
    def row(self) -> torch.Tensor:
        """The first row of the operator."""
        return self._row

    def _shape(self):
        v = list(torch.broadcast_shapes(self._row.shape, self._col.shape))
        return _tensor_shape(v + v[-1:])

    def _assert_self_adjoint(self):
        if not bool(torch.equal(*torch.broadcast_tensors(self.row, self.col))):
            raise _invalid_argument(
                f"{self.name}: row and col are not the same, and so this operator is not self-adjoint."
            )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj(x) if adjoint_arg else x
        expanded = torch.cat([x, torch.zeros_like(x)], dim=-2)
        col, row = self.col, self.row
        circ_col = torch.cat([col, torch.zeros_like(col[..., :1]), torch.flip(row[..., 1:], [-1])], dim=-1)
        circ = LinearOperatorCirculant(torch.fft.fft(_to_complex(circ_col)), input_output_dtype=row.dtype)
        result = circ.matmul(expanded, adjoint=adjoint)
        return _cast(result[..., : self.domain_dimension, :], self.dtype)

    def _trace(self):
        return self.domain_dimension * self.col[..., 0]

    def _diag_part(self):
        return self.col[..., :1] * torch.ones(self.domain_dimension, dtype=self.dtype, device=self.col.device)

    def _to_dense(self):
        row, col = torch.broadcast_tensors(self.row, self.col)
        n = row.shape[-1]
        elements = torch.cat([torch.flip(col, [-1]), row[..., 1:]], dim=-1)
        idx = torch.arange(n, device=elements.device)
        idx = (idx + torch.arange(n - 1, -1, -1, device=elements.device)[:, None]) % (2 * n - 1)
        return elements[..., idx]


_DIAG_FORMATS = ("compact", "matrix", "sequence")


class LinearOperatorTridiag(LinearOperator):
    """`LinearOperator` acting like a [batch] square tridiagonal matrix.

    `diagonals_format` is `'compact'` (`[..., 3, N]`: superdiagonal padded on
    the right, diagonal, subdiagonal padded on the left), `'matrix'`
    (`[..., N, N]`) or `'sequence'` (a list of three `[..., N]` tensors).
    """

    def _param_ndims_for(self) -> dict:
        return {"diagonals": "seq1" if self._diagonals_format == "sequence" else 2}

    def __init__(
        self,
        diagonals: Any,
        diagonals_format: str = "compact",
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorTridiag",
    ) -> None:
        """Initialize a `LinearOperatorTridiag` from `diagonals` in `diagonals_format`."""
        parameters = dict(
            diagonals=diagonals, diagonals_format=diagonals_format, is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite, is_square=is_square, name=name,
        )
        if diagonals_format not in _DIAG_FORMATS:
            raise ValueError(
                f"Argument `diagonals_format` must be one of compact, matrix, or sequence. Received : {diagonals_format}."
            )
        if diagonals_format == "sequence":
            self._diagonals = [_to_tensor(d, name=f"diag_{i}") for i, d in enumerate(diagonals)]
            dtype = self._diagonals[0].dtype
        else:
            self._diagonals = _to_tensor(diagonals, name="diagonals")
            dtype = self._diagonals.dtype
        self._diagonals_format = diagonals_format
        super().__init__(
            dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite, is_square=is_square, parameters=parameters, name=name,
        )

    @property
    def diagonals(self) -> Any:
        """The diagonals, in `diagonals_format`."""
        return self._diagonals

    @property
    def diagonals_format(self) -> str:
        """The format of `diagonals`: `'compact'`, `'matrix'` or `'sequence'`."""
        return self._diagonals_format

    def _shape(self):
        f, d = self._diagonals_format, self._diagonals
        if f == "matrix":
            return _tensor_shape(list(d.shape))
        if f == "compact":
            s = list(d.shape[:-2]) + [d.shape[-1]]
        else:
            b = torch.broadcast_shapes(d[0].shape[:-1], d[1].shape[:-1], d[2].shape[:-1])
            s = list(b) + [d[1].shape[-1]]
        return _tensor_shape(s + s[-1:])

    def _assert_self_adjoint(self):
        f, d = self._diagonals_format, self._diagonals
        if f == "matrix":
            if not bool(torch.equal(d, _adj(d))):
                raise _invalid_argument(f"{self.name}: Matrix was not equal to its adjoint.")
            return
        sup, main, sub = (d[..., 0, :], d[..., 1, :], d[..., 2, :]) if f == "compact" else d
        if main.is_complex() and bool((main.imag != 0).any()):
            raise _invalid_argument(
                f"{self.name}: This tridiagonal operator contained non-zero imaginary values on the diagonal."
            )
        subr = torch.roll(sub, -1, -1)
        subc = subr.conj() if subr.is_complex() else subr
        if not bool(torch.equal(*torch.broadcast_tensors(subc[..., :-1], sup[..., :-1]))):
            raise _invalid_argument(
                f"{self.name}: This tridiagonal operator has non-conjugate subdiagonal and superdiagonal."
            )

    def _construct_adjoint_diagonals(self, diagonals):
        def conj(t):
            return t.conj().resolve_conj() if t.is_complex() else t

        if self._diagonals_format == "sequence":
            d = [conj(t) for t in reversed(diagonals)]
            d[0] = torch.roll(d[0], -1, -1)
            d[2] = torch.roll(d[2], 1, -1)
            return d
        if self._diagonals_format == "matrix":
            return _adj(diagonals)
        diagonals = conj(diagonals)
        sup, main, sub = diagonals.unbind(-2)
        return torch.stack([torch.roll(sub, -1, -1), main, torch.roll(sup, 1, -1)], dim=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        d = self._construct_adjoint_diagonals(self._diagonals) if adjoint else self._diagonals
        x = _adj(x) if adjoint_arg else x
        return tridiagonal_matmul(d, x, diagonals_format=self._diagonals_format)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        d = self._construct_adjoint_diagonals(self._diagonals) if adjoint else self._diagonals
        return tridiagonal_solve(
            d, rhs, diagonals_format=self._diagonals_format, transpose_rhs=adjoint_arg, conjugate_rhs=adjoint_arg
        )

    def _diag_part(self):
        f, d = self._diagonals_format, self._diagonals
        if f == "matrix":
            return torch.diagonal(d, dim1=-2, dim2=-1)
        if f == "sequence":
            return d[1].expand(*self.shape.as_list()[:-1])
        return d[..., 1, :]

    def _to_dense(self):
        if self._diagonals_format == "matrix":
            return self._diagonals
        return _compact_to_dense(_compact_from(self._diagonals, self._diagonals_format))
