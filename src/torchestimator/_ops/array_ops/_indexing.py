"""Gathering and selection: tf.gather, gather_nd, boolean_mask, where."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._ops.array_ops._common import (
    Tensor,
    _check_indices,
    _index_tensor,
    _int,
    _like,
    _numeric,
    _shape,
    _strings,
)
from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    normalize_axis,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- indexing


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    axis: Any = None,
    batch_dims: int = 0,
    name: str | None = None,
) -> Any:
    """Gathers slices from `params` along `axis` according to `indices` (with `batch_dims`
    leading batch dimensions shared by `params` and `indices`).

    Returns:
        A tensor of shape
        `params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]`.
    """
    x = params if isinstance(params, Tensor) else convert_to_tensor(params)
    if isinstance(x, np.ndarray):
        return _strings(gather, x, indices, None, axis, batch_dims)
    idx = _index_tensor(indices, "gather")
    if batch_dims == 0 and (axis is None or type(axis) is int) and x.device == idx.device:
        ax = 0 if axis is None else axis + x.dim() if axis < 0 else axis
        if 0 <= ax < x.dim() and x.device.type == "cpu":
            flat = idx if idx.dim() == 1 else idx.reshape(-1)
            if flat.dtype is not torch.int64 and flat.dtype is not torch.int32:
                flat = flat.long()
            try:
                out = x.index_select(ax, flat)
            except IndexError:
                _check_indices(idx, x.shape[ax], "gather")
                raise
            if idx.dim() == 1:
                return out
            return out.reshape(x.shape[:ax] + idx.shape + x.shape[ax + 1 :])
    if idx.device != x.device:
        idx = idx.to(x.device)
    rank = x.dim()
    batch_dims = _int(batch_dims, "gather", "batch_dims")
    if batch_dims < 0:
        batch_dims += idx.dim()
    axis = batch_dims if axis is None else _int(axis, "gather", "axis")
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise InvalidArgumentError(
            None, None, f"gather: axis {axis} is out of range for params of shape {_shape(x)}."
        )
    if not 0 <= batch_dims <= idx.dim() or batch_dims > axis:
        raise InvalidArgumentError(
            None,
            None,
            f"gather: batch_dims ({batch_dims}) must be in [0, rank(indices)={idx.dim()}] and less "
            f"than or equal to axis ({axis}).",
        )
    if tuple(x.shape[:batch_dims]) != tuple(idx.shape[:batch_dims]):
        raise shapes_error(
            "gather",
            x.shape,
            idx.shape,
            f"The first batch_dims={batch_dims} dimensions of params and indices must be equal.",
        )
    # off the CPU an out-of-range index is a device-side assert: check first (TF's CPU error)
    _check_indices(idx, x.shape[axis], "gather")
    if batch_dims == 0:
        out = x.index_select(axis, idx.reshape(-1).long())
        return out.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1 :])
    batch = x.shape[:batch_dims]
    b = math.prod(batch)
    xb = x.reshape((b,) + x.shape[batch_dims:])
    ib = idx.reshape((b,) + idx.shape[batch_dims:])
    a = axis - batch_dims + 1  # the gathered axis in xb
    moved = xb.movedim(a, 1)  # [B, P_axis, pre..., post...]
    rows = torch.arange(b, device=x.device).reshape((b,) + (1,) * (ib.dim() - 1))
    picked = moved[rows, ib.long()]  # [B, i..., pre..., post...]
    n_i, n_pre = ib.dim() - 1, a - 1
    order = [0] + list(range(1 + n_i, 1 + n_i + n_pre)) + list(range(1, 1 + n_i))
    order += list(range(1 + n_i + n_pre, picked.dim()))
    out = picked.permute(order)
    return out.reshape(
        batch + x.shape[batch_dims:axis] + idx.shape[batch_dims:] + x.shape[axis + 1 :]
    )


def _linear_nd(
    idx: Tensor, dims: Sequence[int], op: str, shape: Sequence[int], what: str
) -> Tensor:
    """Flat positions of the K-vectors in `idx[..., K]` within a tensor of shape `dims` (TF's
    CPU range check first: TF does not wrap negative indices)."""
    k = idx.shape[-1]
    if idx.numel():
        bounds = torch.tensor(list(dims), device=idx.device, dtype=idx.dtype)
        bad = ((idx < 0) | (idx >= bounds)).any(-1)
        if bool(bad.any()):
            first = bad.reshape(-1).nonzero()[0, 0]
            vec = idx.reshape(-1, k)[first].tolist()
            pos = np.unravel_index(int(first), tuple(idx.shape[:-1])) if idx.dim() > 1 else ()
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: indices[{','.join(str(int(p)) for p in pos)}] = {vec} does not index into "
                f"{what} shape {list(shape)}.",
            )
    strides = [math.prod(dims[i + 1 :]) for i in range(k)]
    if k == 0:
        return torch.zeros(idx.shape[:-1], dtype=torch.int64, device=idx.device)
    return (idx.long() * torch.tensor(strides, device=idx.device)).sum(-1)


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None) -> Any:
    """Gathers slices from `params` into a tensor shaped `indices.shape[:-1] + params.shape[K:]`,
    each innermost vector of `indices` (length K) indexing the first K dimensions (after
    `batch_dims` batch dimensions).

    Returns:
        A tensor with the same dtype as `params`.
    """
    x = params if isinstance(params, Tensor) else convert_to_tensor(params)
    if isinstance(x, np.ndarray):
        return _strings(gather_nd, x, indices, batch_dims)
    idx = _index_tensor(indices, "gather_nd")
    if idx.device != x.device:
        idx = idx.to(x.device)
    bd = _int(batch_dims, "gather_nd", "batch_dims")
    if idx.dim() < 1:
        raise InvalidArgumentError(None, None, "gather_nd: `indices` must be at least a vector.")
    k = idx.shape[-1]
    if bd < 0 or bd >= idx.dim() or k > x.dim() - bd:
        raise InvalidArgumentError(
            None,
            None,
            f"gather_nd: index innermost dimension length must be <= params rank - batch_dims; saw "
            f"indices shape {_shape(idx)} for params shape {_shape(x)} with batch_dims={bd}.",
        )
    if tuple(x.shape[:bd]) != tuple(idx.shape[:bd]):
        raise shapes_error(
            "gather_nd",
            x.shape,
            idx.shape,
            f"The first batch_dims={bd} dimensions of params and indices must be equal.",
        )
    batch = math.prod(x.shape[:bd])
    dims = list(x.shape[bd : bd + k])
    inner = math.prod(dims)
    linear = _linear_nd(idx, dims, "gather_nd", x.shape, "param")
    if bd:
        per_batch = math.prod(idx.shape[bd:-1])
        offsets = torch.arange(batch, device=x.device).repeat_interleave(per_batch) * inner
        linear = linear.reshape(-1) + offsets
    flat = x.reshape((batch * inner,) + x.shape[bd + k :])
    out = flat.index_select(0, linear.reshape(-1))
    return out.reshape(idx.shape[:-1] + x.shape[bd + k :])


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Any:
    """Keeps the entries of `tensor` where `mask` (matching `tensor.shape[axis:axis + mask.ndim]`)
    is True, flattening the masked dimensions into one.

    Returns:
        A tensor of rank `tensor.ndim - mask.ndim + 1`.
    """
    x = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    if isinstance(x, np.ndarray):
        return _strings(boolean_mask, x, mask, axis)
    m = mask if isinstance(mask, Tensor) else convert_to_tensor(mask)
    if isinstance(m, np.ndarray):
        raise TypeError("boolean_mask: `mask` must be a bool tensor, got strings.")
    if m.dim() == 0:
        raise ValueError("boolean_mask: mask cannot be scalar.")
    axis = 0 if axis is None else normalize_axis(axis, x.dim(), "boolean_mask")
    k = m.dim()
    if tuple(x.shape[axis : axis + k]) != tuple(m.shape):
        raise shapes_error(
            "boolean_mask",
            x.shape[axis : axis + k],
            m.shape,
            f"The mask's shape must match dimensions {axis}..{axis + k - 1} of the tensor of shape "
            f"{_shape(x)}.",
        )
    if m.dtype is not torch.bool:
        m = m != 0
    if m.device != x.device:
        m = m.to(x.device)
    flat = x.reshape(x.shape[:axis] + (-1,) + x.shape[axis + k :])
    return flat.index_select(axis, m.reshape(-1).nonzero().reshape(-1))


def _is_strings(value: Any) -> bool:
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "OUS"
    return isinstance(value, list) and np.asarray(value).dtype.kind in "OUS"


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Any:
    """With `x` and `y`: picks `x` where `condition` is True and `y` elsewhere (all three
    broadcast). With `condition` alone: the coordinates of its true (non-zero) elements.

    Returns:
        The selected tensor, or an int64 tensor of shape `[num_true, rank(condition)]`.
    """
    if x is None and y is None:
        c = _numeric(condition, "where", "condition")
        return torch.nonzero(c)
    if x is None or y is None:
        raise ValueError("where: x and y must both be non-None or both be None.")
    c = condition if isinstance(condition, Tensor) else convert_to_tensor(condition)
    if isinstance(c, np.ndarray) or c.dtype is not torch.bool:
        kind = "strings" if isinstance(c, np.ndarray) else dtype_name(c.dtype)
        raise InvalidArgumentError(
            None, None, f"where: `condition` must be a bool tensor, got {kind}."
        )
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        if _is_strings(x) or _is_strings(y):
            return np.where(
                c.cpu().numpy(), np.asarray(x, dtype=object), np.asarray(y, dtype=object)
            )
        if isinstance(x, Tensor) and isinstance(y, (list, tuple)):  # a list takes the other's dtype
            y = _like(y, x.dtype, "where", "y")
        elif isinstance(y, Tensor) and isinstance(x, (list, tuple)):
            x = _like(x, y.dtype, "where", "x")
        x, y = binary_operands(x, y, "where")
    elif x.dtype is not y.dtype:
        raise InvalidArgumentError(
            None,
            None,
            f"where: x has dtype {dtype_name(x.dtype)} and y has dtype {dtype_name(y.dtype)}; "
            "they must match (use tf.cast).",
        )
    try:
        return torch.where(c, x, y)
    except RuntimeError:
        xs = list(x.shape) if isinstance(x, Tensor) else []
        ys = list(y.shape) if isinstance(y, Tensor) else []
        raise InvalidArgumentError(
            None,
            None,
            f"where: condition {_shape(c)}, then {xs}, and else {ys} must be broadcastable.",
        ) from None
