"""The `tf.ragged` ops: constant, range, stack, boolean_mask, map_flat_values, cross,
cross_hashed, row_splits_to_segment_ids, segment_ids_to_row_splits, stack_dynamic_partitions."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ragged import _values as V
from torchestimator._ragged._tensor import RaggedTensor
from torchestimator._sparse_tensor import SparseTensor
from torchestimator.errors import InvalidArgumentError

_INT64_MAX = np.uint64(2**63 - 1)


# ------------------------------------------------------------------------------ constant
def _depths(value: Any, depth: int, scalars: set, lists: list) -> None:
    if isinstance(value, (list, tuple)):
        lists[0] = max(lists[0], depth + 1)
        for v in value:
            _depths(v, depth + 1, scalars, lists)
    elif isinstance(value, np.ndarray) and value.ndim > 0:
        _depths(value.tolist(), depth, scalars, lists)
    else:
        scalars.add(depth)


def constant(pylist: Any, dtype: Any = None, ragged_rank: int | None = None,
             inner_shape: Any = None, name: str | None = None,
             row_splits_dtype: Any = torch.int64) -> Any:
    """Constructs a constant RaggedTensor from a nested Python list (TF's `tf.ragged.constant`).

    All scalars must have the same nesting depth. `ragged_rank` (default: depth - 1,
    less `len(inner_shape)`) ragged dimensions; `inner_shape` the uniform shape of the
    innermost values.

    Returns:
        A RaggedTensor with `ragged_rank` ragged dimensions; a Tensor (`tf.constant`'s) when
        `ragged_rank` is 0, as it is by default for a scalar or a flat list.
    """
    sdt = V.splits_dtype(row_splits_dtype)
    if isinstance(pylist, RaggedTensor):
        return pylist
    scalars: set = set()
    lists = [0]
    _depths(pylist, 0, scalars, lists)
    if len(scalars) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    has_scalars = bool(scalars)
    depth = scalars.pop() if scalars else lists[0]
    inner = None if inner_shape is None else tuple(int(d) for d in inner_shape)
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - (len(inner) if inner else 0))
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if ragged_rank == 0:  # TF's inner factory: tf.constant(pylist, dtype, shape=inner_shape)
        dense = V.to_flat(pylist, want)
        if inner is not None and int(np.prod(inner)) != int(np.prod(dense.shape)):
            raise ValueError(f"tf.ragged.constant: pylist={pylist!r} has {int(np.prod(dense.shape))} "
                             f"values; inner_shape={list(inner)} with ragged_rank=0 holds "
                             f"{int(np.prod(inner))}")
        return dense if inner is None else dense.reshape(inner)
    if ragged_rank < 0 or ragged_rank >= depth + (0 if has_scalars else 1):
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                         f"{ragged_rank}")
    if inner is not None and depth - ragged_rank - 1 != len(inner) and has_scalars:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank} "
                         f"and dim(inner_shape)={len(inner)}")
    splits_list = []
    items = list(pylist)
    for _ in builtins.range(ragged_rank):
        lengths = [len(x) for x in items]
        splits_list.append(torch.tensor([0, *np.cumsum(lengths).tolist()], dtype=sdt))
        items = [y for x in items for y in x]
    if items:
        flat = V.to_flat(items, want)
        if inner is not None:
            flat = flat.reshape((-1, *inner))
    else:
        empty_inner = inner if inner is not None else (0,) * max(0, depth - 1 - ragged_rank)
        if want is _dtypes.string:
            flat = np.empty((0, *empty_inner), dtype=object)
        else:
            flat = torch.zeros((0, *empty_inner), dtype=want or torch.float32)
    return RaggedTensor.from_nested_row_splits(flat, splits_list, validate=False)


# ------------------------------------------------------------------------------ range
def range(starts: Any, limits: Any = None, deltas: Any = 1, dtype: Any = None,  # noqa: A001
          name: str | None = None, row_splits_dtype: Any = torch.int64) -> RaggedTensor:
    """Returns a RaggedTensor of ranges: row `i` is `range(starts[i], limits[i], deltas[i])`
    (TF's `tf.ragged.range`). With `limits` None, rows run from 0 to `starts`.

    Raises InvalidArgumentError when a delta is 0.
    """
    if limits is None:
        starts, limits = 0, starts
    parts = [V.to_flat(x, dtype) for x in (starts, limits, deltas)]
    kinds = [p.dtype for p in parts]
    out_dtype = _dtypes.as_dtype(dtype) if dtype is not None else (
        torch.promote_types(torch.promote_types(kinds[0], kinds[1]), kinds[2]))
    for p, arg in zip(parts, ("starts", "limits", "deltas")):
        if p.ndim > 1:
            raise ValueError(f"tf.ragged.range: {arg} must be a scalar or vector; received shape "
                             f"{list(p.shape)}")
    s, lim, d = torch.broadcast_tensors(*[p.to(out_dtype).reshape(-1) for p in parts])
    if bool((d == 0).any()):
        raise InvalidArgumentError(f"tf.ragged.range: Requires delta != 0; received deltas="
                                   f"{d.tolist()}")
    lengths = torch.ceil((lim - s).to(torch.float64) / d.to(torch.float64)).clamp(min=0).to(
        torch.int64)
    rows = torch.repeat_interleave(torch.arange(lengths.numel()), lengths)
    within = torch.arange(rows.numel()) - (torch.cumsum(lengths, 0) - lengths)[rows]
    values = (s[rows] + d[rows] * within.to(out_dtype)).to(out_dtype)
    splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    return RaggedTensor(values, splits.to(V.splits_dtype(row_splits_dtype)), internal=True)


# ------------------------------------------------------------------------------ stack
def _ragged_with_rank(value: Any, ragged_rank: int) -> Any:
    if isinstance(value, RaggedTensor):
        return value
    flat = V.to_flat(value)
    if ragged_rank == 0 or flat.ndim <= 1:
        return flat
    return RaggedTensor.from_tensor(flat, ragged_rank=min(ragged_rank, flat.ndim - 1))


def concat_rows(parts: Sequence[Any]) -> Any:
    """Concatenates RaggedTensors (same ragged_rank) or dense values along axis 0."""
    if not isinstance(parts[0], RaggedTensor):
        return V.concat(list(parts))
    values = concat_rows([p.values for p in parts])
    splits, offset = [torch.zeros(1, dtype=torch.int64)], 0
    for p in parts:
        s = p.row_splits.to(torch.int64)
        splits.append(s[1:] + offset)
        offset += int(s[-1])
    return RaggedTensor(values, torch.cat(splits).to(parts[0].row_splits_dtype), internal=True)


def stack_rows(rows: Sequence[Any], row_splits_dtype: Any = torch.int64) -> RaggedTensor:
    """A RaggedTensor whose row `i` is `rows[i]` (tensors or RaggedTensors of one rank)."""
    rr = max((r.ragged_rank for r in rows if isinstance(r, RaggedTensor)), default=0)
    parts = [_ragged_with_rank(r, rr) for r in rows]
    lengths = torch.tensor([V.nrows_of(p) for p in parts], dtype=torch.int64)
    splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    return RaggedTensor(concat_rows(parts), splits.to(V.splits_dtype(row_splits_dtype)),
                        internal=True)


def stack(values: Sequence[Any], axis: int = 0, name: str | None = None) -> RaggedTensor:
    """Stacks a list of rank-R tensors (ragged or dense) into one rank-(R+1) RaggedTensor
    (TF's `tf.ragged.stack`). The inputs may have different sizes along every axis except
    the ones before `axis`."""
    if not isinstance(values, (list, tuple)) or not values:
        raise ValueError("tf.ragged.stack: values must be a non-empty list of tensors")
    rank = _rank(values[0])
    if any(_rank(v) != rank for v in values):
        raise ValueError(f"tf.ragged.stack: all values must have the same rank; received ranks "
                         f"{[_rank(v) for v in values]}")
    ax = axis + rank + 1 if axis < 0 else axis
    if ax == 0:
        return stack_rows(values)
    if ax == 1:
        rr = max((v.ragged_rank for v in values if isinstance(v, RaggedTensor)), default=0)
        parts = [_ragged_with_rank(v, max(rr, 1)) for v in values]
        n = V.nrows_of(parts[0])
        if any(V.nrows_of(p) != n for p in parts):
            raise ValueError(f"tf.ragged.stack(axis=1): all values must have the same number of "
                             f"rows; received {[V.nrows_of(p) for p in parts]}")
        joined = concat_rows(parts)
        k = len(parts)
        order = (torch.arange(k).reshape(k, 1) * n + torch.arange(n)).T.reshape(-1)
        inner = V.gather(joined, order)
        return RaggedTensor(inner, torch.arange(n + 1, dtype=torch.int64) * k, internal=True)
    raise ValueError(f"tf.ragged.stack: axis={axis} is supported for 0 and 1 here; stack the "
                     "rows (axis 0 or 1) and use merge_dims or map_flat_values for deeper axes")


def _rank(value: Any) -> int:
    if isinstance(value, RaggedTensor):
        return value.ndim
    return len(V.to_flat(value).shape)


# ------------------------------------------------------------------------------ boolean_mask
def _bool_flat(mask: Any) -> Any:
    if isinstance(mask, RaggedTensor):
        return mask
    m = V.to_flat(mask)
    if m.dtype != torch.bool:
        raise TypeError(f"tf.ragged.boolean_mask: mask must be a bool tensor; received dtype "
                        f"{_dtypes.dtype_name(m.dtype)}")
    return m


def boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """Applies a boolean mask to `data` without flattening the mask dimensions
    (TF's `tf.ragged.boolean_mask`).

    Returns a potentially ragged tensor: `result[i1..ik] = data[i1..ik]` filtered by the
    innermost mask dimension; a 1-D mask keeps whole rows.
    """
    mask = _bool_flat(mask)
    mrank = mask.ndim if isinstance(mask, RaggedTensor) else mask.ndim
    if mrank == 1:
        keep = torch.nonzero(mask.reshape(-1)).reshape(-1)
        if isinstance(data, RaggedTensor):
            if data.nrows() != mask.shape[0]:
                raise ValueError(f"tf.ragged.boolean_mask: mask has {mask.shape[0]} entries but "
                                 f"data has {data._nrows()} rows")
            return data._gather_rows(keep)
        flat = V.to_flat(data)
        if flat.shape[0] != mask.shape[0]:
            raise ValueError(f"tf.ragged.boolean_mask: mask has {mask.shape[0]} entries but data "
                             f"has {flat.shape[0]} rows")
        return V.gather(flat, keep)
    if not isinstance(mask, RaggedTensor):
        mask = RaggedTensor.from_tensor(mask)
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(V.to_flat(data), ragged_rank=1)
    ms, ds = mask.row_splits.to(torch.int64), data.row_splits.to(torch.int64)
    if ms.shape != ds.shape or not torch.equal(ms, ds):
        raise ValueError(f"tf.ragged.boolean_mask: mask and data must have the same row lengths; "
                         f"received mask row_splits {ms.tolist()} and data row_splits "
                         f"{ds.tolist()}")
    inner = boolean_mask(data.values, mask.values)
    if mrank > 2:
        return RaggedTensor(inner, data.row_splits, internal=True)
    mv = mask.values.to(torch.int64)
    counts = torch.zeros(mask._nrows(), dtype=torch.int64).index_add_(
        0, mask.value_rowids().to(torch.int64), mv) if mv.numel() else torch.zeros(
        mask._nrows(), dtype=torch.int64)
    splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(counts, 0)])
    return RaggedTensor(inner, splits.to(data.row_splits_dtype), internal=True)


# ------------------------------------------------------------------------------ map_flat_values
def map_flat_values(op: Callable, *args: Any, **kwargs: Any) -> Any:
    """Applies `op` to the `flat_values` of the RaggedTensors in `args` / `kwargs`
    (TF's `tf.ragged.map_flat_values`).

    Every RaggedTensor argument must have the same nested row_splits; `op` must keep the
    first dimension. Returns a RaggedTensor with those row_splits (or `op`'s result when
    no argument is ragged).
    """
    found: list[RaggedTensor] = []

    def strip(v: Any) -> Any:
        if isinstance(v, RaggedTensor):
            found.append(v)
            return v.flat_values
        if isinstance(v, (list, tuple)):
            return type(v)(strip(x) for x in v)
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()}
        return v

    flat_args = [strip(a) for a in args]
    flat_kwargs = {k: strip(v) for k, v in kwargs.items()}
    if not found:
        return op(*flat_args, **flat_kwargs)
    splits = [s.to(torch.int64) for s in found[0].nested_row_splits]
    for rt in found[1:]:
        other = [s.to(torch.int64) for s in rt.nested_row_splits]
        if len(other) != len(splits) or any(a.shape != b.shape or not torch.equal(a, b)
                                             for a, b in zip(splits, other)):
            raise ValueError("map_flat_values: all RaggedTensor arguments must have the same "
                             f"row_splits; received {[s.tolist() for s in splits]} and "
                             f"{[s.tolist() for s in other]}")
    out = op(*flat_args, **flat_kwargs)
    n = V.nrows_of(found[0].flat_values)
    if V.nrows_of(out) != n:
        raise ValueError(f"map_flat_values: op must keep the number of flat values ({n}); it "
                         f"returned {V.nrows_of(out)}")
    return found[0].with_flat_values(out)


# ------------------------------------------------------------------------------ cross
def _cross_input(value: Any, i: int) -> tuple[Any, np.ndarray, int]:
    """(flat values, row of each value, number of rows) of one cross input."""
    if isinstance(value, RaggedTensor):
        if value.ragged_rank != 1 or value.flat_values.ndim != 1:
            raise ValueError(f"tf.ragged.cross: inputs[{i}] must be a 2-D RaggedTensor with "
                             f"ragged_rank 1; received shape {value.shape}")
        return value.flat_values, value.value_rowids().to(torch.int64).numpy(), value._nrows()
    if isinstance(value, SparseTensor):
        if value.indices.shape[1] != 2:
            raise ValueError(f"tf.ragged.cross: inputs[{i}] must be a 2-D SparseTensor")
        return value.values, value.indices[:, 0].numpy(), int(value.dense_shape[0])
    flat = V.to_flat(value)
    if flat.ndim != 2:
        raise ValueError(f"tf.ragged.cross: inputs[{i}] must be 2-D; received shape "
                         f"{list(flat.shape)}")
    n, m = flat.shape
    return flat.reshape(-1), np.repeat(np.arange(n), m), n


def _combos(inputs: Sequence[Any]) -> tuple[list[np.ndarray], np.ndarray, list[Any], int]:
    parts = [_cross_input(v, i) for i, v in enumerate(inputs)]
    batch = parts[0][2]
    if any(p[2] != batch for p in parts):
        raise ValueError(f"tf.ragged.cross: all inputs must have the same number of rows; "
                         f"received {[p[2] for p in parts]}")
    cur_rows = np.arange(batch, dtype=np.int64)
    picks: list[np.ndarray] = []
    for _, rows, _ in parts:
        counts = np.bincount(rows, minlength=batch)
        starts = np.cumsum(counts) - counts
        rep = counts[cur_rows]
        a_idx = np.repeat(np.arange(len(cur_rows)), rep)
        within = np.arange(int(rep.sum()), dtype=np.int64) - np.repeat(np.cumsum(rep) - rep, rep)
        picks = [p[a_idx] for p in picks] + [starts[cur_rows[a_idx]] + within]
        cur_rows = cur_rows[a_idx]
    return picks, cur_rows, [p[0] for p in parts], batch


def _as_text(values: Any) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return np.array([v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values],
                        dtype=object)
    if values.dtype.is_floating_point:
        raise TypeError("tf.ragged.cross: inputs must be int64 or string; received float values")
    return np.array([str(v) for v in values.tolist()], dtype=object)


def _result(values: Any, rows: np.ndarray, batch: int) -> RaggedTensor:
    counts = np.bincount(rows, minlength=batch) if len(rows) else np.zeros(batch, np.int64)
    splits = torch.from_numpy(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))
    return RaggedTensor(values, splits, internal=True)


def cross(inputs: Sequence[Any], name: str | None = None) -> RaggedTensor:
    """Generates feature cross from a list of 2-D tensors (TF's `tf.ragged.cross`).

    Each row of the result holds every combination of one value from the same row of each
    input (the first input varying slowest), joined with `'_X_'`; integers are written as
    decimal text. Inputs may be RaggedTensors, SparseTensors or dense tensors.
    """
    picks, rows, values, batch = _combos(list(inputs))
    texts = [_as_text(v) for v in values]
    joined = np.array(["_X_".join(t[p[k]] for t, p in zip(texts, picks))
                       for k in np.arange(len(rows))], dtype=object) if len(rows) else \
        np.empty(0, dtype=object)
    return _result(joined, rows, batch)


def cross_hashed(inputs: Sequence[Any], num_buckets: int = 0, hash_key: int | None = None,
                 name: str | None = None) -> RaggedTensor:
    """Generates hashed feature cross from a list of 2-D tensors (TF's `tf.ragged.cross_hashed`).

    As `cross`, but each combination is hashed with FarmHash `FingerprintCat64` starting
    from `hash_key` (strings by their `Fingerprint64`, integers as themselves), then taken
    modulo `num_buckets` (or modulo 2**63 - 1 when `num_buckets` is 0): bit-identical to TF.
    Returns an int64 RaggedTensor.
    """
    from torchestimator import (
        _hashing,  # loads PyArrow: only when hashing  # lazy: heavy (torchestimator._hashing, 125 ms)
    )

    picks, rows, values, batch = _combos(list(inputs))
    key = _hashing.DEFAULT_CROSS_HASH_KEY if hash_key is None else int(hash_key)
    cur = np.full(len(rows), np.uint64(key), dtype=np.uint64)
    for vals, pick in zip(values, picks):
        if isinstance(vals, np.ndarray):
            fp = _hashing.fingerprint64(vals)[pick] if len(pick) else np.zeros(0, np.uint64)
        else:
            if vals.dtype.is_floating_point:
                raise TypeError("tf.ragged.cross_hashed: inputs must be int64 or string; received "
                                "float values")
            fp = vals.to(torch.int64).numpy().astype(np.uint64)[pick]
        cur = _hashing.fingerprint_cat64(cur, fp)
    buckets = np.uint64(num_buckets) if num_buckets and num_buckets > 0 else _INT64_MAX
    ids = torch.from_numpy((cur % buckets).astype(np.int64))
    return _result(ids, rows, batch)


# ------------------------------------------------------------------------------ segment ids
def row_splits_to_segment_ids(splits: Any, name: str | None = None,
                              out_type: Any = None) -> torch.Tensor:
    """Generates the segmentation corresponding to a RaggedTensor `row_splits`
    (TF's `tf.ragged.row_splits_to_segment_ids`): `[0, 2, 3]` -> `[0, 0, 1]`."""
    s = V.int_tensor(splits, "splits", "row_splits_to_segment_ids")
    if s.ndim != 1 or s.numel() == 0:
        raise ValueError(f"row_splits_to_segment_ids: splits must be a non-empty 1-D tensor; "
                         f"received shape {list(s.shape)}")
    lengths = (s[1:] - s[:-1]).to(torch.int64)
    if bool((lengths < 0).any()):
        raise InvalidArgumentError(f"row_splits_to_segment_ids: splits must be sorted; received "
                                   f"splits={s.tolist()}")
    out = torch.repeat_interleave(torch.arange(lengths.numel()), lengths)
    return out.to(V.splits_dtype(out_type or s.dtype, "out_type"))


def segment_ids_to_row_splits(segment_ids: Any, num_segments: Any = None, out_type: Any = None,
                              name: str | None = None) -> torch.Tensor:
    """Generates the RaggedTensor `row_splits` corresponding to a segmentation
    (TF's `tf.ragged.segment_ids_to_row_splits`): `[0, 0, 1]` -> `[0, 2, 3]`."""
    ids = V.int_tensor(segment_ids, "segment_ids", "segment_ids_to_row_splits").to(torch.int64)
    if ids.ndim != 1:
        raise ValueError(f"segment_ids_to_row_splits: segment_ids must be 1-D; received shape "
                         f"{list(ids.shape)}")
    if ids.numel() and int(ids.min()) < 0:
        raise InvalidArgumentError(f"segment_ids_to_row_splits: segment_ids must be "
                                   f"non-negative; received segment_ids={ids.tolist()}")
    n = (int(ids.max()) + 1 if ids.numel() else 0) if num_segments is None else int(num_segments)
    counts = torch.bincount(ids, minlength=n)[:n] if ids.numel() else torch.zeros(
        n, dtype=torch.int64)
    splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(counts, 0)])
    return splits.to(V.splits_dtype(out_type or torch.int64, "out_type"))


def stack_dynamic_partitions(data: Any, partitions: Any, num_partitions: int,
                             name: str | None = None) -> RaggedTensor:
    """Stacks dynamic partitions of a Tensor or RaggedTensor
    (TF's `tf.ragged.stack_dynamic_partitions`): row `p` of the result holds the rows of
    `data` whose partition is `p`, in order."""
    parts = V.int_tensor(partitions, "partitions", "stack_dynamic_partitions").to(torch.int64)
    n = int(num_partitions)
    if parts.numel() and (int(parts.min()) < 0 or int(parts.max()) >= n):
        raise InvalidArgumentError(f"stack_dynamic_partitions: partitions must be in [0, "
                                   f"num_partitions={n}); received partitions={parts.tolist()}")
    values = data if isinstance(data, RaggedTensor) else V.to_flat(data)
    if V.nrows_of(values) != parts.numel():
        raise ValueError(f"stack_dynamic_partitions: data has {V.nrows_of(values)} rows but "
                         f"partitions has {parts.numel()} entries; give one partition per row")
    order = torch.sort(parts, stable=True).indices
    counts = torch.bincount(parts, minlength=n)[:n]
    splits = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(counts, 0)])
    return RaggedTensor(V.gather(values, order), splits, internal=True)
