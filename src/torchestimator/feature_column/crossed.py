"""`crossed_column`: hashed feature crosses, bit-identical to TF's `sparse_cross_hashed`.

For every example, each combination of one value from every key is hashed:
start from `hash_key` (default 0xDECAFCAFFE), fold in each value's hash with
`FingerprintCat64` — a string's `Fingerprint64`, an integer (raw feature or
a categorical column's id) as itself — and take the result modulo
`hash_bucket_size`. As in TF's op, the categorical-column inputs and ragged
raw features come first in the fold, then dense raw features, each group in
key order; dense raw values are crossed as given ('' and -1 included, as TF
does for dense tensors).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes, _hashing
from torchestimator.feature_column import _inputs, _string_memo, serialization
from torchestimator.feature_column._base import (
    CategoricalColumn,
    IdWeightPair,
    SparseIds,
    dense_layout,
)
from torchestimator.feature_column.categorical import HashedCategoricalColumn
from torchestimator.io._parse_spec import VarLenFeature


def _leaf_keys(keys: tuple) -> list[Any]:
    out: list[Any] = []
    for key in keys:
        if isinstance(key, CrossedColumn):
            out.extend(_leaf_keys(key.keys))
        else:
            out.append(key)
    return out


def _cross(inputs: list[tuple[np.ndarray, np.ndarray | None]], batch: int, hash_key: int, buckets: int):
    """Cartesian product per example of the (hashes, rows) inputs, hashed; rows ascending.

    `rows` None means one value per example (then the cross is elementwise).
    """
    if all(rows is None for _, rows in inputs):
        cur_hash = np.full(batch, np.uint64(hash_key), dtype=np.uint64)
        for hashes, _ in inputs:
            cur_hash = _hashing.fingerprint_cat64(cur_hash, hashes)
        ids = (cur_hash % np.uint64(buckets)).astype(np.int64)
        return ids, np.arange(batch, dtype=np.int64), np.zeros(batch, dtype=np.int64), 1 if batch else 0
    inputs = [(h, np.arange(batch, dtype=np.int64) if rows is None else rows) for h, rows in inputs]
    cur_hash = np.full(batch, np.uint64(hash_key), dtype=np.uint64)
    cur_rows = np.arange(batch, dtype=np.int64)
    for hashes, rows in inputs:
        counts = np.bincount(rows, minlength=batch)
        starts = np.cumsum(counts) - counts
        rep = counts[cur_rows]
        total = int(rep.sum())
        a_idx = np.repeat(np.arange(len(cur_rows)), rep)
        within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(rep) - rep, rep)
        b_idx = starts[cur_rows[a_idx]] + within
        cur_hash = _hashing.fingerprint_cat64(cur_hash[a_idx], hashes[b_idx])
        cur_rows = cur_rows[a_idx]
    ids = (cur_hash % np.uint64(buckets)).astype(np.int64)
    counts = np.bincount(cur_rows, minlength=batch)
    cols = np.arange(len(cur_rows), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return ids, cur_rows, cols, int(counts.max()) if batch else 0


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class CrossedColumn(CategoricalColumn):
    """A hashed cross of several features/categorical columns (TF's CrossedColumn)."""

    keys: tuple = dataclasses.field(metadata={"kind": serialization.KEYS})
    hash_bucket_size: int = 0
    hash_key: int | None = None

    def __post_init__(self) -> None:
        size = self.hash_bucket_size
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {size!r}")
        object.__setattr__(self, "hash_bucket_size", int(size))
        keys = self.keys
        if isinstance(keys, (str, CategoricalColumn)) or not isinstance(keys, (list, tuple)) or len(keys) < 2:
            raise ValueError(f"keys must be a list with length > 1. Given: {keys!r}")
        for key in keys:
            if not isinstance(key, (str, CategoricalColumn)):
                raise ValueError(
                    "Unsupported key type. All keys must be either string, or categorical column "
                    f"except HashedCategoricalColumn. Given: {key!r}"
                )
            if isinstance(key, HashedCategoricalColumn):
                raise ValueError(
                    "categorical_column_with_hash_bucket is not supported for crossing. Hashing "
                    "before crossing will increase probability of collision. Instead, use the "
                    f"feature name as a string. Given: {key!r}"
                )
        object.__setattr__(self, "keys", tuple(keys))
        if self.hash_key is not None and (
            isinstance(self.hash_key, bool) or not isinstance(self.hash_key, (int, np.integer))
            or not 0 <= int(self.hash_key) < 2**64
        ):
            raise ValueError(f"hash_key must be an integer in [0, 2**64), got {self.hash_key!r}")

    @property
    def name(self) -> str:
        """The sorted leaf names joined by `_X_` (e.g. `age_bucketized_X_color`)."""
        names = [k if isinstance(k, str) else k.name for k in _leaf_keys(self.keys)]
        return "_X_".join(sorted(names))

    @property
    def parents(self) -> list[Any]:
        """The keys."""
        return list(self.keys)

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """String keys as `VarLenFeature(string)`, columns with their own specs."""
        config: dict[str, Any] = {}
        for key in self.keys:
            if isinstance(key, str):
                config[key] = VarLenFeature(_string_dtype())
            else:
                config.update(key.parse_example_spec)
        return config

    @property
    def num_buckets(self) -> int:
        """`hash_bucket_size`."""
        return self.hash_bucket_size

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> SparseIds:
        """Returns the hashed crosses of every example."""
        memoized = self._memoized_cross(transformation_cache, state_manager)
        if memoized is not None:
            return memoized
        sparse_inputs: list[tuple[np.ndarray, np.ndarray | None]] = []
        dense_inputs: list[tuple[np.ndarray, np.ndarray | None]] = []
        batch_sizes: dict[str, int] = {}
        for key in _leaf_keys(self.keys):
            if isinstance(key, str):
                hashes = _dense_string_fingerprints(transformation_cache, key, self.name)
                if hashes is not None:
                    dense_inputs.append(hashes[:2])
                    batch_sizes[key] = hashes[2]
                    continue
                raw = transformation_cache.raw_sparse(key, self.name, None, drop_missing=False)
                if raw.is_string:
                    hashes = _inputs.fingerprints(raw)
                else:
                    hashes = np.asarray(raw.values, dtype=np.int64).view(np.uint64)
                (dense_inputs if raw.dense else sparse_inputs).append((hashes, raw.rows))
                batch_sizes[key] = raw.batch_size
            else:
                pair = key.get_sparse_tensors(transformation_cache, state_manager)
                if pair.weight_tensor is not None:
                    raise ValueError(
                        "crossed_column does not support weight_tensor, but the given column "
                        f"populates weight_tensor. Given column: {key.name}"
                    )
                sp = pair.id_tensor
                ids = sp.ids.detach().cpu().numpy().astype(np.int64)
                rows = None if sp.one_per_row else sp.rows.detach().cpu().numpy()
                sparse_inputs.append((ids.view(np.uint64), rows))
                batch_sizes[key.name] = sp.batch_size
        if len(set(batch_sizes.values())) > 1:
            raise ValueError(
                f"crossed_column {self.name!r}: its inputs have different batch sizes "
                f"{batch_sizes}; every feature must have one row per example."
            )
        batch = next(iter(batch_sizes.values()))
        ids, rows, cols, width = _cross(
            sparse_inputs + dense_inputs, batch, self._fold_key, self.hash_bucket_size
        )
        return SparseIds(
            torch.from_numpy(ids), torch.from_numpy(rows), torch.from_numpy(cols), batch, width,
            self.hash_bucket_size,
        )

    def get_sparse_tensors(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns `IdWeightPair(crossed ids, None)`."""
        return IdWeightPair(transformation_cache.get(self, state_manager), None)

    @property
    def _fold_key(self) -> int:
        """The value the fold of every cross starts from: `hash_key`, or TF's default."""
        return _hashing.DEFAULT_CROSS_HASH_KEY if self.hash_key is None else int(self.hash_key)

    def _memoized_cross(self, transformation_cache: Any, state_manager: Any) -> SparseIds | None:
        """The crossed ids from the column's table of crosses seen so far, when every key is a
        categorical column giving one id per example from a small id range (a cross of
        vocabulary or identity columns); None when the general path must run.

        The table holds one entry per combination of input ids (at most `_MAX_MEMO_CROSSES`),
        each filled the first time a batch holds that combination, from the same hashing.
        """
        keys = _leaf_keys(self.keys)
        if any(isinstance(key, str) for key in keys):
            return None
        inputs = []
        for key in keys:
            pair = key.get_sparse_tensors(transformation_cache, state_manager)
            sp = pair.id_tensor
            if (pair.weight_tensor is not None or not sp.one_per_row or sp.id_bound is None
                    or sp.ids.device.type != "cpu"):
                return None
            inputs.append(sp)
        batch = inputs[0].batch_size
        bounds = [sp.id_bound for sp in inputs]
        size = math.prod(bounds)
        if batch == 0 or any(sp.batch_size != batch for sp in inputs) or size > _MAX_MEMO_CROSSES:
            return None
        ids = [sp.ids.numpy() for sp in inputs]
        index = ids[0]
        for values, bound in zip(ids[1:], bounds[1:]):
            index = index * bound + values
        table = self._cross_memo(size)
        crossed = table[index]
        unseen = np.flatnonzero(crossed < 0)
        if unseen.size:
            fresh = _cross([(values[unseen].view(np.uint64), None) for values in ids], unseen.size,
                           self._fold_key, self.hash_bucket_size)[0]
            table[index[unseen]] = fresh
            crossed[unseen] = fresh
        rows, cols = dense_layout(batch, 1)
        return SparseIds(torch.from_numpy(crossed), rows, cols, batch, 1, self.hash_bucket_size)

    def _cross_memo(self, size: int) -> np.ndarray:
        """The table of crossed ids by combined input id (-1: not seen yet), made on first use."""
        table = self.__dict__.get("_cross_memo_table")
        if table is None or table.shape[0] != size:
            table = np.full(size, -1, dtype=np.int64)
            self.__dict__["_cross_memo_table"] = table
        return table


_MAX_MEMO_CROSSES = 1 << 20  # entries (8 MB) of the largest table of memoized crosses


def _dense_string_fingerprints(
    transformation_cache: Any, key: str, column: str
) -> tuple[np.ndarray, np.ndarray | None, int] | None:
    """(Fingerprint64 of each value, rows or None for one per example, batch size) of a dense
    string feature, from the shared memo; None when the feature is not a dense array of str."""
    strings = transformation_cache.dense_strings(key, column)
    if strings is None:
        return None
    hashes = _string_memo.FINGERPRINTS.lookup_dense(strings)
    if hashes is None:
        return None
    width = strings.width
    rows = None if width == 1 else np.arange(len(hashes), dtype=np.int64) // width
    return hashes, rows, strings.batch_size


def _string_dtype() -> Any:
    return _dtypes.string


def crossed_column(keys: Any, hash_bucket_size: int, hash_key: int | None = None) -> CrossedColumn:
    """Returns a column for performing crosses of categorical features.

    `keys` are at least two feature names (raw string or integer features)
    or categorical columns (not `categorical_column_with_hash_bucket`; other
    crossed columns are flattened into this one). Each combination of values
    is hashed with FarmHash `FingerprintCat64` starting from `hash_key`, then
    taken modulo `hash_bucket_size`, exactly as TF.

    Returns:
        A `CrossedColumn` named by its sorted keys joined with `_X_`.
    """
    if isinstance(keys, list):
        keys = tuple(keys)
    return CrossedColumn(keys, hash_bucket_size, hash_key)
