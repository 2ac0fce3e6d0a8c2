"""tf.linalg's products: matmul, matvec, tensordot, einsum, cross."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name, normalize_axis, shapes_error
from torchestimator._ops.host_fallback import host_fallback
from torchestimator._ops.linalg_ops._common import _EIGHT_BIT, Tensor, _mT, _numeric, _pair
from torchestimator.errors import InvalidArgumentError

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
            return host_fallback(torch.matmul, a, b)
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
        return host_fallback(torch.matmul, a, b)
    except RuntimeError:
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
    return host_fallback(lambda x, y: torch.tensordot(x, y, dims=(a_axes, b_axes)), a, b)


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
        return host_fallback(lambda *operands: torch.einsum(equation, *operands), *tensors)
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
