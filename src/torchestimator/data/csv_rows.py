"""Row-level CSV work, in Python: headers, type inference, defaults, bad rows.

The fast reader (`csv_reader.py`) parses whole blocks with PyArrow. This
module does what needs individual rows: reading header lines, inferring
column types from the first rows as TF's `make_csv_dataset` does (int32, then
int64, float32, float64, string), and, when PyArrow rejects a block, finding
the offending file line (or, with `ignore_errors=True`, reading the rest of
that file row by row, skipping bad rows).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from torchestimator._dtypes import as_dtype, string
from torchestimator.data.files import open_binary

DEFAULT_BUFFER_SIZE = 1 << 20
"""Bytes of CSV read and parsed at once (`csv_reader.csv_chunks`). Memory grows with
it; 1 MiB parses as fast as larger chunks (PyArrow's own streaming reader's default)."""

REQUIRED = None
"""The default of a required column: a missing value is an error."""

TYPE_ORDER = (pa.int32(), pa.int64(), pa.float32(), pa.float64(), pa.string())
_BY_DTYPE = {torch.int32: pa.int32(), torch.int64: pa.int64(), torch.float32: pa.float32(),
             torch.float64: pa.float64(), string: pa.string()}
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


class CsvError(ValueError):
    """A CSV row that cannot be read: names the file and the line."""


_FIELD_LIMIT = 2**31 - 1
"""The longest field the row reader accepts: TF's CSV reader (and PyArrow's) has no limit,
Python's `csv` module stops at 131,072 bytes by default."""


def _csv_reader(f: Any, fmt: CsvFormat, strict: bool = False) -> Any:
    """A `csv.reader` of the format's dialect, with the field size limit raised (the module's
    limit is process-wide: it is only ever raised, never lowered)."""
    if csv.field_size_limit() < _FIELD_LIMIT:
        csv.field_size_limit(_FIELD_LIMIT)
    quoting = csv.QUOTE_MINIMAL if fmt.use_quote_delim else csv.QUOTE_NONE
    return csv.reader(f, delimiter=fmt.field_delim, quoting=quoting, strict=strict)


def _unreadable(path: str, line: int, error: csv.Error) -> CsvError:
    return CsvError(f"{path}:{line}: the CSV row cannot be read: {error}. Fix the file (is a "
                    "quote left open?), or check `field_delim` and `use_quote_delim`.")


@dataclasses.dataclass
class CsvFormat:
    """How the CSV files are written (TF's CSV reader arguments)."""

    field_delim: str = ","
    use_quote_delim: bool = True
    na_value: str = ""
    header: bool = True
    compression_type: str = ""
    buffer_size: int = DEFAULT_BUFFER_SIZE
    encoding: str = "utf-8"
    ignore_errors: bool = False


@dataclasses.dataclass
class CsvLayout:
    """Which columns are read, as what, and in which order they leave the reader."""

    num_columns: int  # fields per row in the file
    names: list[str]  # names of all columns (for messages)
    selected: list[int]  # file column indices read, ascending
    types: list[pa.DataType]  # per selected column
    defaults: list[Any]  # per selected column: a value, or REQUIRED
    order: list[int]  # positions into `selected`, in the element's flat order

    def column_label(self, j: int) -> str:
        """'column 3 ("age")' for selected position j."""
        idx = self.selected[j]
        name = self.names[idx] if idx < len(self.names) else None
        return f"column {idx}" + (f" ({name!r})" if name else "")


def _python_encoding(encoding: str) -> str:
    # A UTF-8 byte-order mark is not part of the first field (PyArrow skips it too).
    return "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding


def _not_text(path: str, fmt: CsvFormat, error: UnicodeDecodeError, line: int) -> ValueError:
    return ValueError(
        f"{path}:{line}: the file is not valid {fmt.encoding} text ({error.reason}, byte "
        f"{error.object[error.start:error.start + 1]!r}). Pass the file's encoding as "
        "encoding=..., or fix the file."
    )


def text_rows(path: str, fmt: CsvFormat) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) for each non-blank row of a file, header skipped."""
    raw = open_binary(path, fmt.compression_type)
    with io.TextIOWrapper(raw, encoding=_python_encoding(fmt.encoding), newline="") as f:
        reader = _csv_reader(f, fmt)
        skip_header = fmt.header
        line = 1
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError as error:
                raise _not_text(path, fmt, error, line) from None
            except csv.Error as error:
                raise _unreadable(path, line, error) from None
            start, line = line, reader.line_num + 1
            if not fields or fields == [""]:
                continue
            if skip_header:
                skip_header = False
                continue
            yield start, fields


def read_header(path: str, fmt: CsvFormat) -> list[str] | None:
    """The first row of a file (its column names), or None for an empty file."""
    raw = open_binary(path, fmt.compression_type)
    with io.TextIOWrapper(raw, encoding=_python_encoding(fmt.encoding), newline="") as f:
        try:
            for fields in _csv_reader(f, fmt):
                if fields and fields != [""]:
                    return fields
        except UnicodeDecodeError as error:
            raise _not_text(path, fmt, error, 1) from None
        except csv.Error as error:
            raise _unreadable(path, 1, error) from None
    return None


def _is_missing(text: str, fmt: CsvFormat) -> bool:
    return text == "" or (fmt.na_value != "" and text == fmt.na_value)


def parse_value(text: str, type_: pa.DataType) -> Any:
    """The value of one field as `type_`; ValueError if it is not one."""
    if type_ == pa.string():
        return text
    t = text.strip()
    if pa.types.is_integer(type_):
        v = int(t)
        lo, hi = _INT32 if type_ == pa.int32() else _INT64
        if not lo <= v <= hi:
            raise ValueError(f"{t} is out of range for {type_}")
        return v
    v = float(t)
    if type_ == pa.float32() and math.isfinite(v) and abs(v) > _FLOAT32_MAX:
        raise ValueError(f"{t} is out of range for float32")
    return v


def _valid_for_inference(text: str, type_: pa.DataType) -> bool:
    """TF's `_infer_type` validity test for one value."""
    try:
        v = parse_value(text, type_)
    except (ValueError, OverflowError):
        return False
    if pa.types.is_floating(type_):
        return v < math.inf  # as TF: nan and inf do not count as floats
    return True


def _is_float_text(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def infer_types(files: list[str], fmt: CsvFormat, num_columns: int, selected: list[int],
                num_rows: int | None, names: list[str] | None = None) -> list[pa.DataType]:
    """Column types from the first `num_rows` rows (None: all rows), as TF infers them.

    Each column gets the first of int32, int64, float32, float64, string that every
    non-missing value fits; a column with no values is a string column. As TF's
    `_is_valid_float` (`value < np.inf`), `nan` and `inf` are not floats there: a column of
    numbers holding them is a string column, which a warning names (with the fix,
    `column_defaults`; with a float dtype the values parse as NaN / infinity).
    """
    candidates = [0] * len(selected)  # index into TYPE_ORDER
    seen = [False] * len(selected)
    # per column: the nan/inf value that made it a string column, while all values are numbers
    nonfinite: list[str | None] = [None] * len(selected)
    string_index = len(TYPE_ORDER) - 1
    count = 0
    for path in files:
        for line, fields in text_rows(path, fmt):
            if num_rows is not None and count >= num_rows:
                break
            count += 1
            if len(fields) != num_columns:
                if fmt.ignore_errors:
                    continue
                raise CsvError(
                    f"{path}:{line}: expected {num_columns} fields but found {len(fields)} "
                    "(while inferring column types). Fix the row, or pass ignore_errors=True."
                )
            for j, col in enumerate(selected):
                text = fields[col]
                if _is_missing(text, fmt):
                    continue
                seen[j] = True
                if candidates[j] == string_index:
                    if nonfinite[j] is not None and not _is_float_text(text):
                        nonfinite[j] = ""  # a real string: the column is a string column
                    continue
                while not _valid_for_inference(text, TYPE_ORDER[candidates[j]]):
                    candidates[j] += 1
                if candidates[j] == string_index and _is_float_text(text):
                    nonfinite[j] = text
        if num_rows is not None and count >= num_rows:
            break
    _warn_nonfinite(nonfinite, selected, names)
    return [TYPE_ORDER[c] if s else pa.string() for c, s in zip(candidates, seen)]


def _warn_nonfinite(nonfinite: list[str | None], selected: list[int],
                    names: list[str] | None) -> None:
    """Warns of the numeric columns inferred as strings because of a nan/inf value."""
    for j, text in enumerate(nonfinite):
        if not text:
            continue
        col = selected[j]
        label = repr(names[col]) if names and col < len(names) else f"column {col}"
        warnings.warn(
            f"CSV column {label} holds numbers and {text!r}, so it is inferred as a string "
            "column, as TensorFlow's make_csv_dataset does (nan and inf do not count as "
            "floats when inferring types). To read it as float, pass `column_defaults` with "
            "tf.float32 for it: nan, NaN, inf, -inf and Infinity then parse as float.",
            stacklevel=4,  # make_csv_dataset's caller
        )


def parse_default(item: Any, where: str) -> tuple[pa.DataType, Any]:
    """A `column_defaults` / `record_defaults` entry as (type, default or REQUIRED).

    A dtype, or an empty tensor/array of a dtype, makes the column required; a
    scalar value (or a one-element list/tensor) is its default.
    """
    if isinstance(item, torch.Tensor):
        if item.numel() > 1:
            raise ValueError(f"{where}: a default must be a scalar or empty; received {item!r}")
        type_ = _arrow_type(item.dtype, where)
        return type_, (item.item() if item.numel() else REQUIRED)
    if isinstance(item, np.ndarray) or (isinstance(item, list)):
        arr = np.asarray(item)
        if arr.size > 1:
            raise ValueError(f"{where}: a default must be a scalar or empty; received {item!r}")
        if arr.size == 0:
            if isinstance(item, list):
                raise ValueError(
                    f"{where}: an empty list has no dtype; give the dtype itself "
                    "(e.g. tf.float32) for a required column"
                )
            return _arrow_type(as_dtype(arr.dtype), where), REQUIRED
        item = arr.reshape(()).item() if arr.dtype.kind not in "US" else str(arr.reshape(-1)[0])
    if isinstance(item, bool):
        raise TypeError(f"{where}: bool columns are not supported in CSV; use int32")
    if isinstance(item, str):
        return pa.string(), item
    if isinstance(item, bytes):
        return pa.string(), item.decode("utf-8")
    if isinstance(item, int):
        return pa.int32(), item
    if isinstance(item, float):
        return pa.float32(), item
    if isinstance(item, np.generic):
        return _arrow_type(as_dtype(item.dtype), where), item.item()
    try:
        dtype = as_dtype(item)
    except (ValueError, TypeError):
        raise TypeError(
            f"{where}: expected a dtype (float32, float64, int32, int64, string) or a default "
            f"value; received {item!r}"
        ) from None
    return _arrow_type(dtype, where), REQUIRED


def _arrow_type(dtype: Any, where: str) -> pa.DataType:
    try:
        return _BY_DTYPE[dtype]
    except (KeyError, TypeError):
        raise TypeError(
            f"{where}: CSV columns must be float32, float64, int32, int64 or string; "
            f"received {dtype}"
        ) from None


def row_problem(fields: list[str], layout: CsvLayout, fmt: CsvFormat) -> str | None:
    """Why a row cannot be read (None if it can)."""
    if len(fields) != layout.num_columns:
        return f"expected {layout.num_columns} fields but found {len(fields)}"
    for j, col in enumerate(layout.selected):
        text = fields[col]
        if _is_missing(text, fmt):
            if layout.defaults[j] is REQUIRED:
                return f"{layout.column_label(j)} is required but missing"
            continue
        try:
            parse_value(text, layout.types[j])
        except (ValueError, OverflowError):
            return f"{layout.column_label(j)} has value {text!r}, which is not a valid " \
                   f"{layout.types[j]}"
    return None


def row_blocks(path: str, fmt: CsvFormat, layout: CsvLayout, skip: int, counts: list[int],
               rows_per_block: int = 8192) -> Iterator[list[list]]:
    """Reads a file row by row after its first `skip` good rows: lists of column values.

    A bad row raises CsvError naming the file and line, or with
    `fmt.ignore_errors` is skipped and counted in `counts[0]` (all bad rows of
    the file, including those among the first `skip` good rows).
    """
    good = 0
    pending: list[list] = [[] for _ in layout.selected]
    for line, fields in text_rows(path, fmt):
        problem = row_problem(fields, layout, fmt)
        if problem is not None:
            if fmt.ignore_errors:
                counts[0] += 1
                continue
            if good < skip:  # the fast reader accepted it (e.g. a hex integer)
                continue
            raise CsvError(f"{path}:{line}: {problem}. Fix the row, or pass "
                           "ignore_errors=True to skip bad rows.")
        good += 1
        if good <= skip:
            continue
        for j, col in enumerate(layout.selected):
            text = fields[col]
            pending[j].append(layout.defaults[j] if _is_missing(text, fmt)
                              else parse_value(text, layout.types[j]))
        if len(pending[0]) >= rows_per_block:
            yield pending
            pending = [[] for _ in layout.selected]
    if pending and pending[0]:
        yield pending
