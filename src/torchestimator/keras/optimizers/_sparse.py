"""Sparse gradients (TF's `IndexedSlices`) as Keras 2.15 applies them.

A torch sparse COO gradient with one sparse dimension — what
`torch.nn.functional.embedding(..., sparse=True)` gives: one row of values per
lookup, duplicates not summed — is TF's `IndexedSlices` gradient of a gather.
Keras treats it in two places differently from a dense gradient:

- clipping works on its values, one row per lookup (`tf.clip_by_norm`,
  `tf.clip_by_global_norm` and `tf.clip_by_value` of an `IndexedSlices`), before
  duplicates are summed;
- the legacy (OptimizerV2) optimizers call TF's `ResourceSparseApply*` kernels
  on the deduplicated rows, which update only the rows the gradient names
  ("lazy": SGD with momentum, Adagrad, Adadelta, Adamax, Ftrl, RMSprop with
  momentum); legacy Nadam decays its slots everywhere but moves only those
  rows ("rows"); the others, and every new optimizer, give the update of the
  summed dense gradient ("dense").
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator.keras.optimizers import _clipping
from torchestimator.keras.optimizers._kernel import Tensors, TorchKernel, dense_grads

RULES = ("dense", "lazy", "rows")


def _row_sparse(g: torch.Tensor) -> bool:
    return g.is_sparse and g.sparse_dim() == 1


def clip_gradients(
    grads: Tensors, clipnorm: float | None, global_clipnorm: float | None, clipvalue: float | None
) -> Tensors:
    """Clips like `_clipping.clip_gradients`, a sparse gradient by its (uncoalesced) values."""
    values = [g._values() if g.is_sparse else g for g in grads]
    clipped = _clipping.clip_gradients(values, clipnorm, global_clipnorm, clipvalue, inplace=False)
    return [
        torch.sparse_coo_tensor(
            g._indices(), v, g.shape, is_coalesced=g.is_coalesced(), check_invariants=False
        ) if g.is_sparse else v
        for g, v in zip(grads, clipped)
    ]


def apply(
    kernel: TorchKernel,
    group: dict[str, Any],
    params: Tensors,
    grads: Tensors,
    slots: dict[str, Tensors],
    step: int,
    rule: str,
) -> None:
    """Applies one update of `kernel` where some `grads` are sparse, by `rule` (see the module)."""
    if rule == "dense" or not any(_row_sparse(g) for g in grads):
        kernel.update(group, params, dense_grads(grads), slots, step)
        return
    if rule == "rows":
        kept = []
        for p, g in zip(params, grads):
            if _row_sparse(g):
                untouched = torch.ones(p.shape[0], dtype=torch.bool, device=p.device)
                untouched[g._indices()[0]] = False
                kept.append((p, untouched, p[untouched]))
        kernel.update(group, params, dense_grads(grads), slots, step)
        for p, untouched, before in kept:
            p[untouched] = before
        return
    if rule != "lazy":
        raise ValueError(f"Unknown sparse update rule {rule!r}; expected one of {RULES}.")
    run_params: Tensors = []
    run_grads: Tensors = []
    run_slots: dict[str, Tensors] = {name: [] for name in slots}
    scatter = []
    for i, (p, g) in enumerate(zip(params, grads)):
        if not _row_sparse(g):
            run_params.append(p)
            run_grads.append(g.to_dense() if g.is_sparse else g)
            for name in slots:
                run_slots[name].append(slots[name][i])
            continue
        g = g.coalesce()  # TF deduplicates (sums) the rows before its sparse kernels
        rows = g.indices()[0]
        gathered_param = p.index_select(0, rows)
        run_params.append(gathered_param)
        run_grads.append(g.values())
        gathered = []
        for name in slots:
            slot = slots[name][i]
            if slot.shape == p.shape:
                row_slot = slot.index_select(0, rows)
                gathered.append((slot, row_slot))
                run_slots[name].append(row_slot)
            else:  # per-variable scalars (e.g. torch's step counters) are not row-indexed
                run_slots[name].append(slot)
        scatter.append((p, rows, gathered_param, gathered))
    kernel.update(group, run_params, run_grads, run_slots, step)
    for p, rows, gathered_param, gathered in scatter:
        p.index_copy_(0, rows, gathered_param)
        for slot, row_slot in gathered:
            slot.index_copy_(0, rows, row_slot)
