"""`tf.io.RaggedFeature` and `tf.io.SparseFeature` in `parse_example`.

Both are read, as TF does, through variable-length features: the values (and each
partition or index feature) are parsed as `VarLenFeature`s, then put together per
example: a RaggedTensor (the batch its outer dimension) for a RaggedFeature, a
SparseTensor of dense_shape [batch, *size] for a SparseFeature.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ragged._ops import stack_rows
from torchestimator._ragged_tensor import RaggedTensor
from torchestimator._sparse_tensor import SparseTensor
from torchestimator.errors import InvalidArgumentError
from torchestimator.io._parse_spec import RaggedFeature, SparseFeature, VarLenFeature


def has_composite(features: Any) -> bool:
    """True when `features` holds a RaggedFeature or a SparseFeature."""
    return isinstance(features, Mapping) and any(
        isinstance(f, (RaggedFeature, SparseFeature)) for f in features.values())


def _need(extra: dict, key: Any, dtype: Any, owner: str) -> None:
    if not isinstance(key, str) or not key:
        raise ValueError(f"features[{owner!r}]: feature keys must be non-empty strings; "
                         f"received {key!r}")
    spec = VarLenFeature(_dtypes.as_dtype(dtype))
    if key in extra and extra[key] != spec:
        raise ValueError(f"features[{owner!r}] reads feature {key!r} as "
                         f"{_dtypes.dtype_name(spec.dtype)}, but another feature reads it as "
                         f"{_dtypes.dtype_name(extra[key].dtype)}; a feature has one type")
    extra[key] = spec


def _index_keys(spec: SparseFeature) -> list:
    return [spec.index_key] if isinstance(spec.index_key, str) else list(spec.index_key)


def parse_composite(parse: Callable, serialized: Any, features: Mapping, name: Any,
                    example_names: Any) -> dict:
    """`parse_example` for a features dict holding RaggedFeature / SparseFeature specs."""
    plain, extra = {}, {}
    for key, spec in features.items():
        if isinstance(spec, RaggedFeature):
            _need(extra, spec.value_key or key, spec.dtype, key)
            for p in spec.partitions:
                if not isinstance(p, RaggedFeature.UniformRowLength):
                    _need(extra, p.key, torch.int64, key)
        elif isinstance(spec, SparseFeature):
            for k in _index_keys(spec):
                _need(extra, k, torch.int64, key)
            _need(extra, spec.value_key, spec.dtype, key)
        else:
            plain[key] = spec
    out = parse(serialized, plain, example_names=example_names, name=name) if plain else {}
    lists = parse(serialized, extra, example_names=example_names, name=name)
    batch = None
    for key, spec in features.items():
        if key in plain:
            continue
        parts = {k: _per_example(v, batch) for k, v in lists.items()}
        batch = len(next(iter(parts.values())))
        if isinstance(spec, RaggedFeature):
            out[key] = _ragged(key, spec, parts)
        else:
            out[key] = _sparse(key, spec, parts, batch)
    return {key: out[key] for key in features}


def _per_example(st: SparseTensor, batch: int | None) -> list:
    n = int(st.dense_shape[0]) if batch is None else batch
    rows = st.indices[:, 0]
    counts = torch.bincount(rows, minlength=n)[:n] if rows.numel() else torch.zeros(
        n, dtype=torch.int64)
    splits = [0, *torch.cumsum(counts, 0).tolist()]
    return [st.values[splits[i]:splits[i + 1]] for i in range(n)]


def _ragged(key: str, spec: RaggedFeature, parts: dict) -> RaggedTensor:
    values = parts[spec.value_key or key]
    rows = []
    for i, vals in enumerate(values):
        if isinstance(vals, np.ndarray):
            vals = np.array([v if isinstance(v, bytes) else str(v).encode() for v in vals],
                            dtype=object)
        value: Any = vals
        for p in reversed(spec.partitions):
            value = _partition(key, i, value, p, parts, spec)
        rows.append(value)
    result = stack_rows(rows, spec.row_splits_dtype)
    return result.with_row_splits_dtype(spec.row_splits_dtype)


def _partition(key: str, i: int, value: Any, p: Any, parts: dict, spec: RaggedFeature) -> Any:
    if isinstance(p, RaggedFeature.UniformRowLength):
        length = int(p.length)
        if isinstance(value, RaggedTensor):
            return RaggedTensor.from_uniform_row_length(value, length)
        n = value.shape[0]
        if length <= 0 or n % length:
            raise InvalidArgumentError(
                f"Feature {key!r}, example {i}: {n} values cannot be split into rows of "
                f"UniformRowLength({length})")
        return value.reshape((-1, length, *value.shape[1:]))
    t = parts[p.key][i]
    factory = {
        RaggedFeature.RowSplits: RaggedTensor.from_row_splits,
        RaggedFeature.RowLengths: RaggedTensor.from_row_lengths,
        RaggedFeature.RowStarts: RaggedTensor.from_row_starts,
        RaggedFeature.RowLimits: RaggedTensor.from_row_limits,
        RaggedFeature.ValueRowIds: RaggedTensor.from_value_rowids,
    }[type(p)]
    try:
        return factory(value, t)
    except (InvalidArgumentError, ValueError) as e:
        raise InvalidArgumentError(
            f"Feature {key!r}, example {i}: partition feature {p.key!r} ({type(p).__name__}) "
            f"does not partition the values: {e}") from None


def _sparse(key: str, spec: SparseFeature, parts: dict, batch: int) -> SparseTensor:
    keys = _index_keys(spec)
    sizes = [spec.size] if isinstance(spec.index_key, str) else list(spec.size)
    if len(sizes) != len(keys):
        raise ValueError(f"features[{key!r}]: SparseFeature size must have one entry per index "
                         f"key ({len(keys)}); received size={spec.size!r}")
    sizes = [int(s) for s in sizes]
    values = parts[spec.value_key]
    all_idx, all_vals = [], []
    for i in range(batch):
        n = len(values[i])
        cols = []
        for k, size in zip(keys, sizes):
            idx = parts[k][i].to(torch.int64)
            if len(idx) != n:
                raise InvalidArgumentError(
                    f"Feature {key!r}, example {i}: index feature {k!r} has {len(idx)} values "
                    f"but value feature {spec.value_key!r} has {n}; they must match")
            if n and (int(idx.min()) < 0 or int(idx.max()) >= size):
                raise InvalidArgumentError(
                    f"Feature {key!r}, example {i}: index feature {k!r} holds {idx.tolist()}, "
                    f"outside [0, {size}) (the SparseFeature's size)")
            cols.append(idx)
        idx = torch.stack([torch.full((n,), i, dtype=torch.int64), *cols], dim=1)
        vals = values[i]
        if not spec.already_sorted and n > 1:
            lin = torch.zeros(n, dtype=torch.int64)
            for c, size in zip(cols, sizes):
                lin = lin * size + c
            order = torch.sort(lin, stable=True).indices
            idx = idx[order]
            vals = vals[order.numpy()] if isinstance(vals, np.ndarray) else vals[order]
        all_idx.append(idx)
        all_vals.append(vals)
    indices = torch.cat(all_idx) if all_idx else torch.zeros((0, 1 + len(keys)), dtype=torch.int64)
    if all_vals and isinstance(all_vals[0], np.ndarray):
        vals = np.concatenate(all_vals).astype(object)
    elif all_vals:
        vals = torch.cat(all_vals)
    else:
        vals = torch.zeros(0, dtype=spec.dtype) if spec.dtype is not _dtypes.string else \
            np.empty(0, dtype=object)
    return SparseTensor._from_parts(indices.reshape(-1, 1 + len(keys)), vals,
                                    torch.tensor([batch, *sizes], dtype=torch.int64))
