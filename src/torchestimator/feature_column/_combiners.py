"""The math that turns categorical ids into dense values.

`safe_embedding_lookup` is TF's `safe_embedding_lookup_sparse`: invalid ids
(< 0) are pruned, and for 'mean'/'sqrtn' so are weights <= 0; each example's
looked-up rows are combined with

    sum:   sum_i w_i e_i
    mean:  sum_i w_i e_i / sum_i w_i
    sqrtn: sum_i w_i e_i / sqrt(sum_i w_i^2)

(w_i = 1 without a weight column); an example with no valid id gets zeros.
`max_norm` clips each looked-up row to that L2 norm first (TF's
`clip_by_norm`), without changing the table. The same function computes a
linear model's categorical term (the table is then [num_buckets, units]).

`indicator` is TF's multi-hot: repeated ids count, weights add up.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchestimator.feature_column._base import SparseIds

COMBINERS = ("mean", "sqrtn", "sum")


def check_combiner(combiner: str, what: str, column: str) -> str:
    """Returns `combiner` when it is 'mean', 'sqrtn' or 'sum'; raises ValueError otherwise."""
    if combiner not in COMBINERS:
        raise ValueError(
            f"{what} must be one of {list(COMBINERS)} for {column!r}; received {combiner!r}"
        )
    return combiner


def _valid_entries(
    sp: SparseIds, weights: torch.Tensor | None, combiner: str, num_rows: int
) -> tuple[SparseIds, torch.Tensor | None]:
    keep = (sp.ids >= 0) & (sp.ids < num_rows)
    if weights is not None and combiner != "sum":
        keep &= weights > 0
    if bool(keep.all()):
        return sp, weights
    return sp.select(keep), (None if weights is None else weights[keep])


def safe_embedding_lookup(
    table: torch.Tensor,
    sp: SparseIds,
    weights: torch.Tensor | None,
    combiner: str,
    max_norm: float | None = None,
    per_step: bool = False,
) -> torch.Tensor:
    """Looks up and combines the rows of `table` for every example's ids.

    Returns [batch, dim], or [batch, width, dim] with `per_step` (each time
    step of a sequence combined on its own). Differentiable in `table`.
    """
    device = table.device
    sp = sp.to(device)
    if weights is None and max_norm is None and sp.one_per_row and sp.ids_within(table.shape[0]):
        # One id per example: every combiner gives the looked-up row itself.
        out = _rows_of(table, sp.ids)
        return out.reshape(sp.batch_size, 1, table.shape[1]) if per_step else out
    if weights is not None:
        weights = weights.to(device=device, dtype=table.dtype)
    sp, weights = _valid_entries(sp, weights, combiner, table.shape[0])
    dim = table.shape[1]
    if per_step:
        groups = sp.rows * sp.width + sp.cols
        num_groups = sp.batch_size * sp.width
    else:
        groups = sp.rows
        num_groups = sp.batch_size
    if max_norm is None and not per_step and weights is None and combiner in ("sum", "mean"):
        counts = torch.bincount(groups, minlength=num_groups)
        offsets = torch.cumsum(counts, 0) - counts
        out = F.embedding_bag(sp.ids, table, offsets, mode=combiner)
    else:
        w = torch.ones(sp.ids.shape[0], dtype=table.dtype, device=device) if weights is None else weights
        if combiner != "sum":
            denom = torch.zeros(num_groups, dtype=table.dtype, device=device)
            denom.index_add_(0, groups, w if combiner == "mean" else w * w)
            if combiner == "sqrtn":
                denom = denom.sqrt()
            w = w / denom[groups]
        if max_norm is None and not per_step:
            counts = torch.bincount(groups, minlength=num_groups)
            offsets = torch.cumsum(counts, 0) - counts
            out = F.embedding_bag(sp.ids, table, offsets, mode="sum", per_sample_weights=w)
        else:
            rows = table[sp.ids]
            if max_norm is not None:
                norms = rows.norm(dim=1, keepdim=True)
                rows = rows * (max_norm / torch.clamp(norms, min=max_norm))
            out = torch.zeros(num_groups, dim, dtype=table.dtype, device=device)
            out = out.index_add(0, groups, rows * w[:, None])
    if per_step:
        return out.reshape(sp.batch_size, sp.width, dim)
    return out


def _rows_of(table: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """`table[ids]` for 1-D in-range `ids`, differentiable in `table`.

    On the CPU `index_select`, whose gradient is one `index_add_` into zeros (about 15 us a
    lookup less than `embedding`'s dense backward at small batches); elsewhere `embedding`,
    whose CUDA gradient is deterministic.
    """
    if table.device.type == "cpu":
        return table.index_select(0, ids)
    return F.embedding(ids, table)


def indicator(
    sp: SparseIds,
    weights: torch.Tensor | None,
    num_buckets: int,
    per_step: bool = False,
    device: torch.device | None = None,
) -> torch.Tensor:
    """Returns the multi-hot [batch, num_buckets] (or [batch, width, num_buckets]) float32 tensor.

    Repeated ids count (2 for an id seen twice); with weights, weights add up.
    Ids outside [0, num_buckets) contribute nothing.
    """
    sp = sp.to(device)
    dev = sp.ids.device
    if weights is None and sp.one_per_row and sp.ids_within(num_buckets):
        out = torch.zeros(sp.batch_size, num_buckets, dtype=torch.float32, device=dev)
        out.scatter_(1, sp.ids[:, None], 1.0)
        return out.reshape(sp.batch_size, 1, num_buckets) if per_step else out
    keep = (sp.ids >= 0) & (sp.ids < num_buckets)
    ids, rows, cols = sp.ids[keep], sp.rows[keep], sp.cols[keep]
    if weights is None:
        values = torch.ones(ids.shape[0], dtype=torch.float32, device=dev)
    else:
        values = weights.to(device=dev, dtype=torch.float32)[keep]
    if per_step:
        out = torch.zeros(sp.batch_size, sp.width, num_buckets, dtype=torch.float32, device=dev)
        out.index_put_((rows, cols, ids), values, accumulate=True)
    else:
        out = torch.zeros(sp.batch_size, num_buckets, dtype=torch.float32, device=dev)
        out.index_put_((rows, ids), values, accumulate=True)
    return out


def sequence_length(sp: SparseIds, device: torch.device | None = None) -> torch.Tensor:
    """Returns each example's sequence length (last present position + 1) as int64 [batch]."""
    sp = sp.to(device)
    out = torch.zeros(sp.batch_size, dtype=torch.int64, device=sp.ids.device)
    if sp.rows.numel():
        out.scatter_reduce_(0, sp.rows, sp.cols + 1, reduce="amax")
    return out
