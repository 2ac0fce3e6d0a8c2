"""Sorting and uniqueness (TF's sort_ops): tf.sort, argsort, searchsorted, unique,
unique_with_counts."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.array_ops._common import Tensor, _like, _numeric
from torchestimator._ops.convert import convert_to_tensor, normalize_axis, shapes_error
from torchestimator.errors import InvalidArgumentError

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


# ----------------------------------------------------------------------------- sorting


def _direction(direction: str, op: str) -> bool:
    if direction == "ASCENDING":
        return False
    if direction == "DESCENDING":
        return True
    raise ValueError(
        f"{op}: argument `direction` should be one of ASCENDING, DESCENDING. Received: "
        f"direction={direction}"
    )


def sort(
    values: Any, axis: int = -1, direction: str = "ASCENDING", name: str | None = None
) -> Tensor:
    """Sorts `values` along `axis` in `direction` ('ASCENDING' or 'DESCENDING').

    Returns:
        A tensor of the same dtype and shape, sorted along `axis`.
    """
    x = _numeric(values, "sort", "values")
    descending = _direction(direction, "sort")
    axis = normalize_axis(axis, x.dim(), "sort")
    return torch.sort(x, dim=axis, descending=descending, stable=True).values


def argsort(
    values: Any,
    axis: int = -1,
    direction: str = "ASCENDING",
    stable: bool = False,
    name: str | None = None,
) -> Tensor:
    """Returns the indices that sort `values` along `axis` (always stable: ties keep their order).

    Returns:
        An int32 tensor of the same shape as `values`.
    """
    x = _numeric(values, "argsort", "values")
    descending = _direction(direction, "argsort")
    axis = normalize_axis(axis, x.dim(), "argsort")
    return torch.sort(x, dim=axis, descending=descending, stable=True).indices.to(torch.int32)


def searchsorted(
    sorted_sequence: Any,
    values: Any,
    side: str = "left",
    out_type: Any = torch.int32,
    name: str | None = None,
) -> Tensor:
    """For each value, the index in `sorted_sequence` (sorted along its innermost axis) where it
    would be inserted: before equal entries (`side='left'`) or after them (`'right'`).

    Returns:
        A tensor of `out_type` (int32 by default) of the shape of `values`.
    """
    if side not in ("left", "right"):
        raise ValueError(
            "searchsorted: argument `side` must be either 'right' or 'left'. Received: "
            f"`side` = {side!r}."
        )
    seq = _numeric(sorted_sequence, "searchsorted", "sorted_sequence")
    vals = _like(values, seq.dtype, "searchsorted", "values")
    out_dtype = _dtypes.as_dtype(out_type)
    try:
        out = torch.searchsorted(
            seq.contiguous(),
            vals.contiguous(),
            right=side == "right",
            out_int32=out_dtype is torch.int32,
        )
    except RuntimeError:
        raise shapes_error(
            "searchsorted",
            seq.shape,
            vals.shape,
            "sorted_sequence and values must share their leading (batch) dimensions.",
        ) from None
    return out if out.dtype is out_dtype else out.to(out_dtype)


def _unique(x: Any, out_idx: Any, op: str) -> tuple[Any, Tensor, Tensor]:
    idx_dtype = _dtypes.as_dtype(out_idx)
    if idx_dtype not in (torch.int32, torch.int64):
        raise TypeError(f"{op}: `out_idx` must be int32 or int64, got {out_idx!r}.")
    t = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if t.ndim != 1:
        raise InvalidArgumentError(
            None, None, f"{op}: unique expects a 1D vector, got shape {list(t.shape)}."
        )
    if isinstance(t, np.ndarray):
        values, first, inverse, counts = np.unique(
            t, return_index=True, return_inverse=True, return_counts=True
        )
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return (
            values[order],
            torch.from_numpy(rank[inverse.reshape(-1)]).to(idx_dtype),
            torch.from_numpy(counts[order]).to(idx_dtype),
        )
    values, inverse, counts = torch.unique(t, sorted=True, return_inverse=True, return_counts=True)
    n = t.numel()
    first = torch.full((values.numel(),), n, dtype=torch.int64, device=t.device)
    first = first.scatter_reduce(0, inverse, torch.arange(n, device=t.device), "amin")
    order = torch.argsort(first)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.numel(), device=t.device)
    return values[order], rank[inverse].to(idx_dtype), counts[order].to(idx_dtype)


def unique(x: Any, out_idx: Any = torch.int32, name: str | None = None) -> Unique:
    """Finds the unique elements of a 1-D tensor, in order of first occurrence.

    Returns:
        `Unique(y, idx)`: the unique values and, for each element of `x`, the index of its value
        in `y` (`out_idx` dtype).
    """
    y, idx, _ = _unique(x, out_idx, "unique")
    return Unique(y, idx)


def unique_with_counts(
    x: Any, out_idx: Any = torch.int32, name: str | None = None
) -> UniqueWithCounts:
    """Finds the unique elements of a 1-D tensor in order of first occurrence, with their counts.

    Returns:
        `UniqueWithCounts(y, idx, count)`.
    """
    return UniqueWithCounts(*_unique(x, out_idx, "unique_with_counts"))
