"""The reduction-axis helpers TF's reducing ops share: `tf.math.reduce_*`'s axes (None for all,
distinct, in range, TF's messages), the reduced shape and element count, and `tf.nn.moments`'
axes (None for all, duplicates merged)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import normalize_axis
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor


def reduction_axes(axis: Any, rank: int, op: str) -> tuple[int, ...] | None:
    """TF's reduction axes: None (all), or a tuple of distinct axes in [0, rank)."""
    if axis is None:
        return None
    if isinstance(axis, (Tensor, np.ndarray)):
        axis = axis.tolist()
    items = axis if isinstance(axis, (list, tuple)) else [axis]
    out = []
    for a in items:
        if isinstance(a, float) or isinstance(a, builtins.bool):
            raise TypeError(f"{op}: axis must be integers, got {axis!r}.")
        a = int(a)
        if not -rank <= a < rank:
            raise InvalidArgumentError(
                None, None,
                f"{op}: Invalid reduction dimension ({a} for input with {rank} dimension(s))",
            )
        a %= rank
        if a in out:
            raise InvalidArgumentError(
                None, None,
                f"{op}: Invalid reduction arguments: Axes contains duplicate dimension: {a}",
            )
        out.append(a)
    return tuple(out)


def all_axes(x: Tensor, dims: tuple[int, ...] | None) -> tuple[int, ...]:
    """The axes `dims` names, or all of `x`'s axes where `dims` is None."""
    return tuple(builtins.range(x.dim())) if dims is None else dims


def reduced_shape(x: Tensor, dims: tuple[int, ...] | None, keepdims: Any) -> list[int]:
    """The shape of `x` reduced over `dims` (those axes dropped, or kept as 1 with `keepdims`)."""
    dims = all_axes(x, dims)
    if keepdims:
        return [1 if i in dims else d for i, d in enumerate(x.shape)]
    return [d for i, d in enumerate(x.shape) if i not in dims]


def reduced_count(x: Tensor, dims: tuple[int, ...] | None) -> int:
    """How many elements of `x` each reduced value over `dims` gathers."""
    count = 1
    for i in all_axes(x, dims):
        count *= x.shape[i]
    return count


def moment_axes(axes: Any, rank: int, op: str) -> tuple[int, ...]:
    """`tf.nn.moments`' axes: all for None, else in [0, rank), sorted, duplicates merged."""
    axes = normalize_axis(axes, rank, op)
    if axes is None:
        return tuple(range(rank))
    return (axes,) if isinstance(axes, int) else tuple(sorted(set(axes)))
