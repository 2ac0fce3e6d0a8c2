"""tf.linalg's structural ops: matrix_transpose, adjoint, band_part, trace, and the diagonal ops
(diag, diag_part, set_diag, tensor_diag, tensor_diag_part) with TF's k ranges and alignments."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import dtype_name, shapes_error
from torchestimator._ops.linalg_ops._common import Tensor, _mT, _numeric
from torchestimator.errors import InvalidArgumentError

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
