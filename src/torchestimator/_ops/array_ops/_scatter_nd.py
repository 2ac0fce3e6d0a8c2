"""Scatters: tf.tensor_scatter_nd_update / add / sub / max / min and tf.scatter_nd."""

from __future__ import annotations

import math
from typing import Any

import torch

from torchestimator._ops.array_ops._common import (
    Tensor,
    _index_tensor,
    _int_list,
    _like,
    _numeric,
    _shape,
)
from torchestimator._ops.array_ops._indexing import _linear_nd
from torchestimator._ops.convert import shapes_error
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- scatter


def _scatter_parts(
    tensor: Tensor, indices: Any, updates: Any, op: str
) -> tuple[Tensor, Tensor, Tensor]:
    idx = _index_tensor(indices, op)
    if idx.device != tensor.device:
        idx = idx.to(tensor.device)
    upd = _like(updates, tensor.dtype, op, "updates")
    if upd.device != tensor.device:
        upd = upd.to(tensor.device)
    if idx.dim() < 1 or idx.shape[-1] > tensor.dim():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: the innermost dimension of indices (shape {_shape(idx)}) must be at most "
            "the rank "
            f"of the output shape {_shape(tensor)}.",
        )
    k = idx.shape[-1]
    want = tuple(idx.shape[:-1]) + tuple(tensor.shape[k:])
    if tuple(upd.shape) != want:
        raise shapes_error(
            op,
            upd.shape,
            want,
            f"updates must have shape indices.shape[:-1] + output.shape[{k}:] (indices shape "
            f"{_shape(idx)}, output shape {_shape(tensor)}).",
        )
    dims = list(tensor.shape[:k])
    linear = _linear_nd(idx, dims, op, tensor.shape, "the output").reshape(-1)
    flat_upd = upd.reshape((-1,) + tuple(tensor.shape[k:]))
    return linear, flat_upd, tensor.reshape((math.prod(dims),) + tuple(tensor.shape[k:]))


def _scatter(tensor: Any, indices: Any, updates: Any, op: str, how: str) -> Tensor:
    x = _numeric(tensor, op, "tensor")
    linear, upd, flat = _scatter_parts(x, indices, updates, op)
    if how == "update":
        out = flat.index_put((linear,), upd)
    elif how == "add":
        out = flat.index_put((linear,), upd, accumulate=True)
    elif how == "sub":
        out = flat.index_put((linear,), -upd, accumulate=True)
    else:
        index = linear.reshape((-1,) + (1,) * (upd.dim() - 1)).expand_as(upd)
        out = flat.scatter_reduce(0, index, upd, how, include_self=True)
    return out.reshape(x.shape)


def tensor_scatter_nd_update(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with the slices at `indices` (K-vectors) replaced by `updates`.

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_update", "update")


def tensor_scatter_nd_add(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with `updates` added at `indices` (duplicates accumulate).

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_add", "add")


def tensor_scatter_nd_sub(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with `updates` subtracted at `indices` (duplicates accumulate).

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_sub", "sub")


def tensor_scatter_nd_max(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with the element-wise maximum of it and `updates` at `indices`.

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_max", "amax")


def tensor_scatter_nd_min(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """Returns a copy of `tensor` with the element-wise minimum of it and `updates` at `indices`.

    Returns:
        A tensor of the shape and dtype of `tensor`.
    """
    return _scatter(tensor, indices, updates, "tensor_scatter_nd_min", "amin")


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Tensor:
    """Scatters `updates` into a new zero tensor of `shape` at `indices` (duplicates are summed).

    Returns:
        A tensor of `shape` with the dtype of `updates`.
    """
    upd = _numeric(updates, "scatter_nd", "updates")
    dims = _int_list(shape, "scatter_nd", "shape")
    zeros = torch.zeros(dims, dtype=upd.dtype, device=upd.device)
    return _scatter(zeros, indices, upd, "scatter_nd", "add")
