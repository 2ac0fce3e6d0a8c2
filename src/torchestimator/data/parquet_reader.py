"""Reading Parquet files with PyArrow, a record batch at a time.

`read_parquet_file` streams `ParquetFile.iter_batches` one row group at a time, so
memory holds about one row group, never the whole file. Columns become components as the CSV
reader makes them (numeric -> torch tensors, strings -> numpy arrays of str);
nulls are filled with 0 / "" / False, the defaults `make_csv_dataset` infers.

A column's dtype is decided once, before reading, from the schemas of all the files
(`unify_column_types`): a column stored as int64 in one file and double in the next is read as
double (float64) from both, so every batch has the element_spec's dtype; types with no common
type (a number in one file, a string in another) are an error naming both files.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import torch

from torchestimator._dtypes import string
from torchestimator._engine import storage
from torchestimator.data.columns import Block
from torchestimator.data.csv_reader import arrow_component
from torchestimator.data.files import arrow_input

_ROWS_PER_READ = 1 << 16
_INTEGERS = {pa.int8(): torch.int8, pa.int16(): torch.int16, pa.int32(): torch.int32,
             pa.int64(): torch.int64, pa.uint8(): torch.uint8, pa.uint16(): torch.int64,
             pa.uint32(): torch.int64, pa.uint64(): torch.int64}
_FLOATS = {pa.float16(): torch.float16, pa.float32(): torch.float32, pa.float64(): torch.float64}


@dataclasses.dataclass
class ParquetLayout:
    """Which columns are read, as what, and in which order they leave the reader."""

    names: list[str]  # selected column names, in file order
    types: list[pa.DataType]  # their Arrow types, unified over the files (what is read)
    order: list[int]  # positions into `names`, in the element's flat order


def column_dtype(name: str, type_: pa.DataType, path: str) -> Any:
    """The torch dtype (or tf.string) a Parquet column is read as; error for other types."""
    if pa.types.is_dictionary(type_):
        type_ = type_.value_type
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return string
    if pa.types.is_boolean(type_):
        return torch.bool
    if type_ in _INTEGERS:
        return _INTEGERS[type_]
    if type_ in _FLOATS:
        return _FLOATS[type_]
    raise TypeError(
        f"Column {name!r} of {path} has Parquet type {type_}, which is not supported "
        "(numbers, bool and strings are); leave it out with `select_columns`"
    )


def read_schema(path: str) -> pa.Schema | None:
    """The Arrow schema of a Parquet file (None for a 0-byte file)."""
    if "://" in path:  # a URL (`s3://...`): through fsspec
        if storage.getsize(path) == 0:
            return None
        with storage.open_read(path) as f:
            try:
                return pq.read_schema(f)
            except pa.ArrowInvalid as e:
                raise ValueError(f"{path} is not a readable Parquet file: {e}") from None
    if os.path.getsize(path) == 0:
        return None
    try:
        return pq.read_schema(path)
    except pa.ArrowInvalid as e:
        raise ValueError(f"{path} is not a readable Parquet file: {e}") from None


def _default(type_: pa.DataType) -> Any:
    if pa.types.is_dictionary(type_):
        type_ = type_.value_type
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return ""
    if pa.types.is_boolean(type_):
        return False
    return 0


def _comparable(type_: pa.DataType) -> pa.DataType:
    """A column type as the reader sees it: dictionaries decoded, unsigned integers as int64,
    large strings as strings."""
    if pa.types.is_dictionary(type_):
        type_ = type_.value_type
    if type_ in (pa.uint16(), pa.uint32(), pa.uint64()):
        return pa.int64()
    if pa.types.is_large_string(type_):
        return pa.string()
    return type_


def _common_type(a: pa.DataType, b: pa.DataType) -> pa.DataType | None:
    """The type both `a` and `b` are read as (numpy's promotion of numbers), None if none."""
    a, b = _comparable(a), _comparable(b)
    if a == b:
        return a
    numbers = (pa.types.is_integer, pa.types.is_floating)
    if any(f(a) for f in numbers) and any(f(b) for f in numbers):
        return pa.from_numpy_dtype(np.result_type(a.to_pandas_dtype(), b.to_pandas_dtype()))
    return None


def unify_column_types(names: list[str], schemas: list[tuple[str, pa.Schema]]) -> list[pa.DataType]:
    """The type each column of `names` is read as from every file of `schemas` ((path, schema)
    pairs): numbers of different types become their common type (int64 and double: double);
    a column whose types have none (e.g. string in one file, int64 in another) is a ValueError
    naming the column, both files and both types."""
    types = []
    for name in names:
        first_path, first_schema = schemas[0]
        type_, source = _comparable(first_schema.field(name).type), first_path
        for path, schema in schemas[1:]:
            other = schema.field(name).type
            common = _common_type(type_, other)
            if common is None:
                raise ValueError(
                    f"Parquet column {name!r} has type {type_} in {source} but {other} in "
                    f"{path}: the files of one dataset must agree on a column's type (numbers of "
                    "different types are read as their common type). Write the files with one "
                    "schema, or leave the column out with `select_columns`."
                )
            if common != type_:
                type_, source = common, path
        types.append(type_)
    return types


def _component(array: pa.Array, type_: pa.DataType) -> Any:
    """A record batch's column as a component of the column's unified type `type_`."""
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if array.type != type_:
        array = pc.cast(array, type_)
    return arrow_component(array, _default(type_))


def read_parquet_file(path: str, layout: ParquetLayout) -> Iterator[Block]:
    """Blocks of the selected columns of one Parquet file, in the layout's flat order."""
    schema = read_schema(path)
    if schema is None:
        return
    missing = [n for n in layout.names if n not in schema.names]
    if missing:
        raise ValueError(
            f"{path} has no column(s) {missing}; its columns are {schema.names}"
        )
    types = layout.types
    with pq.ParquetFile(arrow_input(path, "")) as f:
        # One reader per row group: pyarrow's reader over all the row groups at once keeps
        # memory that grows with the file (its pool's peak reached the file's size: 185 MB
        # for a 3M-row, 180 MB file), while a row group's reader frees it at its end.
        for group in range(f.num_row_groups):
            for rb in f.iter_batches(batch_size=_ROWS_PER_READ, row_groups=[group],
                                     columns=layout.names):
                if not rb.num_rows:
                    continue
                by_name = {n: rb.column(i) for i, n in enumerate(rb.schema.names)}
                cols = [_component(by_name[layout.names[j]], types[j]) for j in layout.order]
                yield Block(cols, rb.num_rows)
