"""tf.linalg and tf.matmul, tf.tensordot, tf.einsum over torch.

TensorFlow 2.15's names, argument names and defaults; matrices are the two
innermost dimensions and the leading ones are batch dimensions (broadcast in
`matmul` and `solve`'s right-hand side as TF does). Operands must share a dtype
(TF does not promote). Shape mismatches raise `tf.errors.InvalidArgumentError`
naming both shapes; a singular matrix given to `inv`/`solve` raises it too, as
TF does on CPU.

Where TF's result order or form differs from torch's, TF's is kept:
`svd` returns `(s, u, v)` with `a = u @ diag(s) @ adjoint(v)`; `slogdet`
returns `LogMatrixDeterminant(sign, log_abs_determinant)`; `qr` returns
`Qr(q, r)`; `lu` returns `Lu(lu, p)` with `p` a permutation vector.
"""

from __future__ import annotations

import builtins
import collections
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    normalize_axis,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError

__all__ = ["eig", "eigvals", "einsum", "matmul", "norm", "tensordot"]

Tensor = torch.Tensor

LogMatrixDeterminant = collections.namedtuple(
    "LogMatrixDeterminant", ["sign", "log_abs_determinant"]
)
Qr = collections.namedtuple("Qr", ["q", "r"])
Lu = collections.namedtuple("Lu", ["lu", "p"])

_FLOATING = (
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
)
_EIGHT_BIT = (torch.int8, torch.uint8)


# ----------------------------------------------------------------------------- helpers


def _numeric(value: Any, op: str, arg: str = "input") -> Tensor:
    t = value if isinstance(value, Tensor) else convert_to_tensor(value)
    if isinstance(t, np.ndarray):
        raise TypeError(f"{op}: `{arg}` holds strings; this op takes numeric tensors.")
    return t


def _floating(value: Any, op: str, arg: str = "input") -> Tensor:
    t = _numeric(value, op, arg)
    if t.dtype not in _FLOATING:
        raise TypeError(
            f"{op}: `{arg}` must be a floating or complex tensor, got {dtype_name(t.dtype)} "
            "(use tf.cast)."
        )
    return t


def _matrix(value: Any, op: str, arg: str = "input", square: bool = False) -> Tensor:
    t = _floating(value, op, arg)
    if t.dim() < 2:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` must be a (batch of) matrix with rank >= 2, got shape {list(t.shape)}.",
        )
    if square and t.shape[-1] != t.shape[-2]:
        raise InvalidArgumentError(
            None, None, f"{op}: input matrix must be square, got shape {list(t.shape)}."
        )
    return t


def _pair(a: Any, b: Any, op: str) -> tuple[Tensor, Tensor]:
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a.dtype is not b.dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: the operands have different dtypes, {dtype_name(a.dtype)} and "
                f"{dtype_name(b.dtype)}. TensorFlow does not promote dtypes; tf.cast one of them.",
            )
        return a, b
    a, b = binary_operands(a, b, op)
    if not isinstance(a, Tensor):
        a = torch.tensor(a, dtype=b.dtype, device=b.device)
    if not isinstance(b, Tensor):
        b = torch.tensor(b, dtype=a.dtype, device=a.device)
    return a, b


def _mT(x: Tensor, conj: bool) -> Tensor:  # noqa: N802 - torch's spelling
    return x.mH if conj and x.is_complex() else x.mT


def _not_invertible(info: Tensor, op: str, what: str = "Input matrix") -> None:
    if bool((info != 0).any()):
        raise InvalidArgumentError(None, None, f"{op}: {what} is not invertible.")


# ----------------------------------------------------------------------------- products


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    name: str | None = None,
) -> Tensor:
    """Multiplies matrix `a` by matrix `b` (the two innermost dimensions; leading batch
    dimensions broadcast), after transposing or adjoining either as asked.

    Returns:
        A tensor of the dtype of `a` and `b` (or `output_type` for 8-bit integer inputs) with
        shape `batch + [rows of a, columns of b]`.
    """
    if (
        isinstance(a, Tensor)
        and isinstance(b, Tensor)
        and a.dtype is b.dtype
        and a.ndim > 1
        and b.ndim > 1
        and not (transpose_a or transpose_b or adjoint_a or adjoint_b)
        and output_type is None
    ):
        try:
            return torch.matmul(a, b)
        except RuntimeError:
            pass  # the checks below name the fault
    a, b = _pair(a, b, "matmul")
    if a.dim() < 2 or b.dim() < 2:
        raise shapes_error(
            "matmul",
            a.shape,
            b.shape,
            "Both operands must have rank >= 2 (use tf.linalg.matvec for a matrix times a vector).",
        )
    if transpose_a or adjoint_a:
        if transpose_a and adjoint_a:
            raise ValueError("matmul: only one of `transpose_a` and `adjoint_a` can be True.")
        a = _mT(a, adjoint_a)
    if transpose_b or adjoint_b:
        if transpose_b and adjoint_b:
            raise ValueError("matmul: only one of `transpose_b` and `adjoint_b` can be True.")
        b = _mT(b, adjoint_b)
    if a.shape[-1] != b.shape[-2]:
        raise shapes_error(
            "matmul",
            a.shape,
            b.shape,
            f"Matrix size-incompatible: the columns of a ({a.shape[-1]}) must equal the rows of b "
            f"({b.shape[-2]}) after transposition.",
        )
    if output_type is not None:
        out_dtype = _dtypes.as_dtype(output_type)
        if out_dtype is not a.dtype:
            if a.dtype not in _EIGHT_BIT:
                raise TypeError(
                    f"matmul: output_type {dtype_name(out_dtype)} is only supported for 8-bit "
                    f"integer inputs, got {dtype_name(a.dtype)} inputs."
                )
            a, b = a.to(out_dtype), b.to(out_dtype)
    if a.dtype is torch.bool:
        raise TypeError("matmul: bool tensors are not supported; tf.cast them to a numeric dtype.")
    try:
        return torch.matmul(a, b)
    except RuntimeError as error:
        if not (a.is_floating_point() or a.is_complex()) and "not implemented" in str(error):
            # integer matmul has no kernel on some devices: exact through float64 for |x| < 2**53
            return torch.matmul(a.double(), b.double()).to(a.dtype)
        raise shapes_error(
            "matmul", a.shape, b.shape, "The batch dimensions must be broadcast-compatible."
        ) from None


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Multiplies matrix `a` by vector `b` (batch dimensions broadcast).

    Returns:
        A tensor of shape `batch + [rows of a]`.
    """
    a, b = _pair(a, b, "matvec")
    if b.dim() < 1:
        raise shapes_error("matvec", a.shape, b.shape, "`b` must be a (batch of) vector.")
    try:
        return matmul(a, b.unsqueeze(-1), transpose_a=transpose_a, adjoint_a=adjoint_a).squeeze(-1)
    except InvalidArgumentError:
        raise shapes_error(
            "matvec", a.shape, b.shape, "The vector's length must equal the matrix's columns."
        ) from None


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Contracts `a` and `b` over `axes`: an int N (the last N axes of `a` with the first N of
    `b`), or a pair of axis lists `[a_axes, b_axes]`.

    Returns:
        A tensor of shape `a`'s free axes + `b`'s free axes.
    """
    a, b = _pair(a, b, "tensordot")
    if isinstance(axes, (Tensor, np.ndarray)):
        axes = axes.tolist()
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"tensordot: `axes` must be at least 0, got {n}.")
        if n > a.dim() or n > b.dim():
            raise ValueError(
                f"tensordot: `axes` must not be larger than the number of dimensions of the "
                f"tensors; got {n} for shapes {list(a.shape)} and {list(b.shape)}."
            )
        a_axes, b_axes = list(range(a.dim() - n, a.dim())), list(range(n))
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        a_axes, b_axes = (
            [int(v)] if isinstance(v, (int, np.integer)) else [int(i) for i in v] for v in axes
        )
        if len(a_axes) != len(b_axes):
            raise ValueError(
                f"tensordot: `axes` must list as many axes of a as of b, got {a_axes} and {b_axes}."
            )
        a_axes = [normalize_axis(i, a.dim(), "tensordot") for i in a_axes]
        b_axes = [normalize_axis(i, b.dim(), "tensordot") for i in b_axes]
    else:
        raise ValueError(f"tensordot: `axes` must be an int or a pair of axis lists, got {axes!r}.")
    for i, j in zip(a_axes, b_axes):
        if a.shape[i] != b.shape[j]:
            raise shapes_error(
                "tensordot",
                a.shape,
                b.shape,
                f"Axis {i} of a (size {a.shape[i]}) and axis {j} of b (size {b.shape[j]}) are "
                "contracted and must match.",
            )
    return torch.tensordot(a, b, dims=(a_axes, b_axes))


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Tensor contraction over the indices of `equation` (numpy's einsum notation, with `...`).

    Returns:
        The contracted tensor.
    """
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"einsum: unexpected keyword arguments {sorted(kwargs)}.")
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    tensors = [_numeric(t, "einsum") for t in inputs]
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not tensors[0].dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"einsum: input {i} has dtype {dtype_name(t.dtype)} but input 0 has "
                f"{dtype_name(tensors[0].dtype)} (use tf.cast).",
            )
    try:
        return torch.einsum(equation, *tensors)
    except RuntimeError as error:
        shapes = " and ".join(str(list(t.shape)) for t in tensors)
        raise InvalidArgumentError(
            None,
            None,
            f"einsum: equation {equation!r} does not fit the inputs of shapes {shapes}: {error}",
        ) from None


def cross(a: Any, b: Any, name: str | None = None) -> Tensor:
    """The pairwise cross product of vectors of 3 elements in the innermost dimension.

    Returns:
        A tensor of the broadcast shape of `a` and `b`.
    """
    a, b = _pair(a, b, "cross")
    if a.dim() < 1 or a.shape[-1] != 3 or b.dim() < 1 or b.shape[-1] != 3:
        raise shapes_error("cross", a.shape, b.shape, "The innermost dimension of both must be 3.")
    try:
        return torch.linalg.cross(a, b, dim=-1)
    except RuntimeError:
        raise shapes_error(
            "cross", a.shape, b.shape, "The shapes must be broadcast-compatible."
        ) from None


# ----------------------------------------------------------------------------- norms


_VECTOR_ORDS = ("euclidean", 1, 2, math.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, math.inf)


def _is_ord(ord: Any, allowed: Sequence[Any]) -> bool:
    if isinstance(ord, str):
        return ord in allowed
    if isinstance(ord, builtins.bool) or not isinstance(ord, numbers.Real):
        return False
    return any(not isinstance(o, str) and ord == o for o in allowed)


def norm(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
) -> Tensor:
    """The vector norm (`axis` None or an int; None flattens the tensor) or matrix norm (`axis`
    a pair) of `tensor`. `ord`: 'euclidean' (2-norm of a vector, Frobenius of a matrix), 'fro'
    (matrices), 1, 2, np.inf, or any positive real p for vectors.

    Returns:
        A tensor of the tensor's dtype, with the normed dimensions removed (kept as size 1 with
        `keepdims`).
    """
    if (
        axis is None
        and ord == "euclidean"
        and isinstance(tensor, Tensor)
        and tensor.is_floating_point()
    ):
        return torch.linalg.vector_norm(tensor, keepdim=bool(keepdims))
    x = _floating(tensor, "norm", "tensor")
    keep = bool(keepdims)
    if axis is None:
        is_matrix = False
    elif isinstance(axis, (int, np.integer)) and not isinstance(axis, builtins.bool):
        is_matrix = False
    elif (
        isinstance(axis, (list, tuple))
        and len(axis) == 2
        and all(isinstance(v, (int, np.integer)) for v in axis)
        and normalize_axis(axis[0], x.dim(), "norm") != normalize_axis(axis[1], x.dim(), "norm")
    ):
        is_matrix = True
    else:
        raise ValueError(
            f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
        )
    if is_matrix:
        if not _is_ord(ord, _MATRIX_ORDS):
            raise ValueError(
                "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], "
                f"got {ord}"
            )
        dims = tuple(normalize_axis(a, x.dim(), "norm") for a in axis)
        torch_ord = "fro" if isinstance(ord, str) else ord
        out = torch.linalg.matrix_norm(x, ord=torch_ord, dim=dims, keepdim=keep)
    else:
        if isinstance(ord, str):
            if ord != "euclidean":
                raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
            p = 2
        elif isinstance(ord, numbers.Real) and not isinstance(ord, builtins.bool) and ord > 0:
            p = ord
        else:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        dim = None if axis is None else normalize_axis(axis, x.dim(), "norm")
        out = torch.linalg.vector_norm(x, ord=p, dim=dim, keepdim=keep)
    return out.to(x.dtype) if x.is_complex() else out


def l2_normalize(
    x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None
) -> Tensor:
    """Normalizes `x` along `axis` (all axes when None) by its L2 norm:
    `x / sqrt(max(sum(x ** 2), epsilon))`. `dim` is TF's deprecated alias of `axis`.

    Returns:
        A tensor of the same shape and dtype as `x`.
    """
    t = _floating(x, "l2_normalize", "x")
    if axis is None:
        axis = dim
    axes = normalize_axis(axis, t.dim(), "l2_normalize")
    sq = t.real.square() + t.imag.square() if t.is_complex() else t.square()
    sums = sq.sum(dim=axes, keepdim=True) if axes is not None else sq.sum().reshape([1] * t.dim())
    return t * torch.rsqrt(torch.clamp_min(sums, epsilon))


def normalize(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """Normalizes `tensor` by its norm along `axis` (see `tf.norm` for `ord` and `axis`).

    Returns:
        `(normalized, norm)`, the norm with the normed dimensions kept as size 1.
    """
    x = _floating(tensor, "normalize", "tensor")
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return x / n, n


# ----------------------------------------------------------------------------- structure


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Any:
    """Transposes the two innermost dimensions of `a` (conjugating complex values when asked).

    Returns:
        A tensor of shape `batch + [columns, rows]`.
    """
    x = _numeric(a, "matrix_transpose", "a")
    if x.dim() < 2:
        raise ValueError(
            f"matrix_transpose: argument `a` should be a (batch) matrix with rank >= 2. Received "
            f"shape {list(x.shape)}."
        )
    return _mT(x, conjugate).resolve_conj()


def adjoint(matrix: Any, name: str | None = None) -> Tensor:
    """The conjugate transpose of the two innermost dimensions.

    Returns:
        A tensor of shape `batch + [columns, rows]`.
    """
    return matrix_transpose(matrix, conjugate=True)


def band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> Tensor:
    """Keeps a central band of each innermost matrix: the `num_lower` subdiagonals and
    `num_upper` superdiagonals (a negative count keeps the whole triangle); the rest is zero.

    Returns:
        A tensor of the same shape.
    """
    x = _numeric(input, "band_part")
    if x.dim() < 2:
        raise InvalidArgumentError(
            None, None, f"band_part: input must be at least 2-dim, got shape {list(x.shape)}."
        )
    lower, upper = int(num_lower), int(num_upper)
    if lower > x.shape[-2] or upper > x.shape[-1]:
        raise InvalidArgumentError(
            None,
            None,
            f"band_part: num_lower ({lower}) must not exceed the rows and num_upper "
            f"({upper}) the columns of the input of shape {list(x.shape)}.",
        )
    if upper >= 0:
        x = torch.tril(x, upper)
    if lower >= 0:
        x = torch.triu(x, -lower)
    return x if upper >= 0 or lower >= 0 else x.clone()


def trace(x: Any, name: str | None = None) -> Tensor:
    """The sum of the main diagonal of each innermost matrix.

    Returns:
        A tensor of shape `batch`, of the dtype of `x`.
    """
    t = _numeric(x, "trace", "x")
    if t.dim() < 2:
        raise ValueError(f"trace: `x` must be at least a matrix, got shape {list(t.shape)}.")
    return torch.diagonal(t, dim1=-2, dim2=-1).sum(-1, dtype=t.dtype)


def _k_range(k: Any) -> tuple[int, int, bool]:
    if isinstance(k, (Tensor, np.ndarray)):
        k = k.tolist()
    if isinstance(k, (list, tuple)):
        if len(k) == 1:
            return int(k[0]), int(k[0]), False
        if len(k) != 2:
            raise InvalidArgumentError(
                None, None, f"diag: `k` must be an int or a pair, got {k!r}."
            )
        low, high = int(k[0]), int(k[1])
        if low > high:
            raise InvalidArgumentError(
                None, None, f"diag: k[0] ({low}) must not exceed k[1] ({high})."
            )
        return low, high, low != high
    return int(k), int(k), False


def _align(align: str) -> tuple[bool, bool]:
    """(superdiagonals right-aligned, subdiagonals right-aligned)."""
    options = {
        "RIGHT_LEFT": (True, False),
        "LEFT_RIGHT": (False, True),
        "LEFT_LEFT": (False, False),
        "RIGHT_RIGHT": (True, True),
    }
    if align not in options:
        raise ValueError(f"diag: `align` must be one of {sorted(options)}, got {align!r}.")
    return options[align]


def _diag_offsets(d: Tensor, rows: int, cols: int, max_len: int, align: str) -> Tensor:
    """Start of each diagonal `d` within its (max_len-long, padded) row of the packed form."""
    super_right, sub_right = _align(align)
    length = torch.minimum(rows + torch.clamp_max(d, 0), cols - torch.clamp_min(d, 0))
    right = ((d >= 0) & super_right) | ((d < 0) & sub_right)
    return torch.where(right, max_len - length, torch.zeros_like(length))


def _band_index(
    rows: int, cols: int, low: int, high: int, max_len: int, align: str, device: Any
) -> tuple[Tensor, Tensor]:
    """For each matrix entry: the packed position `(k1 - d) * max_len + offset + min(i, j)` and
    whether the entry lies in the band."""
    i = torch.arange(rows, device=device).unsqueeze(1)
    j = torch.arange(cols, device=device).unsqueeze(0)
    d = j - i
    inside = (d >= low) & (d <= high)
    offsets = _diag_offsets(d, rows, cols, max_len, align)
    pos = (high - d).clamp(0, high - low) * max_len + offsets + torch.minimum(i, j)
    return torch.where(inside, pos, torch.zeros_like(pos)), inside


def _max_len(rows: int, cols: int, low: int, high: int) -> int:
    return min(rows + min(high, 0), cols - max(low, 0))


def diag(
    diagonal: Any,
    name: str = "diag",
    k: Any = 0,
    num_rows: Any = -1,
    num_cols: Any = -1,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Builds matrices from diagonals: `diagonal[..., L]` becomes diagonal `k`, or for `k` a
    pair `(k0, k1)`, `diagonal[..., k1 - k0 + 1, L]` the band of diagonals k1 (first) down to
    k0, packed by `align`; other entries are `padding_value`.

    Returns:
        A tensor of shape `batch + [num_rows, num_cols]` (square when neither is given).
    """
    values = _numeric(diagonal, "diag", "diagonal")
    low, high, band = _k_range(k)
    if values.dim() < (2 if band else 1):
        raise InvalidArgumentError(
            None, None, f"diag: `diagonal` has too few dimensions: {list(values.shape)}."
        )
    packed = values if band else values.unsqueeze(-2)
    if packed.shape[-2] != high - low + 1:
        raise InvalidArgumentError(
            None,
            None,
            f"diag: `diagonal` of shape {list(values.shape)} must hold {high - low + 1} "
            f"diagonals for k=({low}, {high}).",
        )
    length = packed.shape[-1]
    min_rows = length - min(high, 0)
    min_cols = length + max(low, 0)
    rows, cols = int(num_rows), int(num_cols)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows and cols < min_cols or _max_len(rows, cols, low, high) != length:
        raise InvalidArgumentError(
            None,
            None,
            f"diag: the diagonals of length {length} do not fit a {rows}x{cols} matrix "
            f"for k=({low}, {high}).",
        )
    pos, inside = _band_index(rows, cols, low, high, length, align, values.device)
    flat = packed.reshape(packed.shape[:-2] + (-1,))
    out = flat[..., pos.reshape(-1)].reshape(packed.shape[:-2] + (rows, cols))
    pad = torch.as_tensor(padding_value, dtype=values.dtype, device=values.device)
    return torch.where(inside, out, pad)


def diag_part(
    input: Any,
    name: str = "diag_part",
    k: Any = 0,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Returns diagonal `k` of each innermost matrix, or for `k` a pair `(k0, k1)` the band of
    diagonals k1 (first) down to k0, packed by `align` and padded with `padding_value`.

    Returns:
        A tensor of shape `batch + [L]` (or `batch + [k1 - k0 + 1, L]` for a band).
    """
    x = _numeric(input, "diag_part")
    if x.dim() < 2:
        raise InvalidArgumentError(
            None, None, f"diag_part: input must be at least 2-dim, got {list(x.shape)}."
        )
    low, high, band = _k_range(k)
    rows, cols = x.shape[-2], x.shape[-1]
    if not (-rows < low <= high < cols) and not (rows == 0 or cols == 0):
        raise InvalidArgumentError(
            None,
            None,
            f"diag_part: k=({low}, {high}) is out of range for matrices of shape [{rows}, {cols}].",
        )
    max_len = max(_max_len(rows, cols, low, high), 0)
    n = high - low + 1
    r = torch.arange(n, device=x.device).unsqueeze(1)
    p = torch.arange(max_len, device=x.device).unsqueeze(0)
    d = high - r
    offsets = _diag_offsets(d, rows, cols, max_len, align)
    length = torch.minimum(rows + torch.clamp_max(d, 0), cols - torch.clamp_min(d, 0))
    along = p - offsets
    valid = (along >= 0) & (along < length)
    i = along + torch.clamp_min(-d, 0)
    j = along + torch.clamp_min(d, 0)
    flat_pos = torch.where(valid, i * cols + j, torch.zeros_like(i))
    flat = x.reshape(x.shape[:-2] + (-1,))
    out = flat[..., flat_pos.reshape(-1)].reshape(x.shape[:-2] + (n, max_len))
    out = torch.where(valid, out, torch.as_tensor(padding_value, dtype=x.dtype, device=x.device))
    return out if band else out.squeeze(-2)


def set_diag(
    input: Any,
    diagonal: Any,
    name: str = "set_diag",
    k: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Returns `input` with diagonal `k` (or the band `(k0, k1)`, packed by `align`) replaced by
    `diagonal`.

    Returns:
        A tensor of the shape and dtype of `input`.
    """
    x = _numeric(input, "set_diag")
    if x.dim() < 2:
        raise InvalidArgumentError(
            None, None, f"set_diag: input must be at least 2-dim, got {list(x.shape)}."
        )
    values = _numeric(diagonal, "set_diag", "diagonal")
    if values.dtype is not x.dtype:
        raise InvalidArgumentError(
            None,
            None,
            f"set_diag: diagonal has dtype {dtype_name(values.dtype)} but input has "
            f"{dtype_name(x.dtype)}.",
        )
    low, high, band = _k_range(k)
    rows, cols = x.shape[-2], x.shape[-1]
    max_len = max(_max_len(rows, cols, low, high), 0)
    packed = values if band else values.unsqueeze(-2)
    want = tuple(x.shape[:-2]) + (high - low + 1, max_len)
    if tuple(packed.shape) != want:
        raise shapes_error(
            "set_diag",
            values.shape,
            want if band else want[:-2] + want[-1:],
            f"diagonal must have the shape of the k=({low}, {high}) diagonals of input of shape "
            f"{list(x.shape)}.",
        )
    pos, inside = _band_index(rows, cols, low, high, max_len, align, x.device)
    flat = packed.reshape(packed.shape[:-2] + (-1,))
    picked = flat[..., pos.reshape(-1)].reshape(x.shape)
    return torch.where(inside, picked, x)


def tensor_diag(diagonal: Any, name: str | None = None) -> Tensor:
    """A tensor of rank 2k with `diagonal` (rank k) on its diagonal:
    `output[i1..ik, i1..ik] = diagonal[i1..ik]`, zero elsewhere.

    Returns:
        A tensor of shape `diagonal.shape + diagonal.shape`.
    """
    values = _numeric(diagonal, "tensor_diag", "diagonal")
    return torch.diag(values.reshape(-1)).reshape(values.shape + values.shape)


def tensor_diag_part(input: Any, name: str | None = None) -> Tensor:
    """The diagonal part of a rank-2k tensor: `output[i1..ik] = input[i1..ik, i1..ik]`.

    Returns:
        A tensor of rank k.
    """
    x = _numeric(input, "tensor_diag_part")
    half = x.dim() // 2
    if x.dim() % 2 or x.shape[:half] != x.shape[half:]:
        raise InvalidArgumentError(
            None,
            None,
            f"tensor_diag_part: input must have an even rank 2k with matching halves, got "
            f"shape {list(x.shape)}.",
        )
    n = math.prod(x.shape[:half])
    return torch.diagonal(x.reshape(n, n)).reshape(x.shape[:half])


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
