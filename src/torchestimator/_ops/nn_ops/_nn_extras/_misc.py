"""tf.nn's `isotonic_regression`, `space_to_batch` / `with_space_to_batch`,
`batch_norm_with_global_normalization`, `safe_embedding_lookup_sparse` and
`tf.nn.experimental`'s dropouts, as TF 2.15's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator._ops import space_batch_ops
from torchestimator._ops.convert import convert_to_tensor
from torchestimator._ops.nn_ops._common import Tensor, _floating, _numeric
from torchestimator._ops.nn_ops._embedding import embedding_lookup
from torchestimator._ops.nn_ops._nn_extras._args import _ints
from torchestimator._ops.nn_ops._normalization import batch_normalization
from torchestimator._ops.random_ops import stateless_uniform
from torchestimator._ops.random_ops._stateless_extras import philox_stateless_uniform


def _pav(values: list[float], decreasing: bool) -> tuple[list[float], list[int]]:
    """Pool adjacent violators: the least-squares non-increasing (or non-decreasing) fit."""
    sign = 1.0 if decreasing else -1.0
    blocks: list[list[float]] = []  # [sum, count]
    for v in values:
        blocks.append([sign * v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] <= blocks[-1][0] / blocks[-1][1]:
            s, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
    out, seg = [], []
    for i, (s, n) in enumerate(blocks):
        out += [sign * s / n] * int(n)
        seg += [i] * int(n)
    return out, seg


def isotonic_regression(inputs: Any, decreasing: bool = True,
                        axis: int = -1) -> tuple[Tensor, Tensor]:
    """Solves the isotonic regression problem along `axis` (TF's
    `tf.nn.isotonic_regression`): the least-squares non-increasing (`decreasing=True`) or
    non-decreasing fit of each vector, and the segment each element belongs to.

    Returns:
        A tuple (output, segments): output float (float32 for integer inputs of 8-16 bits,
        float64 for wider ones, else the input's dtype), segments int32.
    """
    x = _numeric(inputs, "isotonic_regression", "inputs")
    if x.ndim == 0:
        raise ValueError("isotonic_regression: `inputs` must have rank >= 1, got a scalar.")
    if x.is_floating_point():
        out_dtype = x.dtype
    else:
        out_dtype = torch.float64 if x.dtype in (torch.int32, torch.int64) else torch.float32
    moved = x.movedim(axis, -1)
    flat = moved.reshape(-1, moved.shape[-1]).to(torch.float64).tolist()
    fits, segs = zip(*[_pav(r, decreasing) for r in flat]) if flat else ((), ())
    out = torch.tensor(list(fits), dtype=torch.float64).reshape(moved.shape)
    seg = torch.tensor(list(segs), dtype=torch.int32).reshape(moved.shape)
    return out.to(out_dtype).movedim(-1, axis), seg.movedim(-1, axis)


# ----------------------------------------------------------------------------- space/batch
def space_to_batch(input: Any, block_shape: Any, paddings: Any,
                   name: str | None = None) -> Tensor:
    """Divides the spatial dimensions of `input` into blocks of `block_shape` (after padding
    them by `paddings`) and interleaves the blocks into the batch dimension (TF's
    `tf.nn.space_to_batch`, = `tf.space_to_batch_nd`).

    Returns:
        A tensor of `input`'s dtype.
    """
    return space_batch_ops.space_to_batch_nd(input, block_shape, paddings)


def space_to_batch_v1(input: Any, paddings: Any, block_size: Any = None,
                      name: str | None = None, block_shape: Any = None) -> Tensor:
    """TF1's `tf.compat.v1.nn.space_to_batch(input, paddings, block_size)`: a 4-D input and
    one square block size.

    Returns:
        A 4-D tensor of `input`'s dtype.
    """
    if block_size is not None and block_shape is not None:
        raise ValueError("Cannot specify both 'block_size' and 'block_shape'.")
    if block_size is None:
        block_size = block_shape
    if block_size is None:
        raise ValueError("space_to_batch: pass `block_size`.")
    size = int(block_size)
    return space_batch_ops.space_to_batch_nd(input, [size, size], paddings)


def with_space_to_batch(input: Any, dilation_rate: Any, padding: str, op: Callable,
                        filter_shape: Any = None, spatial_dims: Any = None,
                        data_format: str | None = None) -> Tensor:
    """Performs `op(input, num_spatial_dims, padding)` on the space-to-batch representation of
    `input` (TF's `tf.nn.with_space_to_batch`): a dilated op computed as an undilated one;
    `filter_shape` is needed for 'SAME' padding.

    Returns:
        `op`'s output, mapped back by batch-to-space.
    """
    x = convert_to_tensor(input, name="input")
    rate = _ints(dilation_rate, "with_space_to_batch", "dilation_rate")
    n = len(rate)
    if any(r < 1 for r in rate):
        raise ValueError(f"with_space_to_batch: dilation_rate must be positive, got {rate}.")
    if spatial_dims is None:
        start = 2 if data_format is not None and data_format.startswith("NC") else 1
        spatial = list(range(start, start + n))
    else:
        spatial = sorted(int(d) for d in spatial_dims)
        if len(spatial) != n or len(set(spatial)) != n or spatial[0] < 1:
            raise ValueError(f"with_space_to_batch: spatial_dims must be {n} distinct "
                             f"dimensions >= 1, got {spatial_dims}.")
    if all(r == 1 for r in rate):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("with_space_to_batch: filter_shape must be specified for SAME "
                             "padding")
        fs = _ints(filter_shape, "with_space_to_batch", "filter_shape")
        base = []
        for f, r in zip(fs, rate):
            total = f + (f - 1) * (r - 1) - 1
            base.append([total // 2, total - total // 2])
    elif padding == "VALID":
        base = [[0, 0]] * n
    else:
        raise ValueError(f"with_space_to_batch: Invalid padding method {padding!r}; use 'SAME' "
                         "or 'VALID'.")
    shape = [x.shape[d] for d in spatial]
    pads, crops = space_batch_ops.required_space_to_batch_paddings(shape, rate, base)
    pads, crops = pads.tolist(), crops.tolist()
    last = spatial[-1]
    full_rate, full_pads, full_crops = [], [], []
    for d in range(1, last + 1):
        if d in spatial:
            i = spatial.index(d)
            full_rate.append(rate[i])
            full_pads.append(pads[i])
            full_crops.append(crops[i])
        else:
            full_rate.append(1)
            full_pads.append([0, 0])
            full_crops.append([0, 0])
    converted = space_batch_ops.space_to_batch_nd(x, full_rate, full_pads)
    result = op(converted, n, "VALID")
    return space_batch_ops.batch_to_space(result, full_rate, full_crops)


# ----------------------------------------------------------------------------- normalization
def batch_norm_with_global_normalization(input: Any, mean: Any, variance: Any, beta: Any,
                                         gamma: Any, variance_epsilon: float,
                                         scale_after_normalization: bool,
                                         name: str | None = None) -> Tensor:
    """Batch normalization with given (global) statistics over the last dimension (TF's
    `tf.nn.batch_norm_with_global_normalization`): `(input - mean) / sqrt(variance + eps)`,
    times `gamma` when `scale_after_normalization`, plus `beta`.

    Returns:
        A tensor of `input`'s shape and dtype.
    """
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None, variance_epsilon)


# ----------------------------------------------------------------------------- embeddings
def _sparse_coo(sp: Any, op: str, arg: str) -> tuple[Tensor, Tensor, list[int]]:
    if isinstance(sp, Tensor) and sp.layout is torch.sparse_coo:
        sp = sp.coalesce()
        return sp.indices().t(), sp.values(), list(sp.shape)
    if hasattr(sp, "indices") and hasattr(sp, "values") and hasattr(sp, "dense_shape"):
        ind = sp.indices if isinstance(sp.indices, Tensor) else torch.as_tensor(
            np.asarray(sp.indices))
        val = sp.values if isinstance(sp.values, Tensor) else torch.as_tensor(
            np.asarray(sp.values))
        shape = sp.dense_shape.tolist() if hasattr(sp.dense_shape, "tolist") else list(
            sp.dense_shape)
        return ind.to(torch.int64).reshape(-1, len(shape)), val, [int(s) for s in shape]
    raise TypeError(f"{op}: `{arg}` must be a SparseTensor (or a torch sparse COO tensor), got "
                    f"{type(sp).__name__}.")


def safe_embedding_lookup_sparse(embedding_weights: Any, sparse_ids: Any,
                                 sparse_weights: Any = None, combiner: str = "mean",
                                 default_id: Any = None, max_norm: Any = None,
                                 name: str | None = None,
                                 allow_fast_lookup: bool = False) -> Tensor:
    """Looks up and combines embeddings of `sparse_ids` `[d_0, ..., d_n-1, N]`, robust to
    invalid entries (TF's `tf.nn.safe_embedding_lookup_sparse`): ids < 0 (and weights <= 0)
    are dropped; a row left empty gets the embedding of `default_id`, or zeros when it is
    None. `combiner` is 'mean', 'sqrtn' or 'sum'.

    Returns:
        A dense tensor `[d_0, ..., d_n-1, embedding dim]`.
    """
    op = "safe_embedding_lookup_sparse"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"{op}: combiner must be one of 'mean', 'sqrtn' or 'sum', got "
                         f"{combiner!r}.")
    shards = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) else [
        embedding_weights]
    if not shards:
        raise ValueError(f"{op}: Missing embedding_weights {embedding_weights}.")
    shards = [s if isinstance(s, Tensor) else convert_to_tensor(
        s.value() if hasattr(s, "value") and callable(s.value) else s) for s in shards]
    ind, ids, shape = _sparse_coo(sparse_ids, op, "sparse_ids")
    if len(shape) < 2:
        raise ValueError(f"{op}: sparse_ids must have rank >= 2, got dense_shape {shape}.")
    rows_n = int(np.prod(shape[:-1]))
    outer = shape[:-1]
    strides = torch.tensor([int(np.prod(outer[i + 1:])) for i in range(len(outer))],
                           dtype=torch.int64)
    row = (ind[:, :-1] * strides.reshape(1, -1)).sum(1)
    ids = ids.to(torch.int64)
    keep = ids >= 0
    weights = None
    if sparse_weights is not None:
        _, weights, _ = _sparse_coo(sparse_weights, op, "sparse_weights")
        weights = weights.to(shards[0].dtype)
        keep = keep & (weights > 0)
    row, ids = row[keep], ids[keep]
    weights = weights[keep] if weights is not None else torch.ones(
        ids.shape, dtype=shards[0].dtype)
    empty = torch.ones(rows_n, dtype=torch.bool)
    empty[row] = False
    if default_id is not None:
        fill = torch.nonzero(empty).reshape(-1)
        row = torch.cat([row, fill])
        ids = torch.cat([ids, torch.full_like(fill, int(default_id))])
        weights = torch.cat([weights, torch.ones(fill.shape, dtype=weights.dtype, device=weights.device)])
    emb = embedding_lookup(shards if len(shards) > 1 else shards[0], ids, max_norm=max_norm)
    dim = emb.shape[1:]
    w = weights.to(emb.dtype).reshape((-1,) + (1,) * len(dim))
    row = row.to(emb.device)
    total = torch.zeros((rows_n,) + tuple(dim), dtype=emb.dtype, device=emb.device).index_add(
        0, row, emb * w.to(emb.device))
    if combiner != "sum":
        denom_src = weights.to(emb.dtype) if combiner == "mean" else weights.to(emb.dtype) ** 2
        denom = torch.zeros(rows_n, dtype=emb.dtype, device=emb.device).index_add(
            0, row, denom_src.to(emb.device))
        if combiner == "sqrtn":
            denom = denom.sqrt()
        denom = denom.reshape((-1,) + (1,) * len(dim))
        total = torch.where(denom > 0, total / torch.where(denom > 0, denom, 1), total)
    if default_id is None:  # the mask was made on the host, with the ids
        empty = empty.to(emb.device).reshape((-1,) + (1,) * len(dim))
        total = torch.where(empty, torch.zeros_like(total), total)
    return total.reshape(tuple(shape[:-1]) + tuple(dim))


def safe_embedding_lookup_sparse_v1(embedding_weights: Any, sparse_ids: Any,
                                    sparse_weights: Any = None, combiner: str = "mean",
                                    default_id: Any = None, name: str | None = None,
                                    partition_strategy: str = "div", max_norm: Any = None,
                                    allow_fast_lookup: bool = False) -> Tensor:
    """TF1's `tf.compat.v1.nn.safe_embedding_lookup_sparse` (`partition_strategy` 'div').

    Returns:
        A dense tensor `[d_0, ..., d_n-1, embedding dim]`.
    """
    if partition_strategy != "div":
        raise ValueError("safe_embedding_lookup_sparse: only partition_strategy='div' is "
                         f"supported, got {partition_strategy!r}.")
    return safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner,
                                        default_id, max_norm)


# ----------------------------------------------------------------------------- dropouts
def general_dropout(x: Any, rate: Any, uniform_sampler: Callable, noise_shape: Any = None,
                    name: str | None = None) -> Tensor:
    """Dropout with a caller-given sampler (TF's `tf.nn.experimental.general_dropout`): keeps
    an element where `uniform_sampler(shape=noise_shape, dtype=x.dtype) >= rate`, scaled by
    `1 / (1 - rate)`.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    t = _floating(x, "general_dropout", "x")
    r = float(rate.item() if isinstance(rate, Tensor) else rate)
    if not 0 <= r < 1:
        raise ValueError(f"general_dropout: `rate` must be a scalar in the range [0, 1), got "
                         f"{rate}.")
    if r == 0:
        return t
    shape = list(t.shape) if noise_shape is None else [
        t.shape[i] if s is None else int(s) for i, s in enumerate(
            _noise(noise_shape))]
    sample = uniform_sampler(shape=shape, dtype=t.dtype)
    sample = sample if isinstance(sample, Tensor) else convert_to_tensor(sample)
    keep = (sample >= r).to(t.dtype)
    return t * (1.0 / (1.0 - r)) * keep


def _noise(noise_shape: Any) -> list:
    if isinstance(noise_shape, (Tensor, np.ndarray)):
        return noise_shape.tolist()
    return list(noise_shape)


def stateless_dropout(x: Any, rate: Any, seed: Any, rng_alg: Any = None, noise_shape: Any = None,
                      name: str | None = None) -> Tensor:
    """Dropout whose mask is a deterministic function of `seed` (a shape [2] integer tensor;
    TF's `tf.nn.experimental.stateless_dropout`): the mask is
    `tf.random.stateless_uniform(noise_shape, seed, alg=rng_alg) >= rate`, drawn from TF's
    Philox stream, so the mask is TF's for the same seed (rng_alg None, 'auto_select' or
    'philox'; 'threefry' uses this project's stateless generator).

    Returns:
        A tensor of `x`'s shape and dtype.
    """

    alg = getattr(rng_alg, "name", rng_alg)
    philox = alg is None or str(alg).lower() in ("auto_select", "philox", "1", "3")

    def sampler(shape: Any, dtype: Any) -> Tensor:
        if philox:
            return philox_stateless_uniform(shape, seed, dtype=dtype).to(
                x.device if isinstance(x, Tensor) else "cpu")
        return stateless_uniform(shape, seed, dtype=dtype, alg=rng_alg)

    return general_dropout(x, rate, sampler, noise_shape)
