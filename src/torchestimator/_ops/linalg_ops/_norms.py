"""tf.norm / tf.linalg.norm, l2_normalize and normalize."""

from __future__ import annotations

import builtins
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import normalize_axis
from torchestimator._ops.linalg_ops._common import Tensor, _floating

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
