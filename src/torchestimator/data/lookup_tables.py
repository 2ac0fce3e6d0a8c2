"""Lookup tables built from datasets (`tf.data.experimental.DatasetInitializer`,
`table_from_dataset`, `index_table_from_dataset`) and `SqlDataset` (rows of an SQLite
query)."""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np

from torchestimator import _dtypes, lookup
from torchestimator._dtypes import TensorSpec
from torchestimator.data.dataset import Dataset
from torchestimator.lookup import KeyValueTensorInitializer


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


def table_from_dataset(dataset: Any = None, num_oov_buckets: int = 0, vocab_size: int | None = None,
                       default_value: Any = None, hasher_spec: Any = None, key_dtype: Any = _dtypes.string,
                       name: str | None = None) -> Any:
    """A lookup table from a dataset of keys (each key's value its position), or of `(key,
    value)` pairs: a `StaticVocabularyTable` with `num_oov_buckets`, else a
    `StaticHashTable` with `default_value`."""

    if dataset is None:
        raise ValueError("table_from_dataset: dataset must be given.")
    spec = dataset.element_spec
    if isinstance(spec, tuple):
        keys, values = _pairs(dataset, "table_from_dataset")
    else:
        keys = list(dataset.as_numpy_iterator())
        values = list(range(len(keys)))
    if vocab_size is not None:
        if len(keys) < vocab_size:
            raise ValueError(f"table_from_dataset: vocab_size {vocab_size} is more than the {len(keys)} keys.")
        keys, values = keys[:vocab_size], values[:vocab_size]
    string_keys = _dtypes.as_dtype(key_dtype) is _dtypes.string
    init = lookup.KeyValueTensorInitializer(np.array(keys, dtype=object if string_keys else np.int64),
                                            np.array(values, dtype=np.int64), key_dtype=key_dtype,
                                            value_dtype=_dtypes.int64)
    if num_oov_buckets:
        return lookup.StaticVocabularyTable(init, num_oov_buckets, name=name)
    return lookup.StaticHashTable(init, -1 if default_value is None else default_value, name=name)


def index_table_from_dataset(dataset: Any = None, num_oov_buckets: int = 0, vocab_size: int | None = None,
                             default_value: int = -1, hasher_spec: Any = None, key_dtype: Any = _dtypes.string,
                             name: str | None = None) -> Any:
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
