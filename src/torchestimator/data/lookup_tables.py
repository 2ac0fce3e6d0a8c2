"""Lookup tables built from datasets (`tf.data.experimental.DatasetInitializer`,
`table_from_dataset`, `index_table_from_dataset`) and `SqlDataset` (rows of an SQLite
query)."""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

import numpy as np
import torch

from torchestimator import _dtypes, lookup
from torchestimator._dtypes import TensorSpec
from torchestimator.data.dataset import Dataset
from torchestimator.errors import InvalidArgumentError
from torchestimator.lookup import KeyValueTensorInitializer
from torchestimator.lookup._tables import MutableHashTable as _MutableHashTable


def _pairs(dataset: Any, what: str) -> tuple[list, list]:
    keys, values = [], []
    for element in dataset.as_numpy_iterator():
        if not isinstance(element, tuple) or len(element) != 2:
            raise ValueError(f"{what}: the dataset must yield (key, value) pairs; it yields {type(element).__name__}.")
        keys.append(element[0])
        values.append(element[1])
    return keys, values


def _key_value_initializer() -> type:
    return KeyValueTensorInitializer


class DatasetInitializer(_key_value_initializer()):  # type: ignore[misc]
    """A table initializer from a dataset of `(key, value)` pairs (for `tf.lookup.StaticHashTable`)."""

    def __init__(self, dataset: Any):
        spec = dataset.element_spec
        if not isinstance(spec, tuple) or len(spec) != 2:
            raise ValueError(f"DatasetInitializer: the dataset must yield (key, value) pairs; its element_spec is {spec!r}.")
        keys, values = _pairs(dataset, "DatasetInitializer")
        string_keys = spec[0].dtype is _dtypes.string
        super().__init__(np.array(keys, dtype=object if string_keys else None), np.array(values),
                         key_dtype=spec[0].dtype, value_dtype=spec[1].dtype)
        self.dataset = dataset

    def initialize(self, table: Any) -> None:
        """Initializes `table` from the dataset, as TF's: raises TypeError when the table's key
        or value dtype is not the dataset's. A static table (`StaticHashTable`,
        `StaticVocabularyTable`) is initialized when it is made, and TF's initialization of an
        initialized table does nothing: so here. A `MutableHashTable` or `DenseHashTable` is
        not initializable (InvalidArgumentError, as TF's). Returns None (TF's eager result)."""
        _check_table_dtypes(table, self.key_dtype, self.value_dtype)
        if isinstance(table, _MutableHashTable):
            raise InvalidArgumentError(None, None, f"Table {table.name} is not initializable")


def _check_table_dtypes(table: Any, key_dtype: Any, value_dtype: Any) -> None:
    """TF's `lookup_ops.check_table_dtypes`: TypeError unless `table` has these dtypes."""
    for what, expected, given in (("key", table.key_dtype, key_dtype), ("value", table.value_dtype, value_dtype)):
        if given != expected:
            raise TypeError(f"Invalid {what} dtype for table, expected <dtype: '{_dtypes.dtype_name(expected)}'> "
                            f"but got <dtype: '{_dtypes.dtype_name(given)}'>.")


class _HasherSpec(NamedTuple):
    """TF's `HasherSpec`: the hash function of out-of-vocabulary buckets, and its key."""

    hasher: str
    key: Any


_FAST_HASH_SPEC = _HasherSpec("fasthash", None)  # TF's `lookup_ops.FastHashSpec`


def _check_hasher_spec(hasher_spec: Any, fn: str) -> None:
    """Only TF's default, fasthash (Fingerprint64, what our tables use), is supported."""
    if hasher_spec is None:
        return
    if not isinstance(hasher_spec, tuple) or len(hasher_spec) != 2:
        raise TypeError(f"{fn}: `hasher_spec` must be a HasherSpec (hasher, key); received {hasher_spec!r}.")
    if tuple(hasher_spec) != tuple(_FAST_HASH_SPEC):
        raise NotImplementedError(
            f"{fn}: only hasher_spec=HasherSpec('fasthash', None) (TF's default) is supported; received "
            f"{tuple(hasher_spec)!r}.")


def table_from_dataset(dataset: Any = None, num_oov_buckets: int = 0, vocab_size: int | None = None,
                       default_value: Any = None, hasher_spec: Any = _FAST_HASH_SPEC,
                       key_dtype: Any = _dtypes.string, name: str | None = None) -> Any:
    """A lookup table from a dataset of `(key, value)` pairs (or of keys: each key's value its
    position): a `StaticVocabularyTable` with `num_oov_buckets` (their ids from the key's
    fasthash, TF's default `hasher_spec`), else a `StaticHashTable` with `default_value` (-1
    when None, for numeric values)."""

    if dataset is None:
        raise ValueError("table_from_dataset: dataset must be given.")
    _check_hasher_spec(hasher_spec, "table_from_dataset")
    if num_oov_buckets < 0:
        raise ValueError(f"`num_oov_buckets` must be greater than or equal to 0, got {num_oov_buckets}.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    spec = dataset.element_spec
    value_dtype = _dtypes.int64
    if isinstance(spec, tuple):
        keys, values = _pairs(dataset, "table_from_dataset")
        value_dtype = spec[1].dtype
        numeric = value_dtype is not _dtypes.string and value_dtype != torch.bool
        if default_value is None and not numeric:
            raise ValueError("`default_value` must be specified when creating a table from a dataset that "
                             f"produces values of type {_dtypes.dtype_name(value_dtype)}.")
        if num_oov_buckets and numeric and not value_dtype.is_floating_point:
            value_dtype = _dtypes.int64  # vocabulary ids
    else:
        keys = list(dataset.as_numpy_iterator())
        values = list(range(len(keys)))
    if vocab_size is not None:
        if len(keys) < vocab_size:
            raise ValueError(f"table_from_dataset: vocab_size {vocab_size} is more than the {len(keys)} keys.")
        keys, values = keys[:vocab_size], values[:vocab_size]
    string_keys = _dtypes.as_dtype(key_dtype) is _dtypes.string
    string_values = value_dtype is _dtypes.string
    init = lookup.KeyValueTensorInitializer(np.array(keys, dtype=object if string_keys else np.int64),
                                            np.array(values, dtype=object if string_values else None),
                                            key_dtype=key_dtype, value_dtype=value_dtype)
    if num_oov_buckets:
        return lookup.StaticVocabularyTable(init, num_oov_buckets, name=name)
    return lookup.StaticHashTable(init, -1 if default_value is None else default_value, name=name)


def index_table_from_dataset(dataset: Any = None, num_oov_buckets: int = 0, vocab_size: int | None = None,
                             default_value: int = -1, hasher_spec: Any = _FAST_HASH_SPEC,
                             key_dtype: Any = _dtypes.string, name: str | None = None) -> Any:
    """A table from each key of a dataset of keys to its position (`table_from_dataset` with
    `default_value` -1)."""
    return table_from_dataset(dataset, num_oov_buckets, vocab_size, default_value, hasher_spec, key_dtype, name)


def SqlDataset(driver_name: str, data_source_name: str, query: str, output_types: Any) -> Any:  # noqa: N802
    """A dataset of the rows `query` returns from the SQLite database `data_source_name`, one
    tuple of `output_types` per row (TF's `SqlDataset`; `driver_name` must be 'sqlite')."""


    if driver_name != "sqlite":
        raise ValueError(f"SqlDataset: driver_name must be 'sqlite' (the only driver TF has); received {driver_name!r}.")
    types = tuple(output_types) if isinstance(output_types, (tuple, list)) else (output_types,)
    specs = tuple(TensorSpec((), _dtypes.as_dtype(t)) for t in types)

    def rows() -> Any:
        with sqlite3.connect(f"file:{data_source_name}?mode=ro", uri=True) as connection:
            cursor = connection.execute(query)
            if cursor.description is not None and len(cursor.description) != len(types):
                raise ValueError(f"SqlDataset: the query returns {len(cursor.description)} columns, output_types "
                                 f"has {len(types)}.")
            for row in cursor:
                values = tuple(str(v) if s.dtype is _dtypes.string else v for v, s in zip(row, specs))
                yield values if len(values) > 1 or isinstance(output_types, (tuple, list)) else values[0]

    signature = specs if isinstance(output_types, (tuple, list)) else specs[0]
    return Dataset.from_generator(rows, output_signature=signature)
