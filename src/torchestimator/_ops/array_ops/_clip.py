"""Clipping (TF's clip_ops): tf.clip_by_value, clip_by_norm, global_norm, clip_by_global_norm."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._ops.array_ops._common import Tensor, _numeric
from torchestimator._ops.convert import (
    as_tensor,
    binary_operands,
    dtype_name,
    normalize_axis,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- clipping


def clip_by_value(
    t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None
) -> Tensor:
    """Clips values to `[clip_value_min, clip_value_max]` (TF's order: the min is applied last,
    so `min > max` gives `min`). The bounds broadcast to the shape of `t`.

    Returns:
        A clipped tensor of the same type and shape as `t`.
    """
    lo = clip_value_min
    hi = clip_value_max
    if isinstance(t, Tensor) and type(lo) is type(hi) and (type(lo) is float or type(lo) is int):
        if lo <= hi and (type(lo) is int or t.is_floating_point()) and t.dtype is not torch.bool:
            return torch.clamp(t, lo, hi)
    x = _numeric(t, "clip_by_value", "t")
    _, hi = binary_operands(x, hi, "clip_by_value")
    _, lo = binary_operands(x, lo, "clip_by_value")
    for bound in (lo, hi):
        if isinstance(bound, Tensor) and bound.dim():
            try:
                ok = torch.broadcast_shapes(x.shape, bound.shape) == x.shape
            except RuntimeError:
                ok = False
            if not ok:
                raise shapes_error(
                    "clip_by_value",
                    x.shape,
                    bound.shape,
                    "The clip bounds must broadcast to the shape of t.",
                )
    hi_t = hi if isinstance(hi, Tensor) else torch.tensor(hi, dtype=x.dtype, device=x.device)
    lo_t = lo if isinstance(lo, Tensor) else torch.tensor(lo, dtype=x.dtype, device=x.device)
    return torch.maximum(torch.minimum(x, hi_t), lo_t)


def _float_tensor(t: Any, op: str, arg: str) -> Tensor:
    x = _numeric(t, op, arg)
    if not (x.is_floating_point() or x.is_complex()):
        raise TypeError(f"{op}: `{arg}` must be a floating tensor, got {dtype_name(x.dtype)}.")
    return x


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """Rescales `t` so that its L2 norm (over `axes`, default all) is at most `clip_norm`:
    `t * clip_norm / max(l2norm(t), clip_norm)`.

    Returns:
        A clipped tensor of the same shape and dtype.
    """
    x = _float_tensor(t, "clip_by_norm", "t")
    axes = normalize_axis(axes, x.dim(), "clip_by_norm")
    sq = (x * x.conj()).real if x.is_complex() else x * x
    l2sum = sq.sum(dim=axes, keepdim=True) if axes is not None else sq.sum().reshape([1] * x.dim())
    pos = l2sum > 0
    l2norm = torch.where(pos, torch.sqrt(torch.where(pos, l2sum, torch.ones_like(l2sum))), l2sum)
    _, c = binary_operands(x, clip_norm, "clip_by_norm")
    c = c if isinstance(c, Tensor) else torch.tensor(c, dtype=l2norm.dtype, device=x.device)
    return x * c / torch.maximum(l2norm, c.real if c.is_complex() else c)


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """The global norm of a list of tensors: `sqrt(sum(l2norm(t) ** 2 for t in t_list))`
    (None entries are ignored).

    Returns:
        A scalar tensor of the tensors' dtype.
    """
    if isinstance(t_list, (Tensor, np.ndarray)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    tensors = [_float_tensor(t, "global_norm", "t_list") for t in t_list if t is not None]
    if not tensors:
        return torch.tensor(0.0)
    dtype = tensors[0].dtype
    sums = []
    for i, t in enumerate(tensors):
        if t.dtype is not dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"global_norm: t_list[{i}] has dtype {dtype_name(t.dtype)} but the others are "
                f"{dtype_name(dtype)}.",
            )
        sums.append(torch.sum((t * t.conj()).real if t.is_complex() else t * t))
    return torch.sqrt(torch.stack([s.to(tensors[0].device) for s in sums]).sum())


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Any], Tensor]:
    """Scales the tensors of `t_list` by `clip_norm / max(global_norm, clip_norm)` (None entries
    stay None; an infinite or NaN norm gives NaN values, as TF).

    Returns:
        `(list_clipped, global_norm)`: the clipped tensors and the global norm used.
    """
    if isinstance(t_list, (Tensor, np.ndarray)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    norm = (
        global_norm(t_list)
        if use_norm is None
        else _numeric(use_norm, "clip_by_global_norm", "use_norm")
    )
    if not norm.is_floating_point():
        norm = norm.to(torch.float32)
    c = clip_norm if isinstance(clip_norm, Tensor) else torch.tensor(clip_norm, dtype=norm.dtype)
    c = c.to(device=norm.device, dtype=norm.dtype)
    scale = c * torch.minimum(1.0 / norm, 1.0 / c)
    scale = scale + (norm - norm)  # NaN when the norm is inf or NaN, as TF
    clipped = []
    for t in t_list:
        if t is None:
            clipped.append(None)
            continue
        t = as_tensor(t)
        clipped.append(t * scale.to(device=t.device, dtype=t.dtype))
    return clipped, norm
