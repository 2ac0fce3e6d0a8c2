"""tf.math's arg reductions, cumulative scans and top-k: argmax, argmin, cumsum, cumprod,
cumulative_logsumexp, top_k, approx_max_k / approx_min_k, in_top_k."""

from __future__ import annotations

import builtins
import collections
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name, pair_on_one_device
from torchestimator._ops.host_fallback import host_fallback
from torchestimator._ops.math_ops._common import _BOOL, _FLOATS, _NUMERIC, _REAL, Tensor, _tensor
from torchestimator.errors import InvalidArgumentError


# --------------------------------------------------------------------------------------------
# arg reductions, scans, top_k
# --------------------------------------------------------------------------------------------
def _single_axis(axis: Any, rank: int, op: str, message: str) -> int:
    if isinstance(axis, (Tensor, np.ndarray)):
        if np.ndim(axis) != 0:
            raise InvalidArgumentError(
                None, None, f"{op}: dim must be a scalar, but received tensor of shape: "
                f"{list(np.shape(axis))}"
            )
        axis = axis.item()
    if isinstance(axis, (list, tuple)):
        raise InvalidArgumentError(
            None, None, f"{op}: dim must be a scalar, but received tensor of shape: "
            f"[{len(axis)}]"
        )
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            None, None, f"{op}: {message} in the range [{-rank}, {rank}), but got {axis}"
        )
    return axis % rank


_ARG_TYPES = frozenset({torch.int32, torch.int64, torch.int16} | (
    {torch.uint16} if hasattr(torch, "uint16") else set()))


def _arg_reduce(input: Any, axis: Any, output_type: Any, op: str, largest: builtins.bool) -> Tensor:
    x = _tensor(input, op, _REAL | {_BOOL})
    out = _dtypes.as_dtype(output_type)
    if out not in _ARG_TYPES:
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'output_type' of {dtype_name(out)} is not in the "
            "list of allowed values: int16, uint16, int32, int64"
        )
    dim = _single_axis(0 if axis is None else axis, x.dim(), op, "Expected dimension")
    if x.shape[dim] == 0:
        raise InvalidArgumentError(
            None, None, f"{op}: Reduction axis {dim} is empty in shape {list(x.shape)}"
        )
    if x.dtype is _BOOL:
        x = x.to(torch.uint8)
    elif x.is_floating_point():  # TF's kernel skips NaN (torch would pick it)
        x = torch.where(torch.isnan(x), float("-inf") if largest else float("inf"), x)
    index = torch.argmax(x, dim=dim) if largest else torch.argmin(x, dim=dim)
    return index if out is torch.int64 else index.to(out)


def argmax(input: Any, axis: Any = None, output_type: Any = torch.int64,
           name: str | None = None) -> Tensor:
    """Returns the index with the largest value across an axis of a tensor (TF's
    `tf.math.argmax`): `axis` defaults to 0; ties give the smallest index.

    Returns:
        An int64 (or `output_type`) tensor with `axis` removed.
    """
    return _arg_reduce(input, axis, output_type, "argmax", True)


def argmin(input: Any, axis: Any = None, output_type: Any = torch.int64,
           name: str | None = None) -> Tensor:
    """Returns the index with the smallest value across an axis of a tensor (TF's
    `tf.math.argmin`): `axis` defaults to 0; ties give the smallest index.

    Returns:
        An int64 (or `output_type`) tensor with `axis` removed.
    """
    return _arg_reduce(input, axis, output_type, "argmin", False)


def _scan(x: Tensor, axis: Any, exclusive: Any, reverse: Any, op: str,
          scan_fn: Callable[[Tensor, int], Tensor], identity: float) -> Tensor:
    dim = _single_axis(axis, x.dim(), op, "ScanOp: Expected scan axis")
    if reverse:
        x = x.flip(dim)
    result = scan_fn(x, dim)
    if exclusive and x.shape[dim] > 0:
        shape = list(x.shape)
        shape[dim] = 1
        first = torch.full(shape, identity, dtype=result.dtype, device=result.device)
        result = torch.cat([first, result.narrow(dim, 0, x.shape[dim] - 1)], dim=dim)
    return result.flip(dim) if reverse else result


def cumsum(x: Any, axis: Any = 0, exclusive: Any = False, reverse: Any = False,
           name: str | None = None) -> Tensor:
    """Computes the cumulative sum of the tensor `x` along `axis` (TF's `tf.math.cumsum`);
    `exclusive` starts from 0, `reverse` sums from the end.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    x = _tensor(x, "cumsum", _NUMERIC)
    return _scan(x, axis, exclusive, reverse, "cumsum",
                 lambda t, d: host_fallback(lambda u: torch.cumsum(u, d, dtype=u.dtype), t), 0)


def cumprod(x: Any, axis: Any = 0, exclusive: Any = False, reverse: Any = False,
            name: str | None = None) -> Tensor:
    """Computes the cumulative product of the tensor `x` along `axis` (TF's
    `tf.math.cumprod`); `exclusive` starts from 1, `reverse` multiplies from the end.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    x = _tensor(x, "cumprod", _NUMERIC)
    return _scan(x, axis, exclusive, reverse, "cumprod",
                 lambda t, d: torch.cumprod(t, d, dtype=t.dtype), 1)


def cumulative_logsumexp(x: Any, axis: Any = 0, exclusive: Any = False, reverse: Any = False,
                         name: str | None = None) -> Tensor:
    """Computes the cumulative log-sum-exp of the tensor `x` along `axis` (TF's
    `tf.math.cumulative_logsumexp`); `exclusive` starts from -inf.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    x = _tensor(x, "cumulative_logsumexp", _FLOATS)
    return _scan(x, axis, exclusive, reverse, "cumulative_logsumexp", torch.logcumsumexp,
                 float("-inf"))


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _top_k(x: Tensor, k: int, dim: int, largest: builtins.bool, index_type: torch.dtype,
           op: str) -> tuple[Tensor, Tensor]:
    n = x.shape[dim]
    if k < 0:
        raise InvalidArgumentError(None, None, f"{op}: Need k >= 0, got {k}")
    if n < k:
        raise InvalidArgumentError(
            None, None, f"{op}: input must have at least k columns. Had {n}, needed {k}"
        )
    key = x
    if x.is_floating_point():  # TF ranks NaN below every number
        key = torch.where(torch.isnan(x), float("-inf") if largest else float("inf"), x)
    # A stable sort keeps TF's tie order: among equal values, the lower index first.
    order = torch.sort(key, dim=dim, descending=largest, stable=True).indices.narrow(dim, 0, k)
    values = torch.gather(x, dim, order)
    return values, order if index_type is torch.int64 else order.to(index_type)


def top_k(input: Any, k: Any = 1, sorted: builtins.bool = True, index_type: Any = torch.int32,
          name: str | None = None) -> TopKV2:
    """Finds values and indices of the `k` largest entries for the last dimension (TF's
    `tf.math.top_k`); equal values keep the lower index first.

    Returns:
        A `TopKV2(values, indices)` namedtuple; indices are int32 (or `index_type`).
    """
    x = _tensor(input, "top_k", _REAL)
    if x.dim() == 0:
        raise InvalidArgumentError(
            None, None, f"top_k: input must be >= 1-D, got shape {list(x.shape)}"
        )
    index_type = _dtypes.as_dtype(index_type)
    if index_type not in (torch.int16, torch.int32, torch.int64):
        raise InvalidArgumentError(
            None, None, f"top_k: index_type must be int16, int32 or int64, got "
            f"{dtype_name(index_type)}"
        )
    values, indices = _top_k(x, int(k), x.dim() - 1, True, index_type, "top_k")
    return TopKV2(values, indices)


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: builtins.bool = True, name: str | None = None) -> ApproxTopK:
    """Returns the max `k` values and their indices along `reduction_dimension` (TF's
    `tf.math.approx_max_k`; computed exactly here).

    Returns:
        An `ApproxTopK(values, indices)` namedtuple with int32 indices.
    """
    x = _tensor(operand, "approx_max_k", _REAL)
    dim = _single_axis(reduction_dimension, x.dim(), "approx_max_k", "Expected dimension")
    return ApproxTopK(*_top_k(x, int(k), dim, True, torch.int32, "approx_max_k"))


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: builtins.bool = True, name: str | None = None) -> ApproxTopK:
    """Returns the min `k` values and their indices along `reduction_dimension` (TF's
    `tf.math.approx_min_k`; computed exactly here).

    Returns:
        An `ApproxTopK(values, indices)` namedtuple with int32 indices.
    """
    x = _tensor(operand, "approx_min_k", _REAL)
    dim = _single_axis(reduction_dimension, x.dim(), "approx_min_k", "Expected dimension")
    return ApproxTopK(*_top_k(x, int(k), dim, False, torch.int32, "approx_min_k"))


def in_top_k(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Tensor:
    """Says whether the targets are in the top `k` predictions (TF's `tf.math.in_top_k`).

    Classes tied with the target's prediction at the top-k boundary count as
    in the top k; a row with a non-finite prediction, or a target out of
    range, gives False.

    Returns:
        A bool tensor of shape [batch_size].
    """
    preds = _tensor(predictions, "in_top_k", frozenset({torch.float32}))
    tgts = _tensor(targets, "in_top_k", frozenset({torch.int32, torch.int64}))
    preds, tgts = pair_on_one_device(preds, tgts)
    if preds.dim() != 2 or tgts.dim() != 1 or tgts.shape[0] != preds.shape[0]:
        raise InvalidArgumentError(
            None, None, "in_top_k: predictions must be 2-D and targets 1-D with one target per "
            f"row; got shapes {list(preds.shape)} and {list(tgts.shape)}"
        )
    classes = preds.shape[1]
    valid = (tgts >= 0) & (tgts < classes)
    index = tgts.clamp(0, max(classes - 1, 0)).long().unsqueeze(1)
    if classes == 0:
        return torch.zeros(tgts.shape, dtype=torch.bool, device=preds.device)
    target_pred = torch.gather(preds, 1, index)
    better = (preds > target_pred).sum(1)
    return valid & torch.isfinite(preds).all(1) & (better < int(k))
