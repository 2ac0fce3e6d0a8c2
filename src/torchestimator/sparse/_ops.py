"""`tf.sparse` operations on the project's `SparseTensor` (numeric values on torch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import placed
from torchestimator._sparse_tensor import SparseTensor
from torchestimator._sparse_tensor import to_dense as dense_of


def _check(sp: Any, arg: str = "sp_input") -> SparseTensor:
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor; {arg} is a {type(sp).__name__}")
    return sp


def _take(values: Any, order: torch.Tensor) -> Any:
    if isinstance(values, np.ndarray):
        return values[order.numpy()]
    return values[order]


def _linear(indices: torch.Tensor, shape: torch.Tensor) -> torch.Tensor:
    strides = torch.ones_like(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return (indices * strides).sum(dim=1) if indices.numel() else indices.new_zeros(indices.shape[0])


def reorder(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """Reorders a SparseTensor into the canonical, row-major ordering (`tf.sparse.reorder`)."""
    sp = _check(sp_input)
    order = torch.argsort(_linear(sp.indices, sp.dense_shape), stable=True)
    return SparseTensor._from_parts(sp.indices[order], _take(sp.values, order), sp.dense_shape.clone())


def retain(sp_input: SparseTensor, to_retain: Any) -> SparseTensor:
    """Retains the entries of `sp_input` where the bool vector `to_retain` is True."""
    sp = _check(sp_input)
    keep = torch.as_tensor(np.asarray(to_retain, dtype=bool)).reshape(-1)
    if keep.shape[0] != sp.indices.shape[0]:
        raise ValueError(f"Shapes must be equal rank, but are {[sp.indices.shape[0]]} and "
                         f"{list(keep.shape)}: to_retain must have one bool per value")
    pos = keep.nonzero().reshape(-1)
    return SparseTensor._from_parts(sp.indices[pos], _take(sp.values, pos), sp.dense_shape.clone())


def reset_shape(sp_input: SparseTensor, new_shape: Any = None) -> SparseTensor:
    """Resets the dense_shape to `new_shape`, or the tight bounding box of the indices."""
    sp = _check(sp_input)
    if new_shape is None:
        shape = (sp.indices.max(dim=0).values + 1 if sp.indices.shape[0]
                 else torch.zeros(sp.indices.shape[1], dtype=torch.int64))
    else:
        shape = torch.as_tensor(np.asarray(new_shape, dtype=np.int64))
        if shape.shape[0] != sp.dense_shape.shape[0]:
            raise ValueError(f"new_shape must have rank {sp.dense_shape.shape[0]}; received "
                             f"{shape.tolist()}")
        if bool((shape < sp.dense_shape).any()):
            raise ValueError("Requested new_shape should have dimension sizes >= "
                             f"sp_input.shape.  Found new_shape ({sp.dense_shape.tolist()}), "
                             f"sp_input.shape ({shape.tolist()}).")
    return SparseTensor._from_parts(sp.indices.clone(), sp.values, shape)


def expand_dims(sp_input: SparseTensor, axis: int | None = None, name: str | None = None
                ) -> SparseTensor:
    """Inserts a dimension of size 1 at `axis` (`tf.sparse.expand_dims`)."""
    sp = _check(sp_input)
    rank = sp.dense_shape.shape[0]
    axis = -1 if axis is None else int(axis)
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"axis {axis} is out of range [{-rank - 1}, {rank}] for rank {rank}")
    if axis < 0:
        axis += rank + 1
    zeros = torch.zeros(sp.indices.shape[0], 1, dtype=torch.int64)
    idx = torch.cat([sp.indices[:, :axis], zeros, sp.indices[:, axis:]], dim=1)
    shape = torch.cat([sp.dense_shape[:axis], torch.ones(1, dtype=torch.int64),
                       sp.dense_shape[axis:]])
    return SparseTensor._from_parts(idx, sp.values, shape)


def eye(num_rows: int, num_columns: int | None = None, dtype: Any = torch.float32,
        name: str | None = None) -> SparseTensor:
    """A two-D sparse identity matrix of shape [num_rows, num_columns]."""
    num_columns = num_rows if num_columns is None else int(num_columns)
    n = min(int(num_rows), num_columns)
    r = torch.arange(n, dtype=torch.int64)
    return SparseTensor._from_parts(torch.stack([r, r], dim=1), torch.ones(n, dtype=dtype),
                                    torch.tensor([int(num_rows), num_columns]))


def fill_empty_rows(sp_input: SparseTensor, default_value: Any, name: str | None = None
                    ) -> tuple[SparseTensor, torch.Tensor]:
    """Fills empty rows with `default_value` at index [row, 0, ...].

    Returns `(sp_ordered_output, empty_row_indicator)`, as TF does.
    """
    sp = _check(sp_input)
    nrows = int(sp.dense_shape[0])
    present = torch.zeros(nrows, dtype=torch.bool)
    if sp.indices.shape[0]:
        present[sp.indices[:, 0]] = True
    empty = ~present
    rows = empty.nonzero().reshape(-1)
    add_idx = torch.zeros(len(rows), sp.indices.shape[1], dtype=torch.int64)
    add_idx[:, 0] = rows
    if isinstance(sp.values, np.ndarray):
        vals: Any = np.concatenate([sp.values, np.array([default_value] * len(rows), dtype=object)])
    else:
        vals = torch.cat([sp.values, torch.full((len(rows),), default_value,
                                                dtype=sp.values.dtype)])
    out = reorder(SparseTensor._from_parts(torch.cat([sp.indices, add_idx]), vals,
                                           sp.dense_shape.clone()))
    return out, empty


def _dense_values(sp: SparseTensor) -> torch.Tensor:
    if isinstance(sp.values, np.ndarray):
        raise TypeError("This operation needs numeric values; the SparseTensor holds strings")
    return sp.values


def _norm_axes(axis: Any, rank: int) -> list[int]:
    if axis is None:
        return list(range(rank))
    axes = [int(a) for a in np.atleast_1d(np.asarray(axis))]
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
    return sorted({a % rank for a in axes})


def _reduce(sp: SparseTensor, axis: Any, keepdims: bool, op: str) -> torch.Tensor:
    vals = _dense_values(sp)
    rank = sp.dense_shape.shape[0]
    axes = _norm_axes(axis, rank)
    shape = sp.shape
    kept = [d for d in range(rank) if d not in axes]
    out_shape = [shape[d] for d in kept]
    n = int(np.prod(out_shape)) if out_shape else 1
    key = (_linear(sp.indices[:, kept], torch.tensor(out_shape, dtype=torch.int64))
           if kept else torch.zeros(len(vals), dtype=torch.int64))
    if op == "sum":
        out = torch.zeros(n, dtype=vals.dtype).index_add_(0, key, vals)
    else:
        low = (torch.finfo(vals.dtype).min if vals.dtype.is_floating_point
               else torch.iinfo(vals.dtype).min)
        out = torch.full((n,), low, dtype=vals.dtype).scatter_reduce_(0, key, vals, "amax")
    out = out.reshape(out_shape)
    if keepdims:
        out = out.reshape([1 if d in axes else shape[d] for d in range(rank)])
    return out


def reduce_sum(sp_input: SparseTensor, axis: Any = None, keepdims: bool | None = None,
               output_is_sparse: bool = False, name: str | None = None) -> Any:
    """Sums the values over `axis` (`tf.sparse.reduce_sum`): dense, or sparse if asked."""
    out = _reduce(_check(sp_input), axis, bool(keepdims), "sum")
    return from_dense_nonzero(out) if output_is_sparse else out


def reduce_max(sp_input: SparseTensor, axis: Any = None, keepdims: bool | None = None,
               output_is_sparse: bool = False, name: str | None = None) -> Any:
    """Max of the present values over `axis` (`tf.sparse.reduce_max`).

    Dense positions with no value at all give the dtype's lowest value, as in TF.
    """
    out = _reduce(_check(sp_input), axis, bool(keepdims), "max")
    return from_dense_nonzero(out) if output_is_sparse else out


def from_dense_nonzero(t: torch.Tensor) -> SparseTensor:
    idx = torch.nonzero(t != 0)
    return SparseTensor._from_parts(idx.to(torch.int64), t[tuple(idx.T)],
                                    torch.tensor(list(t.shape), dtype=torch.int64))


def _combine(a: SparseTensor, b: SparseTensor, fn: Callable, thresh: float = 0.0,
             drop: bool = True) -> SparseTensor:
    if a.shape != b.shape:
        raise ValueError(f"Operands do not have the same ranks/shapes: {list(a.shape)} vs "
                         f"{list(b.shape)}")
    va, vb = _dense_values(a), _dense_values(b)
    shape = a.dense_shape
    ka, kb = _linear(a.indices, shape), _linear(b.indices, shape)
    keys = torch.unique(torch.cat([ka, kb]))
    pos = {int(k): i for i, k in enumerate(keys.tolist())}
    dt = torch.promote_types(va.dtype, vb.dtype)
    xa = torch.zeros(len(keys), dtype=dt)
    xb = torch.zeros(len(keys), dtype=dt)
    ha = torch.zeros(len(keys), dtype=torch.bool)
    hb = torch.zeros(len(keys), dtype=torch.bool)
    ia = torch.tensor([pos[int(k)] for k in ka.tolist()], dtype=torch.int64)
    ib = torch.tensor([pos[int(k)] for k in kb.tolist()], dtype=torch.int64)
    if len(ia):
        xa.index_add_(0, ia, va.to(dt))
        ha[ia] = True
    if len(ib):
        xb.index_add_(0, ib, vb.to(dt))
        hb[ib] = True
    vals = fn(xa, xb, ha, hb)
    idx = torch.stack(torch.unravel_index(keys, tuple(a.shape)), dim=1) if len(keys) else \
        torch.zeros(0, len(a.shape), dtype=torch.int64)
    if drop and thresh is not None and thresh > 0:
        # TF thresholds only the sums of positions present in both inputs.
        keep = ~(ha & hb) | (vals.abs() >= thresh)
        idx, vals = idx[keep], vals[keep]
    return SparseTensor._from_parts(idx.to(torch.int64), vals, shape.clone())


def add(a: Any, b: Any, threshold: float = 0) -> Any:
    """Adds two tensors, at least one of each is a SparseTensor (`tf.sparse.add`).

    Sparse + sparse gives a SparseTensor (sums with |x| < threshold dropped);
    sparse + dense gives a dense tensor.
    """
    sa, sb = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not (sa or sb):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add?")
    if sa and sb:
        return _combine(a, b, lambda x, y, ha, hb: x + y, float(threshold))
    sp, dense = (a, b) if sa else (b, a)
    return dense_of(sp) + torch.as_tensor(dense)


def maximum(sp_a: SparseTensor, sp_b: SparseTensor, name: str | None = None) -> SparseTensor:
    """Element-wise max of two SparseTensors over the union of positions (absent = 0)."""
    return _combine(_check(sp_a, "sp_a"), _check(sp_b, "sp_b"),
                    lambda x, y, ha, hb: torch.maximum(x, y))


def minimum(sp_a: SparseTensor, sp_b: SparseTensor, name: str | None = None) -> SparseTensor:
    """Element-wise min of two SparseTensors over the union of positions (absent = 0)."""
    return _combine(_check(sp_a, "sp_a"), _check(sp_b, "sp_b"),
                    lambda x, y, ha, hb: torch.minimum(x, y))


def transpose(sp_input: SparseTensor, perm: Any = None, name: str | None = None) -> SparseTensor:
    """Transposes by `perm` (default: reverse the dimensions) and reorders the result."""
    sp = _check(sp_input)
    rank = sp.dense_shape.shape[0]
    perm = list(range(rank - 1, -1, -1)) if perm is None else [int(p) for p in perm]
    if sorted(perm) != list(range(rank)):
        raise ValueError(f"perm must be a permutation of 0..{rank - 1}; received {perm}")
    out = SparseTensor._from_parts(sp.indices[:, perm], sp.values, sp.dense_shape[perm])
    return reorder(out)


def reshape(sp_input: SparseTensor, shape: Any, name: str | None = None) -> SparseTensor:
    """Reshapes a SparseTensor to `shape` (one dimension may be -1)."""
    sp = _check(sp_input)
    new = [int(s) for s in np.asarray(shape).reshape(-1)]
    total = int(np.prod(sp.shape)) if sp.shape else 1
    if new.count(-1) > 1:
        raise ValueError(f"At most one dimension can be inferred (-1); received {new}")
    if -1 in new:
        known = int(np.prod([s for s in new if s != -1])) or 1
        if total % known:
            raise ValueError(f"Input to reshape is a tensor with {total} dense values, but the "
                             f"requested shape requires a multiple of {known}")
        new[new.index(-1)] = total // known
    if int(np.prod(new)) != total:
        raise ValueError(f"Cannot reshape a tensor with {total} elements to shape {new} "
                         f"({int(np.prod(new))} elements)")
    key = _linear(sp.indices, sp.dense_shape)
    idx = (torch.stack(torch.unravel_index(key, tuple(new)), dim=1) if len(key)
           else torch.zeros(0, len(new), dtype=torch.int64))
    return SparseTensor._from_parts(idx.to(torch.int64), sp.values, torch.tensor(new))


def slice(sp_input: SparseTensor, start: Any, size: Any, name: str | None = None
          ) -> SparseTensor:  # noqa: A001 - TF's name
    """Slices [start, start + size) from a SparseTensor; indices are shifted by start."""
    sp = _check(sp_input)
    st = torch.as_tensor(np.asarray(start, dtype=np.int64))
    sz = torch.as_tensor(np.asarray(size, dtype=np.int64))
    end = torch.minimum(st + sz, sp.dense_shape)
    keep = ((sp.indices >= st) & (sp.indices < end)).all(dim=1).nonzero().reshape(-1)
    shape = torch.clamp(end - st, min=0)
    return SparseTensor._from_parts(sp.indices[keep] - st, _take(sp.values, keep), shape)


def concat(axis: int, sp_inputs: list, expand_nonconcat_dims: bool = False,
           name: str | None = None) -> SparseTensor:
    """Concatenates SparseTensors along `axis` (`tf.sparse.concat`). The other dimensions must
    match, unless `expand_nonconcat_dims`: then each is the largest of the inputs'."""
    sps = [_check(s, "sp_inputs") for s in sp_inputs]
    rank = sps[0].dense_shape.shape[0]
    ax = int(axis) % rank
    shapes = torch.stack([s.dense_shape for s in sps])
    if expand_nonconcat_dims:
        common = shapes.max(dim=0).values
    else:
        common = shapes[0]
        for s in shapes[1:]:
            other = [d for d in range(rank) if d != ax]
            if not torch.equal(s[other], common[other]):
                d = next(d for d in other if s[d] != common[d])
                pos = next(j for j, t in enumerate(shapes) if torch.equal(t, s))
                raise ValueError(f"Input shapes must match: expected {int(common[d])} for "
                                 f"dimension {d} but got {int(s[d])} at position {pos}")
    idx, vals, off = [], [], 0
    for s in sps:
        i = s.indices.clone()
        i[:, ax] += off
        off += int(s.dense_shape[ax])
        idx.append(i)
        vals.append(s.values)
    shape = common.clone()
    shape[ax] = off
    v: Any = (np.concatenate(vals) if isinstance(vals[0], np.ndarray) else torch.cat(vals))
    return reorder(SparseTensor._from_parts(torch.cat(idx), v, shape))


def split(sp_input: SparseTensor = None, num_split: int = None, axis: int = None,
          name: str | None = None) -> list[SparseTensor]:
    """Splits a SparseTensor into `num_split` along `axis`; the first ones get one extra row."""
    sp = _check(sp_input)
    if num_split is None or axis is None:
        raise ValueError("num_split and axis are required")
    rank = sp.dense_shape.shape[0]
    ax = int(axis) % rank
    dim = int(sp.dense_shape[ax])
    base, extra = divmod(dim, int(num_split))
    out, start = [], 0
    for i in range(int(num_split)):
        size = base + (1 if i < extra else 0)
        st = [0] * rank
        st[ax] = start
        sz = sp.shape
        sz = list(sz)
        sz[ax] = size
        out.append(slice(sp, st, sz))
        start += size
    return out


def sparse_dense_matmul(sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False,
                        name: str | None = None) -> torch.Tensor:
    """Multiplies a rank-2 SparseTensor by a dense matrix (`tf.sparse.sparse_dense_matmul`)."""
    if not isinstance(sp_a, SparseTensor):
        if isinstance(b, SparseTensor):  # dense @ sparse = (sparse^T @ dense^T)^T
            return sparse_dense_matmul(b, torch.as_tensor(sp_a), not adjoint_b, not adjoint_a).T
        raise TypeError("sp_a must be a SparseTensor")
    vals = _dense_values(sp_a)
    m = torch.sparse_coo_tensor(sp_a.indices.T, vals, sp_a.shape, check_invariants=False)
    if adjoint_a:
        m = m.t().conj()
    bd = torch.as_tensor(b).to(vals.dtype)
    if adjoint_b:
        bd = bd.T.conj()
    if m.shape[1] != bd.shape[0]:
        raise ValueError(f"Cannot multiply A and B because inner dimension does not match: "
                         f"{m.shape[1]} vs. {bd.shape[0]}.  Did you forget a transpose?  "
                         f"Dimensions of A: {list(m.shape)}.  Dimensions of B: {list(bd.shape)}")
    return torch.sparse.mm(m.coalesce(), bd)


def map_values(op: Callable, *args: Any, **kwargs: Any) -> SparseTensor:
    """Applies `op` to the values of the SparseTensor arguments (same indices needed)."""
    sps = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sps:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = sps[0]
    for s in sps[1:]:
        if not torch.equal(s.indices, first.indices) or not torch.equal(s.dense_shape,
                                                                        first.dense_shape):
            raise ValueError("Inputs must have identical indices and dense_shape.")
    conv = [a.values if isinstance(a, SparseTensor) else a for a in args]
    kconv = {k: (v.values if isinstance(v, SparseTensor) else v) for k, v in kwargs.items()}
    return SparseTensor._from_parts(first.indices.clone(), op(*conv, **kconv),
                                    first.dense_shape.clone())


def softmax(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """Softmax over the present values of the innermost dimension of each row."""
    sp = reorder(_check(sp_input))
    vals = _dense_values(sp)
    key = _linear(sp.indices[:, :-1], sp.dense_shape[:-1]) if sp.indices.shape[1] > 1 else \
        torch.zeros(len(vals), dtype=torch.int64)
    n = int(key.max()) + 1 if len(key) else 0
    mx = torch.full((n,), float("-inf"), dtype=vals.dtype).scatter_reduce_(0, key, vals, "amax")
    e = torch.exp(vals - mx[key])
    s = torch.zeros(n, dtype=vals.dtype).index_add_(0, key, e)
    return SparseTensor._from_parts(sp.indices, e / s[key], sp.dense_shape.clone())


def to_indicator(sp_input: SparseTensor, vocab_size: int, name: str | None = None
                 ) -> torch.Tensor:
    """Dense bool indicator: out[..., v] is True when id v appears in that row."""
    sp = _check(sp_input)
    vals = _dense_values(sp).to(torch.int64)
    shape = list(sp.shape[:-1]) + [int(vocab_size)]
    out = torch.zeros(shape, dtype=torch.bool)
    if len(vals):
        if bool((vals < 0).any() or (vals >= vocab_size).any()):
            raise ValueError(f"sp_input values must be in [0, {vocab_size}); received "
                             f"{vals.tolist()}")
        out[tuple(sp.indices[:, :-1].T) + (vals,)] = True
    return out


def _segment(data: Any, indices: Any, segment_ids: Any, num_segments: int | None, mode: str
             ) -> torch.Tensor:
    d = torch.as_tensor(data)
    idx = torch.as_tensor(np.asarray(indices, dtype=np.int64))
    seg = torch.as_tensor(np.asarray(segment_ids, dtype=np.int64))
    n = int(num_segments) if num_segments is not None else (int(seg.max()) + 1 if len(seg) else 0)
    rows = d[idx]
    out = torch.zeros((n,) + tuple(d.shape[1:]), dtype=d.dtype).index_add_(0, seg, rows)
    if mode == "sum":
        return out
    cnt = torch.zeros(n, dtype=d.dtype).index_add_(0, seg, torch.ones(len(seg), dtype=d.dtype))
    cnt = cnt.clamp(min=1).reshape((n,) + (1,) * (d.ndim - 1))
    return out / (cnt if mode == "mean" else cnt.sqrt())


def segment_sum(data: Any, indices: Any, segment_ids: Any, num_segments: int | None = None,
                name: str | None = None, sparse_gradient: bool = False) -> torch.Tensor:
    """Sums data[indices] rows per segment id (`tf.sparse.segment_sum`).

    `sparse_gradient=True` makes TF's gradient an `IndexedSlices`; here the gradient with
    respect to `data` is always the dense tensor of the same values."""
    return _segment(data, indices, segment_ids, num_segments, "sum")


def segment_mean(data: Any, indices: Any, segment_ids: Any, num_segments: int | None = None,
                 name: str | None = None, sparse_gradient: bool = False) -> torch.Tensor:
    """Means of data[indices] rows per segment id (`tf.sparse.segment_mean`).

    `sparse_gradient=True` makes TF's gradient an `IndexedSlices`; here the gradient with
    respect to `data` is always the dense tensor of the same values."""
    return _segment(data, indices, segment_ids, num_segments, "mean")


def segment_sqrt_n(data: Any, indices: Any, segment_ids: Any, num_segments: int | None = None,
                   name: str | None = None, sparse_gradient: bool = False) -> torch.Tensor:
    """Sum of data[indices] rows per segment divided by sqrt(count) (`segment_sqrt_n`).

    `sparse_gradient=True` makes TF's gradient an `IndexedSlices`; here the gradient with
    respect to `data` is always the dense tensor of the same values."""
    return _segment(data, indices, segment_ids, num_segments, "sqrt_n")


def to_dense(sp_input: SparseTensor, default_value: Any = None, validate_indices: bool = True,
             name: str | None = None) -> Any:
    """Converts a `SparseTensor` into a dense tensor (TF's `tf.sparse.to_dense`).

    Positions without a value get `default_value` (0, or b'' for strings). Returns a torch
    tensor, or a numpy object array for strings. Raises ValueError when an index lies outside
    `dense_shape` (`validate_indices`). The dense tensor is placed as TF places the op: on the
    values' device, and a SparseTensor on the host (one a program built from Python lists)
    gives it on the GPU when there is one -- except in a `tf.data` function or an `input_fn`,
    which run on the host (`loop.op_device`).
    """
    return placed(dense_of(sp_input, default_value, validate_indices))
