"""Categorical columns: identity, hash bucket, vocabulary list, vocabulary file.

Each turns a string or integer feature into ids in [0, num_buckets). Lookups
and hashing are vectorized (PyArrow's `index_in`, and the FarmHash
Fingerprint64 of `torchestimator._hashing`), so ids are TF's ids: an
out-of-vocabulary value goes to `vocabulary_size + Fingerprint64(value) %
num_oov_buckets`, a hashed value to `Fingerprint64(value) % hash_bucket_size`
(integers hashed as their decimal text, as TF's `as_string`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from torchestimator import _dtypes, _hashing
from torchestimator.feature_column import _inputs, _string_memo, serialization
from torchestimator.feature_column._base import (
    CategoricalColumn,
    IdWeightPair,
    SparseIds,
    check_key,
    check_positive_int,
    dense_layout,
)
from torchestimator.io._parse_spec import var_len_for
from torchestimator.io._tfrecord import read_records
from torchestimator.lookup._tables import vocabulary_ids


def _string_or_int_dtype(dtype: Any, column: str, what: str = "dtype") -> Any:
    d = _dtypes.as_dtype(dtype)
    if d is _dtypes.string:
        return d
    if isinstance(d, torch.dtype) and not d.is_floating_point and not d.is_complex and d != torch.bool:
        return d
    raise ValueError(
        f"column_name: {column} {what} must be string or integer. dtype: {_dtypes.dtype_name(d)}"
    )


def _sparse_from_raw(raw: _inputs.RawSparse, ids: np.ndarray, id_bound: int | None = None) -> SparseIds:
    return SparseIds(
        torch.from_numpy(np.ascontiguousarray(ids, dtype=np.int64)),
        torch.from_numpy(raw.rows),
        torch.from_numpy(raw.cols),
        raw.batch_size,
        raw.width,
        id_bound,
    )


def _read_raw(column: Any, transformation_cache: Any) -> _inputs.RawSparse:
    return transformation_cache.raw_sparse(column.key, column.name, column.dtype is _dtypes.string)


def _memoized_ids(column: Any, transformation_cache: Any) -> SparseIds | None:
    """The ids of a dense string feature from the column's per-value memo; None when it does not apply."""
    if column.dtype is not _dtypes.string:
        return None
    strings = transformation_cache.dense_strings(column.key, column.name)
    if strings is None:
        return None
    if strings.codes is not None and strings.dictionary is not None:
        answers = column._ids_memo.dictionary_answers(strings.dictionary)
        if answers is None:
            return None
        ids = answers.values[strings.codes]
        if answers.all_valid:  # every id present and >= 0: nothing to check
            rows, cols = dense_layout(strings.batch_size, strings.width)
            return SparseIds(torch.from_numpy(ids), rows, cols, strings.batch_size, strings.width,
                             column.num_buckets)
    else:
        ids = column._ids_memo.lookup(strings.values)
        if ids is None:
            return None
    return SparseIds.from_dense(
        ids, strings.batch_size, strings.width, _string_memo.MISSING, column.num_buckets
    )


class _CategoricalBase(CategoricalColumn):
    """Shared behaviour of the single-key categorical columns."""

    @property
    def name(self) -> str:
        """The feature key."""
        return self.key

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """`{key: VarLenFeature(dtype)}`."""
        return {self.key: var_len_for(self.dtype)}

    def get_sparse_tensors(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns `IdWeightPair(ids, None)`."""
        return IdWeightPair(transformation_cache.get(self, state_manager), None)


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class IdentityCategoricalColumn(_CategoricalBase):
    """Integer ids used as they are (TF's IdentityCategoricalColumn)."""

    key: str
    number_buckets: int
    default_value: int | None = None

    def __post_init__(self) -> None:
        check_key(self.key)
        n = check_positive_int(self.number_buckets, "num_buckets", self.key)
        object.__setattr__(self, "number_buckets", n)
        if self.default_value is not None:
            d = self.default_value
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 0 <= d < n:
                raise ValueError(
                    f"default_value {d!r} not in range [0, {n}), column_name {self.key}"
                )
            object.__setattr__(self, "default_value", int(d))

    @property
    def dtype(self) -> torch.dtype:
        """int64."""
        return torch.int64

    @property
    def num_buckets(self) -> int:
        """`num_buckets`."""
        return self.number_buckets

    def get_config(self) -> dict[str, Any]:
        """Returns `{"key", "number_buckets", "default_value"}` (TF's field names)."""
        return {"key": self.key, "number_buckets": self.number_buckets, "default_value": self.default_value}

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> SparseIds:
        """Returns the ids; out-of-range values go to `default_value`, or raise without one."""
        raw = _read_raw(self, transformation_cache)
        ids = raw.values
        bad = (ids < 0) | (ids >= self.number_buckets)
        if bad.any():
            if self.default_value is not None:
                ids = np.where(bad, self.default_value, ids)
            else:
                value = int(ids[bad][0])
                if value < 0:
                    problem = f"Negative bucket index for categorical column {self.name!r}: {value}"
                else:
                    problem = (
                        f"Bucket index for categorical column {self.name!r} exceeds number of "
                        f"buckets: value {value} >= num_buckets {self.number_buckets}"
                    )
                raise ValueError(
                    f"{problem} (feature {self.key!r}). Ids must be in [0, {self.number_buckets}) "
                    "(-1 marks a missing value); raise num_buckets, or set default_value to map "
                    "out-of-range ids to one bucket."
                )
        return _sparse_from_raw(raw, ids, self.number_buckets)


def categorical_column_with_identity(
    key: str, num_buckets: int, default_value: int | None = None
) -> IdentityCategoricalColumn:
    """A `CategoricalColumn` that returns identity values: integer ids in [0, num_buckets).

    Values outside that range become `default_value`; without one, a value
    >= num_buckets (or a negative one other than the missing marker -1) raises
    ValueError naming the column and the value.

    Returns:
        An `IdentityCategoricalColumn`.
    """
    return IdentityCategoricalColumn(key, num_buckets, default_value)


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class HashedCategoricalColumn(_CategoricalBase):
    """Values hashed into buckets: `Fingerprint64(value) % hash_bucket_size` (TF's HashedCategoricalColumn)."""

    key: str
    hash_bucket_size: int
    dtype: Any = dataclasses.field(default=_dtypes.string, metadata={"kind": serialization.DTYPE})

    def __post_init__(self) -> None:
        check_key(self.key)
        if self.hash_bucket_size is None:
            raise ValueError(f"hash_bucket_size must be set. key: {self.key}")
        if isinstance(self.hash_bucket_size, bool) or not isinstance(self.hash_bucket_size, (int, np.integer)) or self.hash_bucket_size < 1:
            raise ValueError(
                f"hash_bucket_size must be at least 1. hash_bucket_size: {self.hash_bucket_size!r}, "
                f"key: {self.key}"
            )
        object.__setattr__(self, "hash_bucket_size", int(self.hash_bucket_size))
        object.__setattr__(self, "dtype", _string_or_int_dtype(self.dtype, self.key))

    @property
    def num_buckets(self) -> int:
        """`hash_bucket_size`."""
        return self.hash_bucket_size

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> SparseIds:
        """Returns `Fingerprint64(str(value)) % hash_bucket_size` for every present value."""
        memoized = _memoized_ids(self, transformation_cache)
        if memoized is not None:
            return memoized
        raw = _read_raw(self, transformation_cache)
        ids = (_inputs.fingerprints(raw) % np.uint64(self.hash_bucket_size)).astype(np.int64)
        return _sparse_from_raw(raw, ids)

    @functools.cached_property
    def _ids_memo(self) -> _string_memo.StringMemo:
        return _string_memo.StringMemo(
            lambda strings: _hashing.hash_bucket(strings, self.hash_bucket_size)
        )


def categorical_column_with_hash_bucket(
    key: str, hash_bucket_size: int, dtype: Any = _dtypes.string
) -> HashedCategoricalColumn:
    """Represents sparse feature where ids are set by hashing.

    id = `Fingerprint64(value) % hash_bucket_size` (FarmHash, bit-identical to
    TF; integer values are hashed as their decimal text).

    Returns:
        A `HashedCategoricalColumn`. Raises ValueError when `hash_bucket_size`
        is not an integer >= 1 or `dtype` is neither string nor integer.
    """
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


class _VocabularyBase(_CategoricalBase):
    @property
    def num_buckets(self) -> int:
        """The vocabulary size plus `num_oov_buckets`."""
        return self._vocab_size + self.num_oov_buckets

    def _check_oov(self, default_value: Any) -> None:
        """Validates num_oov_buckets; `default_value` is None when the user gave none."""
        n = self.num_oov_buckets
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"Invalid num_oov_buckets {n!r} in {self.key}.")
        object.__setattr__(self, "num_oov_buckets", int(n))
        if n and default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {self.key}.")
        if default_value is not None and (
            isinstance(default_value, bool) or not isinstance(default_value, (int, np.integer))
        ):
            raise ValueError(
                f"default_value must be an integer id (or -1) in {self.key}, got {default_value!r}"
            )

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> SparseIds:
        """Returns each value's index in the vocabulary; OOV values get TF's OOV id."""
        memoized = _memoized_ids(self, transformation_cache)
        if memoized is not None:
            return memoized
        raw = _read_raw(self, transformation_cache)
        return _sparse_from_raw(raw, self._ids_of(raw.values))

    def _ids_of(self, values: Any) -> np.ndarray:
        default = -1 if self.default_value is None else int(self.default_value)
        return vocabulary_ids(values, self._vocab_array, self.num_oov_buckets, default)

    @functools.cached_property
    def _ids_memo(self) -> _string_memo.StringMemo:
        return _string_memo.StringMemo(self._ids_of)


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class VocabularyListCategoricalColumn(_VocabularyBase):
    """Values mapped to their index in an in-memory vocabulary (TF's VocabularyListCategoricalColumn)."""

    key: str
    vocabulary_list: tuple
    dtype: Any = dataclasses.field(default=None, metadata={"kind": serialization.DTYPE})
    default_value: int = -1
    num_oov_buckets: int = 0

    def __post_init__(self) -> None:
        check_key(self.key)
        vocab = self.vocabulary_list
        if isinstance(vocab, (str, bytes)) or vocab is None or len(vocab) < 1:
            raise ValueError(f"vocabulary_list {vocab!r} must be non-empty, column_name: {self.key}")
        vocab = tuple(v.item() if isinstance(v, np.generic) else v for v in vocab)
        vocab = tuple(v.decode("utf-8") if isinstance(v, bytes) else v for v in vocab)
        if len(set(vocab)) != len(vocab):
            seen: set = set()
            dup = next(v for v in vocab if v in seen or seen.add(v))
            raise ValueError(
                f"Duplicate keys in vocabulary_list {list(vocab)}, column_name: {self.key} "
                f"(duplicate: {dup!r})"
            )
        if all(isinstance(v, str) for v in vocab):
            vocab_dtype = _dtypes.string
        elif all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vocab):
            vocab_dtype = torch.int64
        else:
            raise ValueError(
                f"column_name: {self.key} vocabulary dtype must be string or integer; "
                f"vocabulary_list {list(vocab)} mixes types or holds other values"
            )
        dtype = vocab_dtype if self.dtype is None else _string_or_int_dtype(self.dtype, self.key)
        if (dtype is _dtypes.string) != (vocab_dtype is _dtypes.string):
            raise ValueError(
                f"dtype {_dtypes.dtype_name(dtype)} and vocabulary dtype "
                f"{_dtypes.dtype_name(vocab_dtype)} do not match, column_name: {self.key}"
            )
        object.__setattr__(self, "vocabulary_list", vocab)
        object.__setattr__(self, "dtype", dtype)
        self._check_oov(None if self.default_value == -1 else self.default_value)
        object.__setattr__(self, "default_value", int(self.default_value))

    @property
    def _vocab_size(self) -> int:
        return len(self.vocabulary_list)

    @functools.cached_property
    def _vocab_array(self) -> pa.Array:
        if self.dtype is _dtypes.string:
            return pa.array(self.vocabulary_list, type=pa.large_string())
        return pa.array(self.vocabulary_list, type=pa.int64())


def categorical_column_with_vocabulary_list(
    key: str,
    vocabulary_list: Any,
    dtype: Any = None,
    default_value: int = -1,
    num_oov_buckets: int = 0,
) -> VocabularyListCategoricalColumn:
    """A `CategoricalColumn` with in-memory vocabulary: id = index in `vocabulary_list`.

    Out-of-vocabulary values get `default_value` (-1: the value contributes
    nothing), or, with `num_oov_buckets` > 0, the id
    `len(vocabulary_list) + Fingerprint64(value) % num_oov_buckets`.
    `dtype` is inferred from the vocabulary (string or int64) when None.

    Returns:
        A `VocabularyListCategoricalColumn`. Raises ValueError for an empty or
        duplicated vocabulary, both `default_value` and `num_oov_buckets`, or
        a dtype that does not match the vocabulary.
    """
    if isinstance(vocabulary_list, np.ndarray):
        vocabulary_list = vocabulary_list.tolist()
    if vocabulary_list is not None and not isinstance(vocabulary_list, (str, bytes)):
        vocabulary_list = tuple(vocabulary_list)
    return VocabularyListCategoricalColumn(key, vocabulary_list, dtype, default_value, num_oov_buckets)


def _read_tfrecord_gzip(path: str) -> list[bytes]:
    """Reads the records of a GZIP TFRecord vocabulary file with the package's TFRecord reader
    (CRCs checked; a length field is never trusted beyond the bytes the stream holds)."""

    return [record for block in read_records(path, "GZIP") for record in block]


def _load_vocabulary_file(path: str, file_format: str | None, column: str) -> list[str]:
    if not os.path.exists(path):
        raise ValueError(
            f"vocabulary_file {path!r} of column {column!r} does not exist. Check the path (it is "
            "read when the column is created or first used)."
        )
    if file_format == "tfrecord_gzip":
        return [r.decode("utf-8") for r in _read_tfrecord_gzip(path)]
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line.rstrip(b"\r").decode("utf-8") for line in lines]


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class VocabularyFileCategoricalColumn(_VocabularyBase):
    """Values mapped to their line number in a vocabulary file (TF's VocabularyFileCategoricalColumn)."""

    key: str
    vocabulary_file: str
    vocabulary_size: int | None = None
    num_oov_buckets: int = 0
    dtype: Any = dataclasses.field(default=_dtypes.string, metadata={"kind": serialization.DTYPE})
    default_value: int | None = None
    file_format: str | None = None

    def __post_init__(self) -> None:
        check_key(self.key)
        if not self.vocabulary_file or not isinstance(self.vocabulary_file, (str, os.PathLike)):
            raise ValueError(f"Missing vocabulary_file in {self.key}.")
        path = os.fspath(self.vocabulary_file)
        object.__setattr__(self, "vocabulary_file", path)
        fmt = self.file_format
        if fmt is None and path.endswith("tfrecord.gz"):
            fmt = "tfrecord_gzip"
        if fmt not in (None, "text", "tfrecord_gzip"):
            raise ValueError(
                f"file_format must be None, 'text' or 'tfrecord_gzip' in {self.key}, got {fmt!r}"
            )
        object.__setattr__(self, "file_format", fmt)
        size = self.vocabulary_size
        if size is None:
            size = len(_load_vocabulary_file(path, fmt, self.key))
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError(f"Invalid vocabulary_size in {self.key}: {size!r}")
        object.__setattr__(self, "vocabulary_size", int(size))
        object.__setattr__(self, "dtype", _string_or_int_dtype(self.dtype, self.key))
        self._check_oov(self.default_value)

    @property
    def _vocab_size(self) -> int:
        return self.vocabulary_size

    @functools.cached_property
    def _vocab_array(self) -> pa.Array:
        lines = _load_vocabulary_file(self.vocabulary_file, self.file_format, self.key)
        if len(lines) < self.vocabulary_size:
            raise ValueError(
                f"Invalid vocab_size for column {self.key!r}: vocabulary_size {self.vocabulary_size} "
                f"is larger than the {len(lines)} entries of {self.vocabulary_file!r}"
            )
        lines = lines[: self.vocabulary_size]
        if len(set(lines)) != len(lines):
            seen: set = set()
            dup = next(v for v in lines if v in seen or seen.add(v))
            raise ValueError(
                f"Duplicate key {dup!r} in vocabulary_file {self.vocabulary_file!r} of column "
                f"{self.key!r}; every line must be distinct."
            )
        if self.dtype is _dtypes.string:
            return pa.array(lines, type=pa.large_string())
        try:
            return pa.array([int(v) for v in lines], type=pa.int64())
        except ValueError:
            raise ValueError(
                f"vocabulary_file {self.vocabulary_file!r} of integer column {self.key!r} has a "
                "line that is not an integer"
            ) from None

    @property
    def vocabulary(self) -> list:
        """The vocabulary (the file's first `vocabulary_size` entries), read from the file once."""
        return self._vocab_array.to_pylist()


def categorical_column_with_vocabulary_file(
    key: str,
    vocabulary_file: str,
    vocabulary_size: int | None = None,
    dtype: Any = _dtypes.string,
    default_value: int | None = None,
    num_oov_buckets: int = 0,
    file_format: str | None = None,
) -> VocabularyFileCategoricalColumn:
    """A `CategoricalColumn` with a vocabulary file: id = the value's line number (from 0).

    `vocabulary_size` defaults to the number of lines (the file must then
    exist); with a smaller size only the first lines are used. OOV values get
    `default_value` (None: -1, contributing nothing) or, with
    `num_oov_buckets` > 0, `vocabulary_size + Fingerprint64(value) % num_oov_buckets`.
    `file_format` is 'text' (one entry per line) or 'tfrecord_gzip' (chosen
    when the name ends in 'tfrecord.gz').

    Returns:
        A `VocabularyFileCategoricalColumn`. Raises ValueError naming the path
        when the file does not exist.
    """
    return VocabularyFileCategoricalColumn(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, dtype, default_value, file_format
    )
