"""tf.nn's embedding lookups (dense ids, partitioned params, sparse ids with combiners)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import dtype_name, shapes_error
from torchestimator._ops.nn_ops._common import Tensor, _tensor
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- embeddings


def _ids(ids: Any, op: str) -> Tensor:
    ids = _tensor(ids, op, "ids")
    if ids.dtype not in (torch.int16, torch.int32, torch.int64, torch.int8, torch.uint8):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `ids` must be an integer tensor (int16, int32, int64), got "
            f"{dtype_name(ids.dtype)}.",
        )
    return ids


def _gather_rows(params: Tensor, flat_ids: Tensor, op: str) -> Tensor:
    """`params[flat_ids]`: out-of-range ids are an error on the CPU and zero rows elsewhere,
    as TF's gather on CPU and GPU."""
    rows = params.shape[0]
    if flat_ids.dtype not in (torch.int32, torch.int64):
        flat_ids = flat_ids.long()
    if flat_ids.device != params.device:
        flat_ids = flat_ids.to(params.device)
    if flat_ids.numel() == 0:
        return params.new_zeros((0,) + tuple(params.shape[1:]))
    if params.device.type == "cpu":
        low, high = torch.aminmax(flat_ids)
        if low < 0 or high >= rows:
            bad_index = int(torch.nonzero((flat_ids < 0) | (flat_ids >= rows))[0, 0])
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: indices[{bad_index}] = {int(flat_ids[bad_index])} is not in [0, {rows}).",
            )
        return params.index_select(0, flat_ids)
    inside = (flat_ids >= 0) & (flat_ids < rows)
    gathered = params.index_select(0, torch.where(inside, flat_ids, torch.zeros_like(flat_ids)))
    return gathered * inside.reshape((-1,) + (1,) * (params.ndim - 1)).to(gathered.dtype)


def _clip_rows(rows: Tensor, max_norm: Any) -> Tensor:
    """TF's `clip_by_norm` of every gathered embedding to `max_norm` (over all but the first "
    "dim)."""
    if isinstance(max_norm, (Tensor, np.ndarray)):
        max_norm = float(max_norm.item())
    dims = tuple(range(1, rows.ndim))
    if not dims:
        norms = rows.abs()
    else:
        norms = torch.linalg.vector_norm(rows, dim=dims, keepdim=True)
    return rows * max_norm / torch.clamp(norms, min=max_norm)


def embedding_lookup(
    params: Any, ids: Any, max_norm: Any = None, name: str | None = None
) -> Tensor:
    """Looks up embeddings for the given `ids` from a list of tensors, as TF's
    `tf.nn.embedding_lookup`.

    `params` is one tensor (or `tf.Variable`) of shape `[vocab, ...]`, or a list of shards that
    TF's `'div'` strategy partitions (contiguous id ranges, the first `vocab % len(params)`
    shards one row larger). With `max_norm`, each embedding is clipped to that L2 norm.

    Returns:
        A tensor of shape `ids.shape + params.shape[1:]`, of `params`' type.
    """
    op = "embedding_lookup"
    ids = _ids(ids, op)
    flat_ids = ids.reshape(-1)
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError(f"{op}: need at least one param (`params` is an empty list).")
        shards = [_tensor(p, op, "params") for p in params]
        if len(shards) == 1:
            table = shards[0]
        else:
            table, flat_ids = _div_partition(shards, flat_ids, op)
    else:
        table = _tensor(params, op, "params")
    if table.ndim == 0:
        raise InvalidArgumentError(None, None, f"{op}: params must be at least 1-D, got a scalar.")
    rows = _gather_rows(table, flat_ids, op)
    if max_norm is not None:
        rows = _clip_rows(rows, max_norm)
    return rows.reshape(tuple(ids.shape) + tuple(table.shape[1:]))


def _div_partition(shards: list[Tensor], flat_ids: Tensor, op: str) -> tuple[Tensor, Tensor]:
    """TF's 'div' partition of ids over shards, as row indices into the concatenated shards."""
    first = shards[0]
    for shard in shards[1:]:
        if shard.dtype is not first.dtype or tuple(shard.shape[1:]) != tuple(first.shape[1:]):
            raise shapes_error(
                op,
                first.shape,
                shard.shape,
                "All params shards must have the same dtype and inner shape.",
            )
    sizes = [int(s.shape[0]) for s in shards]
    count = len(shards)
    total = sum(sizes)
    per, extras = divmod(total, count)
    ids = flat_ids.long().to(first.device)
    if per == 0:
        partition = ids // (per + 1)
        offset = ids % (per + 1)
    else:
        partition = torch.maximum(ids // (per + 1), (ids - extras) // per)
        offset = torch.where(partition < extras, ids % (per + 1), (ids - extras) % per)
    starts = torch.tensor(
        np.concatenate([[0], np.cumsum(sizes)[:-1]]), dtype=torch.int64, device=first.device
    )
    in_shard = (partition >= 0) & (partition < count)
    clamped = partition.clamp(0, count - 1)
    shard_sizes = torch.tensor(sizes, dtype=torch.int64, device=first.device)
    valid = in_shard & (offset >= 0) & (offset < shard_sizes[clamped])
    rows = torch.where(valid, starts[clamped] + offset, torch.full_like(ids, total))
    if first.device.type == "cpu" and not bool(valid.all()):
        bad = int(torch.nonzero(~valid)[0, 0])
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: id {int(ids[bad])} falls outside its shard under the 'div' partition strategy "
            f"(shard sizes {sizes}).",
        )
    return torch.cat(shards, 0), rows


def _sparse_parts(sparse: Any, op: str, arg: str) -> tuple[Tensor, Tensor]:
    """(row of each entry, value of each entry) of a sparse input: a torch sparse COO tensor,
    a feature-column `SparseIds`, or a TF-like object with `indices` and `values`."""
    if isinstance(sparse, Tensor) and sparse.layout is torch.sparse_coo:
        sparse = sparse.coalesce()
        return sparse.indices()[0], sparse.values()
    if hasattr(sparse, "rows") and hasattr(sparse, "ids"):
        return sparse.rows, sparse.ids
    if hasattr(sparse, "indices") and hasattr(sparse, "values"):
        indices = _tensor(sparse.indices, op, f"{arg}.indices")
        values = _tensor(sparse.values, op, f"{arg}.values")
        return indices[:, 0] if indices.ndim == 2 else indices, values
    raise TypeError(
        f"{op}: `{arg}` must be a sparse tensor (torch sparse COO, or an object with `indices` "
        f"[nnz, 2] and `values` [nnz]), got {type(sparse).__name__}."
    )


def embedding_lookup_sparse(
    params: Any,
    sp_ids: Any,
    sp_weights: Any,
    combiner: str | None = None,
    max_norm: Any = None,
    name: str | None = None,
    allow_fast_lookup: bool = False,
) -> Tensor:
    """Looks up embeddings for the given ids and weights from sparse inputs and combines each
    example's embeddings with `combiner` ('sum', 'mean' (the default) or 'sqrtn'), as TF's
    `tf.nn.embedding_lookup_sparse`.

    `sp_ids` is a torch sparse COO tensor of ids `[batch, max_ids]` (or an object with TF's
    `indices`/`values`); `sp_weights` the same layout of weights, or None for weights of 1.

    Returns:
        A dense tensor `[max_row + 1, ...params.shape[1:]]` of the combined embeddings (rows
        without ids are zeros).
    """
    op = "embedding_lookup_sparse"
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(
            f"{op}: combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}."
        )
    rows, ids = _sparse_parts(sp_ids, op, "sp_ids")
    embeddings = embedding_lookup(params, ids, max_norm=max_norm)
    rows = rows.long().to(embeddings.device)
    count = int(rows.max()) + 1 if rows.numel() else 0
    tail = (1,) * (embeddings.ndim - 1)
    if sp_weights is None:
        weights = None
    else:
        _, weights = _sparse_parts(sp_weights, op, "sp_weights")
        weights = weights.to(device=embeddings.device, dtype=embeddings.dtype)
        embeddings = embeddings * weights.reshape((-1,) + tail)
    out_shape = (count,) + tuple(embeddings.shape[1:])
    summed = embeddings.new_zeros(out_shape).index_add(0, rows, embeddings)
    if combiner == "sum":
        return summed
    if weights is None:
        weights = torch.ones(rows.shape, dtype=embeddings.dtype, device=embeddings.device)
    if combiner == "sqrtn":
        weights = weights * weights
    totals = weights.new_zeros(count).index_add(0, rows, weights)
    if combiner == "sqrtn":
        totals = torch.sqrt(totals)
    totals = totals.reshape((-1,) + tail)
    safe = torch.where(totals == 0, torch.ones_like(totals), totals)
    return torch.where(totals == 0, torch.zeros_like(summed), summed / safe)
