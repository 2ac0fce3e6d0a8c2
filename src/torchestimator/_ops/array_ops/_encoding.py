"""Index encodings: tf.one_hot, sequence_mask, unravel_index."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.array_ops._common import Tensor, _index_tensor, _int, _int_list, _numeric
from torchestimator._ops.array_ops._slicing import _fill_value
from torchestimator._ops.convert import convert_to_tensor, dtype_name, placed
from torchestimator.errors import InvalidArgumentError


def one_hot(
    indices: Any,
    depth: Any,
    on_value: Any = None,
    off_value: Any = None,
    axis: Any = None,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """A one-hot tensor: `on_value` where the position along the new `axis` equals the index,
    `off_value` elsewhere (an index of -1 or outside [0, depth) gives an all-off row).

    Returns:
        A tensor of rank `rank(indices) + 1`, of `dtype` (else the dtype of `on_value`/`off_value`,
        else float32).
    """
    idx = _index_tensor(indices, "one_hot")
    if not isinstance(indices, Tensor):  # ids from Python or numpy: placed as TF places the op
        idx = placed(idx)
    depth = _int(depth, "one_hot", "depth")
    if depth < 0:
        raise InvalidArgumentError(None, None, f"one_hot: depth must be non-negative, got {depth}.")
    on_t = on_value if isinstance(on_value, (Tensor, np.ndarray, np.generic)) else None
    off_t = off_value if isinstance(off_value, (Tensor, np.ndarray, np.generic)) else None
    if on_t is not None:
        on_t = convert_to_tensor(on_t)
    if off_t is not None:
        off_t = convert_to_tensor(off_t)
    if on_t is not None and off_t is not None and on_t.dtype is not off_t.dtype:
        raise TypeError(
            f"one_hot: dtype {dtype_name(on_t.dtype)} of on_value does not match dtype "
            f"{dtype_name(off_t.dtype)} of off_value."
        )
    if dtype is not None:
        out_dtype = _dtypes.as_dtype(dtype)
        for label, t in (("on_value", on_t), ("off_value", off_t)):
            if t is not None and t.dtype is not out_dtype:
                raise TypeError(
                    f"one_hot: dtype {dtype_name(t.dtype)} of {label} does not match the dtype "
                    f"argument {dtype_name(out_dtype)}."
                )
    elif on_t is not None or off_t is not None:
        out_dtype = (on_t if on_t is not None else off_t).dtype
    elif on_value is not None:
        out_dtype = convert_to_tensor(on_value).dtype
    elif off_value is not None:
        out_dtype = convert_to_tensor(off_value).dtype
    else:
        out_dtype = torch.float32
    rank = idx.dim()
    axis = -1 if axis is None else _int(axis, "one_hot", "axis")
    if axis != -1 and not 0 <= axis <= rank:
        raise InvalidArgumentError(
            None,
            None,
            f"one_hot: expected axis to be -1 or between [0, {rank + 1}), but received {axis}.",
        )
    axis = rank if axis == -1 else axis
    view = [1] * (rank + 1)
    view[axis] = depth
    hot = idx.unsqueeze(axis) == torch.arange(depth, device=idx.device, dtype=idx.dtype).reshape(
        view
    )
    if on_value is None and off_value is None:
        return hot.to(out_dtype)
    on = _fill_value(on_t if on_t is not None else on_value, 1, out_dtype, idx.device, "on_value")
    off = _fill_value(
        off_t if off_t is not None else off_value, 0, out_dtype, idx.device, "off_value"
    )
    return torch.where(hot, on, off)


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """Converts flat indices into coordinates in an array of shape `dims`.

    Returns:
        A tensor of shape `[len(dims)] + indices.shape`, of the dtype of `indices`.
    """
    idx = _index_tensor(indices, "unravel_index")
    shape = _int_list(dims, "unravel_index", "dims")
    total = math.prod(shape)
    if idx.numel() and (idx.min() < 0 or idx.max() >= total):
        raise InvalidArgumentError(
            None,
            None,
            f"unravel_index: an index of {idx.tolist()} is out of bounds for dims {shape}.",
        )
    rest, coords = idx, []
    for size in reversed(shape):
        coords.append(torch.remainder(rest, size))
        rest = torch.div(rest, size, rounding_mode="floor")
    return torch.stack(coords[::-1]) if coords else idx.new_zeros((0,) + tuple(idx.shape))


def sequence_mask(
    lengths: Any, maxlen: Any = None, dtype: Any = torch.bool, name: str | None = None
) -> Tensor:
    """A mask of the first `lengths[i]` positions of each row: `mask[i..., j] = j < lengths[i...]`.

    Returns:
        A tensor of shape `lengths.shape + [maxlen]` (maxlen defaults to `max(lengths)`), of
        `dtype`.
    """
    lens = _numeric(lengths, "sequence_mask", "lengths")
    if lens.is_floating_point():
        lens = lens.long()
    if maxlen is None:
        maxlen = int(lens.max()) if lens.numel() else 0
    else:
        maxlen = _int(maxlen, "sequence_mask", "maxlen")
    maxlen = max(maxlen, 0)
    mask = torch.arange(maxlen, device=lens.device) < lens.unsqueeze(-1)
    out_dtype = _dtypes.as_dtype(dtype)
    return mask if out_dtype is torch.bool else mask.to(out_dtype)
