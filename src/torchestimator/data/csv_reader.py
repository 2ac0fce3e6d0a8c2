"""Reading CSV files with PyArrow, a chunk of whole rows at a time.

`read_csv_file` reads a file `buffer_size` bytes at a time (1 MiB by
default), cut after the last whole row (`csv_chunks`: a line break inside a
quoted field does not end a row), parses each chunk with PyArrow's CSV parser
on the calling thread and yields it as one column `Block`. Memory stays a few
chunks deep however large the file, and the first batch is ready after one
chunk. Numbers become torch tensors over PyArrow's buffers (no copy); strings
are parsed dictionary-encoded, so each distinct value of a chunk is one Python
str shared by its rows. Nothing here imports pandas (which PyArrow's
`to_numpy` does, ~40 MB) or pyarrow.compute (~9 MB, 0.3 s) on the way.

Missing fields take the column default. When PyArrow rejects a chunk (a row
with the wrong number of fields, an unparsable value, a missing required
value), the rest of that file is read row by row (`csv_rows.py`), which names
the file and line of the bad row, or skips bad rows with `ignore_errors=True`
and reports how many in a warning.

Also here: `tf.data.experimental.CsvDataset`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import torch

from torchestimator._dtypes import TensorSpec, as_dtype
from torchestimator.data.columns import Block
from torchestimator.data.csv_rows import (
    DEFAULT_BUFFER_SIZE,
    REQUIRED,
    CsvFormat,
    CsvLayout,
    parse_default,
    read_header,
    row_blocks,
)
from torchestimator.data.files import (
    FileDataset,
    check_compression,
    open_binary,
    resolve_filenames,
)
from torchestimator.data.validation import as_bool, as_int

_TORCH = {pa.int32(): torch.int32, pa.int64(): torch.int64, pa.float32(): torch.float32,
          pa.float64(): torch.float64}


class _MissingRequired(Exception):
    """A required column had an empty field in a block (located by the row reader)."""


def dtype_of(type_: pa.DataType) -> Any:
    """The torch dtype (or tf.string marker) of a CSV column type."""
    return _TORCH.get(type_) or as_dtype("string")


def arrow_component(array: pa.Array, default: Any) -> Any:
    """One PyArrow column as a component: a torch tensor, or a numpy array of str."""
    if array.null_count:
        if default is REQUIRED:
            raise _MissingRequired
        import pyarrow.compute as pc  # lazy: heavy (~9 MB, ~0.3 s), only for a column with nulls

        array = pc.fill_null(array, pa.scalar(default, array.type))
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        return array.to_numpy(zero_copy_only=False)
    return torch.from_numpy(np.array(array.to_numpy(zero_copy_only=False)))


_NUMPY = {pa.int32(): np.int32, pa.int64(): np.int64, pa.float32(): np.float32,
          pa.float64(): np.float64}


def _valid_mask(array: pa.Array) -> np.ndarray:
    """The validity bitmap of an array with nulls, as a bool array."""
    bits = np.frombuffer(array.buffers()[0], np.uint8)
    return np.unpackbits(bits, bitorder="little", count=array.offset + len(array))[
        array.offset:].astype(bool)


def csv_component(array: pa.Array, default: Any) -> Any:
    """One column of a parsed CSV chunk as a component, without copying numbers.

    Numbers become a torch tensor over PyArrow's buffer; dictionary-encoded
    strings a numpy array of str, each distinct value one shared Python object.
    Nulls (empty or `na_value` fields) take `default`; raises `_MissingRequired`
    for a null in a required column.
    """
    n = len(array)
    if array.null_count:
        if default is REQUIRED:
            raise _MissingRequired
        valid = _valid_mask(array)
    else:
        valid = None
    if pa.types.is_dictionary(array.type):
        words = array.dictionary.to_pylist()
        values = np.empty(len(words) + 1, dtype=object)
        values[:-1] = words
        values[-1] = default
        indices = array.indices
        idx = (np.frombuffer(indices.buffers()[1], np.int32, n, indices.offset * 4) if n
               else np.empty(0, np.int32))
        if valid is not None:
            idx = np.where(valid, idx, len(words))
        return values[idx]
    dtype = _NUMPY.get(array.type)
    if dtype is None:  # a type this reader does not produce: the general conversion
        return arrow_component(array, default)
    if not n:
        return torch.from_numpy(np.empty(0, dtype))
    data = np.frombuffer(array.buffers()[1], dtype, n, array.offset * dtype().itemsize)
    if valid is not None:
        data = np.where(valid, data, np.asarray(default, dtype))
    elif not data.flags.writeable:
        data = data.copy()
    return torch.from_numpy(data)


def python_component(values: list, type_: pa.DataType) -> Any:
    """A column of Python values (from the row reader) as a component."""
    if type_ == pa.string():
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return torch.tensor(values, dtype=_TORCH[type_])


def _arrow_options(fmt: CsvFormat, layout: CsvLayout, counts: list[int]):
    """PyArrow's read, parse and convert options for one parse of a chunk of whole lines.

    String columns are read dictionary-encoded: each distinct value of a chunk
    becomes one Python str, shared by the rows that hold it.
    """
    names = [f"c{i}" for i in range(layout.num_columns)]
    read = pacsv.ReadOptions(column_names=names, use_threads=False,
                             block_size=max(fmt.buffer_size, 1 << 16), encoding=fmt.encoding)

    def on_invalid(row: Any) -> str:
        if fmt.ignore_errors:
            counts[0] += 1
            return "skip"
        return "error"

    parse = pacsv.ParseOptions(
        delimiter=fmt.field_delim,
        quote_char='"' if fmt.use_quote_delim else False,
        newlines_in_values=fmt.use_quote_delim,
        invalid_row_handler=on_invalid,
    )
    nulls = [""] + ([fmt.na_value] if fmt.na_value else [])
    convert = pacsv.ConvertOptions(
        column_types={names[c]: _DICT_STRING if t == pa.string() else t
                      for c, t in zip(layout.selected, layout.types)},
        include_columns=[names[c] for c in layout.selected],
        null_values=nulls, strings_can_be_null=True, quoted_strings_can_be_null=True,
    )
    return read, parse, convert


_DICT_STRING = pa.dictionary(pa.int32(), pa.string())
_NON_SPACE = re.compile(rb"\S")
_MIN_CHUNK = 1 << 16
"""The smallest chunk parsed at once, whatever `buffer_size` says (one parse per few rows
would be slow)."""
_MAX_QUOTED_CHUNK = 16 << 20
"""A chunk that seems to end inside a quoted field grows to at most this many bytes; then
it is cut at its last line break anyway (a quote character inside an unquoted field,
which PyArrow reads as data, makes the count of quotes odd)."""


def _row_end(buffer: bytes, quoted: bool, force: bool) -> int:
    """The index just past the last complete row of `buffer` (0 if there is none).

    With quoting, a newline inside a quoted field does not end a row: a cut
    with an odd number of quote characters before it is inside one, and the
    chunk waits for more data (unless `force`).
    """
    cut = buffer.rfind(b"\n") + 1
    if quoted and not force and cut and b'"' in buffer and buffer.count(b'"', 0, cut) % 2:
        return 0
    return cut


def csv_chunks(path: str, fmt: CsvFormat, size: int | None = None) -> Iterator[memoryview]:
    """The bytes of a CSV file, about `size` (default `fmt.buffer_size`) at a time, cut after
    whole rows.

    The header line (with `fmt.header`) and chunks of only white space are left
    out. A row longer than `size` makes its chunk longer. Each chunk is a fresh
    buffer, so PyArrow may keep referring to it.
    """
    size = size or fmt.buffer_size
    quoted = fmt.use_quote_delim
    skip_header = fmt.header
    carry = b""
    with open_binary(path, fmt.compression_type) as f:
        while True:
            # A carry without a line break is part of one long row: read as much again.
            long_row = len(carry) > size and b"\n" not in carry
            data = f.read(len(carry) if long_row else size)
            buffer = carry + data if carry else data
            if not data:
                cut = len(buffer)
            else:
                cut = _row_end(buffer, quoted, len(buffer) >= _MAX_QUOTED_CHUNK)
                if not cut:
                    carry = buffer
                    continue
            view = memoryview(buffer)
            chunk, carry = view[:cut], bytes(view[cut:])
            if skip_header:
                newline = buffer.find(b"\n", 0, cut)
                chunk = chunk[newline + 1:] if newline >= 0 else chunk[:0]
                skip_header = False
            if _NON_SPACE.search(chunk):
                yield chunk
            if not data:
                return


def _parsed_batches(path: str, fmt: CsvFormat, layout: CsvLayout,
                    counts: list[int]) -> Iterator[pa.RecordBatch]:
    """The file's record batches, one parse per chunk of whole rows (`csv_chunks`).

    Each chunk is parsed on the calling thread (the pipeline reads ahead on its
    own thread), so memory stays a few chunks deep. A chunk that fails to parse
    raises, and the caller re-reads the file row by row.
    """
    read, parse, convert = _arrow_options(fmt, layout, counts)
    for chunk in csv_chunks(path, fmt, max(fmt.buffer_size, _MIN_CHUNK)):
        if len(chunk) >= read.block_size:
            read.block_size = len(chunk) + 1
        table = pacsv.read_csv(pa.BufferReader(chunk), read_options=read,
                               parse_options=parse, convert_options=convert)
        yield from table.to_batches()


def read_csv_file(path: str, fmt: CsvFormat, layout: CsvLayout) -> Iterator[Block]:
    """Blocks of the selected columns of one CSV file, in the layout's flat order."""
    counts = [0]
    emitted = 0
    order = layout.order
    try:
        for rb in _parsed_batches(path, fmt, layout, counts):
            cols = [csv_component(rb.column(j), layout.defaults[j]) for j in order]
            emitted += rb.num_rows
            yield Block(cols, rb.num_rows)
        failure = None
    except (pa.ArrowInvalid, _MissingRequired) as e:
        if "Empty CSV file" in str(e):
            return
        failure = e
    if failure is not None:
        # Row-by-row for the rest of the file: locates (or skips) the bad rows.
        counts[0] = 0  # the row reader counts every bad row of the file again
        for values in row_blocks(path, fmt, layout, emitted, counts):
            cols = [python_component(values[j], layout.types[j]) for j in order]
            yield Block(cols, len(values[0]))
    if counts[0]:
        warnings.warn(
            f"Skipped {counts[0]} invalid row(s) of {path} (ignore_errors=True)",
            stacklevel=2,
        )


def column_count(files: list[str], fmt: CsvFormat) -> int | None:
    """The number of fields in the first row of the first non-empty file."""
    header_fmt = CsvFormat(**{**fmt.__dict__, "header": False})
    for path in files:
        row = read_header(path, header_fmt)
        if row is not None:
            return len(row)
    return None


class CsvDataset(FileDataset):
    """The records of CSV files, one element per row (TF's `tf.data.experimental.CsvDataset`).

    Each element is a tuple of scalars, one per selected column, typed by
    `record_defaults`: a dtype (or empty tensor) for a required column, or a default
    value for an optional one.
    """

    def __init__(self, filenames: Any, record_defaults: list, compression_type: str | None = None,
                 buffer_size: int | None = None, header: bool = False, field_delim: str = ",",
                 use_quote_delim: bool = True, na_value: str = "",
                 select_cols: list[int] | None = None, exclude_cols: list[int] | None = None,
                 name: str | None = None):
        if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
            raise ValueError(
                f"`record_defaults` must be a non-empty list; received {record_defaults!r}"
            )
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: pass at most one of `select_cols` and `exclude_cols`")
        fmt = CsvFormat(
            field_delim=check_delim(field_delim),
            use_quote_delim=as_bool("use_quote_delim", use_quote_delim),
            na_value=check_str("na_value", na_value),
            header=as_bool("header", header),
            compression_type=check_compression(compression_type),
            buffer_size=(DEFAULT_BUFFER_SIZE if buffer_size is None
                         else as_int("buffer_size", buffer_size, 1)),
        )
        files = resolve_filenames(filenames)
        plain = files.files
        parsed = [parse_default(d, f"record_defaults[{i}]") for i, d in enumerate(record_defaults)]
        if select_cols is None and exclude_cols is None:
            num_columns = len(record_defaults)
            selected = list(range(num_columns))
        else:
            num_columns = column_count(plain, fmt)
            if num_columns is None:
                num_columns = len(record_defaults)
            selected = _selected_columns(select_cols, exclude_cols, num_columns)
            if len(selected) != len(record_defaults):
                raise ValueError(
                    f"CsvDataset: `record_defaults` has {len(record_defaults)} entries but "
                    f"{len(selected)} columns are selected ({selected}); give one per column"
                )
        layout = CsvLayout(
            num_columns=num_columns, names=[], selected=selected,
            types=[t for t, _ in parsed], defaults=[d for _, d in parsed],
            order=list(range(len(selected))),
        )
        spec = tuple(TensorSpec((), dtype_of(t)) for t in layout.types)

        def read(path: str) -> Iterator[Block]:
            return read_csv_file(path, fmt, layout)

        super().__init__(files, read, spec)


def _selected_columns(select_cols: Any, exclude_cols: Any, num_columns: int) -> list[int]:
    if select_cols is not None:
        cols = [as_int("select_cols", c, 0) for c in select_cols]
        if cols != sorted(set(cols)):
            raise ValueError(f"`select_cols` must be sorted and without duplicates; "
                             f"received {list(select_cols)}")
        bad = [c for c in cols if c >= num_columns]
        if bad:
            raise ValueError(f"`select_cols` {bad} out of range: the files have "
                             f"{num_columns} columns")
        return cols
    excluded = {as_int("exclude_cols", c, 0) for c in exclude_cols}
    return [c for c in range(num_columns) if c not in excluded]


def check_delim(field_delim: Any) -> str:
    """A one-character field delimiter; error otherwise."""
    if not isinstance(field_delim, str) or len(field_delim) != 1:
        raise ValueError(f"`field_delim` must be a single character; received {field_delim!r}")
    return field_delim


def check_str(name: str, value: Any) -> str:
    """A str argument; TypeError naming `name` otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a str; received {value!r}")
    return value
