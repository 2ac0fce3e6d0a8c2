"""tf.math's segment ops (sorted and unsorted), bincount and confusion_matrix."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    convert_to_tensor,
    dtype_name,
    pair_on_one_device,
    shapes_error,
)
from torchestimator._ops.host_fallback import host_fallback
from torchestimator._ops.math_ops._arithmetic import _TRUEDIV_FLOAT
from torchestimator._ops.math_ops._common import (
    _FLOAT_COMPLEX,
    _INTS,
    _NUMERIC,
    _REAL,
    Tensor,
    _tensor,
)
from torchestimator.errors import InvalidArgumentError

# --------------------------------------------------------------------------------------------
# segments, counting
# --------------------------------------------------------------------------------------------
_INDEX_TYPES = frozenset({torch.int32, torch.int64})


def _segment_ids(segment_ids: Any, op: str) -> Tensor:
    ids = segment_ids if isinstance(segment_ids, Tensor) else convert_to_tensor(segment_ids)
    if isinstance(ids, np.ndarray) or ids.dtype not in _INDEX_TYPES:
        shown = "string" if isinstance(ids, np.ndarray) else dtype_name(ids.dtype)
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'Tindices' of {shown} is not in the list of "
            "allowed values: int32, int64"
        )
    return ids


def _sorted_segments(data: Any, segment_ids: Any, op: str,
                     allowed: frozenset = _NUMERIC) -> tuple[Tensor, Tensor, int]:
    x, ids = pair_on_one_device(_tensor(data, op, allowed), _segment_ids(segment_ids, op))
    if ids.dim() != 1 or x.dim() == 0 or ids.shape[0] != x.shape[0]:
        raise InvalidArgumentError(
            None, None, f"{op}: segment_ids should be the same size as dimension 0 of input; got "
            f"shapes {list(ids.shape)} and {list(x.shape)}."
        )
    if ids.numel() == 0:
        return x, ids.long(), 0
    if builtins.bool((ids[1:] < ids[:-1]).any()):
        raise InvalidArgumentError(None, None, f"{op}: segment ids are not increasing")
    first, last = int(ids[0]), int(ids[-1])
    if first < 0:
        raise InvalidArgumentError(
            None, None, f"{op}: Segment id {first} out of range [0, {last + 1}), possibly because "
            "'segment_ids' input is not sorted."
        )
    return x, ids.long(), last + 1


def _unsorted_segments(data: Any, segment_ids: Any, num_segments: Any, op: str,
                       allowed: frozenset = _NUMERIC) -> tuple[Tensor, Tensor, int]:
    """Flattened data [N, ...], ids in [0, n] (negatives mapped to the dropped bin n), n."""
    x, ids = pair_on_one_device(_tensor(data, op, allowed), _segment_ids(segment_ids, op))
    n = int(num_segments.item() if isinstance(num_segments, Tensor) else num_segments)
    if n < 0:
        raise InvalidArgumentError(None, None, f"{op}: num_segments must be >= 0, got {n}")
    if tuple(x.shape[: ids.dim()]) != tuple(ids.shape):
        raise InvalidArgumentError(
            None, None, f"{op}: data.shape = {list(x.shape)} does not start with "
            f"segment_ids.shape = {list(ids.shape)}"
        )
    flat_ids = ids.reshape(-1).long()
    if flat_ids.numel() and builtins.bool((flat_ids >= n).any()):
        bad = int(torch.nonzero(flat_ids >= n)[0, 0])
        raise InvalidArgumentError(
            None, None, f"{op}: segment_ids[{bad}] = {int(flat_ids[bad])} is out of range "
            f"[0, {n})"
        )
    flat = x.reshape(flat_ids.numel(), *x.shape[ids.dim():])
    return flat, torch.where(flat_ids < 0, n, flat_ids), n


def _index(ids: Tensor, like: Tensor) -> Tensor:
    return ids.view(-1, *([1] * (like.dim() - 1))).expand_as(like)


def _seg_sum(x: Tensor, ids: Tensor, bins: int) -> Tensor:
    out = torch.zeros((bins, *x.shape[1:]), dtype=x.dtype, device=x.device)
    return out.index_add(0, ids, x)


def _seg_reduce(x: Tensor, ids: Tensor, bins: int, reduce: str, fill: Any) -> Tensor:
    out = torch.full((bins, *x.shape[1:]), fill, dtype=x.dtype, device=x.device)
    return host_fallback(lambda o, i, v: o.scatter_reduce(0, i, v, reduce, include_self=False),
                         out, _index(ids, x), x)


def _seg_counts(ids: Tensor, bins: int, like: Tensor) -> Tensor:
    counts = torch.bincount(ids, minlength=bins)[:bins]
    return counts.view(-1, *([1] * (like.dim() - 1)))


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the sum along sorted segments of a tensor (TF's `tf.math.segment_sum`):
    output[i] = sum of data[j] where segment_ids[j] == i; 0 for empty segments.

    Returns:
        A tensor of shape [segment_ids[-1] + 1] + data.shape[1:].
    """
    x, ids, n = _sorted_segments(data, segment_ids, "segment_sum")
    return _seg_sum(x, ids, n)


def segment_prod(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the product along sorted segments of a tensor (TF's `tf.math.segment_prod`);
    1 for empty segments."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_prod")
    return _seg_reduce(x, ids, n, "prod", 1)


def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the maximum along sorted segments of a tensor (TF's `tf.math.segment_max`);
    0 for empty segments."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_max", _REAL)
    return _seg_reduce(x, ids, n, "amax", 0)


def segment_min(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the minimum along sorted segments of a tensor (TF's `tf.math.segment_min`);
    0 for empty segments."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_min", _REAL)
    return _seg_reduce(x, ids, n, "amin", 0)


def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Computes the mean along sorted segments of a tensor (TF's `tf.math.segment_mean`);
    0 for empty segments; integer means truncate, keeping the dtype."""
    x, ids, n = _sorted_segments(data, segment_ids, "segment_mean")
    total = _seg_sum(x, ids, n)
    counts = _seg_counts(ids, n, x).clamp(min=1)
    if x.dtype in _INTS:
        return torch.div(total, counts, rounding_mode="trunc").to(x.dtype)
    return total / counts.to(total.real.dtype if total.is_complex() else total.dtype)


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Tensor:
    """Computes the sum along segments of a tensor (TF's `tf.math.unsorted_segment_sum`);
    segment_ids may be unsorted and of any rank that prefixes data's shape; negative ids are
    dropped; 0 for empty segments.

    Returns:
        A tensor of shape [num_segments] + data.shape[segment_ids.ndim:].
    """
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_sum")
    return _seg_sum(x, ids, n + 1)[:n]


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any,
                          name: str | None = None) -> Tensor:
    """Computes the product along segments of a tensor (TF's `tf.math.unsorted_segment_prod`);
    1 for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_prod")
    return _seg_reduce(x, ids, n + 1, "prod", 1)[:n]


def _lowest(dtype: torch.dtype) -> Any:
    return torch.finfo(dtype).min if dtype.is_floating_point else torch.iinfo(dtype).min


def _highest(dtype: torch.dtype) -> Any:
    return torch.finfo(dtype).max if dtype.is_floating_point else torch.iinfo(dtype).max


def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Tensor:
    """Computes the maximum along segments of a tensor (TF's `tf.math.unsorted_segment_max`);
    the dtype's lowest finite value for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_max",
                                   _REAL)
    return _seg_reduce(x, ids, n + 1, "amax", _lowest(x.dtype))[:n]


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Tensor:
    """Computes the minimum along segments of a tensor (TF's `tf.math.unsorted_segment_min`);
    the dtype's highest finite value for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_min",
                                   _REAL)
    return _seg_reduce(x, ids, n + 1, "amin", _highest(x.dtype))[:n]


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: str | None = None) -> Tensor:
    """Computes the mean along segments of a tensor (TF's `tf.math.unsorted_segment_mean`):
    sum / max(count, 1), so 0 for empty segments; integers divide as truediv (int32 gives
    float64)."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_mean")
    total = _seg_sum(x, ids, n + 1)[:n]
    counts = _seg_counts(ids, n + 1, x)[:n].clamp(min=1)
    target = _TRUEDIV_FLOAT.get(total.dtype)
    if target is not None:
        total = total.to(target)
    return total / counts.to(total.real.dtype if total.is_complex() else total.dtype)


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: str | None = None) -> Tensor:
    """Computes the sum along segments divided by sqrt(N), N the segment's size (TF's
    `tf.math.unsorted_segment_sqrt_n`); 0 for empty segments."""
    x, ids, n = _unsorted_segments(data, segment_ids, num_segments, "unsorted_segment_sqrt_n",
                                   _FLOAT_COMPLEX)
    total = _seg_sum(x, ids, n + 1)[:n]
    counts = _seg_counts(ids, n + 1, x)[:n].clamp(min=1)
    return total / torch.sqrt(counts.to(total.real.dtype if total.is_complex() else total.dtype))


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = torch.int32, name: str | None = None, axis: Any = None,
             binary_output: builtins.bool = False) -> Tensor:
    """Counts the number of occurrences of each value in an integer array (TF's
    `tf.math.bincount`).

    The output has max(arr) + 1 bins (at least `minlength`, at most
    `maxlength`; larger values are dropped). With `weights`, each bin sums
    the weights (output in the weights' dtype); `binary_output` marks
    presence. `axis=-1` counts each row of a 2-D `arr` separately; `axis=None`
    flattens.

    Returns:
        A 1-D tensor (2-D for `axis=-1`) of `dtype` (int32 by default).
    """
    if weights is not None and binary_output:
        raise ValueError(
            "Arguments `binary_output` and `weights` are mutually exclusive. Please specify "
            "only one."
        )
    values = _tensor(arr, "bincount", _INTS)
    if axis not in (None, 0, -1):
        raise ValueError(f"bincount: unsupported axis {axis!r}; use None, 0 or -1.")
    per_row = axis == -1 and values.dim() > 1
    if per_row and values.dim() != 2:
        raise InvalidArgumentError(
            None, None, f"bincount: axis=-1 needs a 2-D arr, got shape {list(values.shape)}"
        )
    out_dtype = _dtypes.as_dtype(dtype)
    if weights is not None:
        w = weights if isinstance(weights, Tensor) else convert_to_tensor(weights)
        if tuple(w.shape) != tuple(values.shape):
            raise shapes_error("bincount", values.shape, w.shape, "(arr and weights)")
        out_dtype = w.dtype
    if values.numel() and builtins.bool((values < 0).any()):
        raise InvalidArgumentError(None, None, "bincount: Input arr must be non-negative!")
    size = int(values.max()) + 1 if values.numel() else 0
    if minlength is not None:
        size = max(size, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength))
    flat = values.reshape(values.shape[0], -1) if per_row else values.reshape(1, -1)
    rows = flat.shape[0]
    idx = flat.long().clamp(max=size)  # values >= size go to a dropped extra bin
    idx = idx + torch.arange(rows, device=idx.device).unsqueeze(1) * (size + 1)
    contrib = (w.reshape(rows, -1).to(out_dtype) if weights is not None
               else torch.ones(idx.shape, dtype=out_dtype, device=idx.device))
    counts = torch.zeros(rows * (size + 1), dtype=out_dtype, device=idx.device)
    counts = counts.index_add(0, idx.reshape(-1), contrib.reshape(-1)).view(rows, size + 1)
    counts = counts[:, :size]
    if binary_output:
        counts = (counts > 0).to(out_dtype)
    return counts if per_row else counts[0]


def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None, weights: Any = None,
                     dtype: Any = torch.int32, name: str | None = None) -> Tensor:
    """Computes the confusion matrix from predictions and labels (TF's
    `tf.math.confusion_matrix`): rows are real labels, columns predictions.

    Returns:
        A [num_classes, num_classes] tensor of `dtype` (int32 by default); `num_classes`
        defaults to max(labels, predictions) + 1.
    """
    lab = _tensor(labels, "confusion_matrix", _INTS)
    pred = _tensor(predictions, "confusion_matrix", _INTS)
    if lab.dim() == pred.dim() + 1 and lab.shape[-1] == 1:
        lab = lab.squeeze(-1)
    elif pred.dim() == lab.dim() + 1 and pred.shape[-1] == 1:
        pred = pred.squeeze(-1)
    if lab.shape != pred.shape:
        raise shapes_error("confusion_matrix", lab.shape, pred.shape, "(labels and predictions)")
    lab, pred = pair_on_one_device(lab.reshape(-1).long(), pred.reshape(-1).long())
    for values, what in ((lab, "labels"), (pred, "predictions")):
        if values.numel() and builtins.bool((values < 0).any()):
            raise InvalidArgumentError(None, None, f"`{what}` contains negative values")
    if num_classes is None:
        n = int(torch.maximum(lab.max(), pred.max())) + 1 if lab.numel() else 0
    else:
        n = int(num_classes.item() if isinstance(num_classes, Tensor) else num_classes)
        for values, what in ((lab, "labels"), (pred, "predictions")):
            if values.numel() and builtins.bool((values >= n).any()):
                raise InvalidArgumentError(
                    None, None, f"`{what}` out of bound: values must be < num_classes={n}"
                )
    out_dtype = _dtypes.as_dtype(dtype)
    if weights is None:
        contrib = torch.ones(lab.shape, dtype=out_dtype, device=lab.device)
    else:
        w = weights if isinstance(weights, Tensor) else convert_to_tensor(weights)
        if w.numel() != lab.numel():
            raise shapes_error("confusion_matrix", lab.shape, w.shape, "(labels and weights)")
        contrib = w.reshape(-1).to(device=lab.device, dtype=out_dtype)
    matrix = torch.zeros(n * n, dtype=out_dtype, device=lab.device)
    return matrix.index_add(0, lab * n + pred, contrib).view(n, n)
