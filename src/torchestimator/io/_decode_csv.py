"""`tf.io.decode_csv`: CSV records (string tensors) into one tensor per column."""

from __future__ import annotations

import csv
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator.errors import InvalidArgumentError

_KINDS = {torch.float32: float, torch.float64: float, torch.int32: int, torch.int64: int}


def _column_kind(default: Any, index: int) -> tuple[Any, Any]:
    """(dtype, default value or None when the column is required) of one `record_defaults` entry."""
    if isinstance(default, torch.Tensor):
        values = default.reshape(-1).tolist()
        dtype = default.dtype
    else:
        if isinstance(default, np.ndarray) and default.size == 0:  # a required column
            return (_dtypes.string if default.dtype.kind in "OUS" else
                    _dtypes.as_dtype(default.dtype)), None
        array = np.asarray(default if isinstance(default, (list, tuple)) else [default], dtype=object)
        values = array.reshape(-1).tolist()
        if array.size == 0:  # [] converts to an empty float32 tensor in TF: a required float
            return torch.float32, None
        first = values[0]
        if isinstance(first, (str, bytes)):
            dtype = _dtypes.string
        elif isinstance(first, bool):
            raise TypeError(f"record_defaults[{index}]: bool columns are not CSV types; use int.")
        elif isinstance(first, int):
            dtype = torch.int32
        elif isinstance(first, float):
            dtype = torch.float32
        else:
            dtype = _dtypes.as_dtype(getattr(default, "dtype", type(first)))
    if dtype is not _dtypes.string and dtype not in _KINDS:
        raise TypeError(
            f"record_defaults[{index}] has dtype {_dtypes.dtype_name(dtype)}; CSV columns are "
            "float32, float64, int32, int64 or string."
        )
    if len(values) > 1:
        raise ValueError(f"record_defaults[{index}] must have at most one element; it has {len(values)}.")
    value = values[0] if values else None
    if isinstance(value, bytes):
        value = value.decode()
    return dtype, value


def _convert(field: str, dtype: Any, column: int, record: int) -> Any:
    if dtype is _dtypes.string:
        return field
    kind = _KINDS[dtype]
    try:
        return kind(field.strip()) if kind is float else int(field.strip())
    except ValueError:
        name = "float" if kind is float else "int" + ("64" if dtype == torch.int64 else "32")
        raise InvalidArgumentError(
            None, None,
            f"Field {column} in record {record} is not a valid {name}: {field}",
        ) from None


def decode_csv(records: Any, record_defaults: Any, field_delim: str = ",",
               use_quote_delim: bool = True, na_value: str = "", select_cols: Any = None,
               name: str | None = None) -> list[Any]:
    """Converts CSV records to tensors; each column maps to one tensor (`tf.io.decode_csv`).

    `records` is a string tensor (any shape) of lines; `record_defaults` gives each column's
    type and its value when the field is empty or equals `na_value` (a one-element list or
    tensor: `[0.0]`, `[0]`, `[""]`), or marks it required (an empty tensor of the dtype).
    `select_cols` (sorted column indices) parses only those columns. Returns a list of
    tensors shaped like `records` (numpy object arrays of str for string columns).
    Raises InvalidArgumentError naming the record and field for a wrong field count, a
    missing required field, or a value of the wrong type.
    """
    if not isinstance(field_delim, str) or len(field_delim) != 1:
        raise ValueError(f"field_delim must be one character; received {field_delim!r}.")
    kinds = [_column_kind(d, i) for i, d in enumerate(record_defaults)]
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])) or (select_cols and select_cols[0] < 0):
            raise ValueError("select_cols is not strictly increasing (or has a negative index).")
        if len(select_cols) != len(kinds):
            raise ValueError(
                f"Length of select_cols ({len(select_cols)}) and record_defaults "
                f"({len(kinds)}) should match."
            )
    array = np.asarray(records.numpy() if isinstance(records, torch.Tensor) else records, dtype=object)
    shape = array.shape
    lines = [v.decode() if isinstance(v, bytes) else str(v) for v in array.reshape(-1).tolist()]
    dialect = {"delimiter": field_delim, "quoting": csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE}
    columns: list[list[Any]] = [[] for _ in kinds]
    for r, line in enumerate(lines):
        fields = next(csv.reader([line], **dialect), [""])
        if select_cols is not None:
            if select_cols and select_cols[-1] >= len(fields):
                raise InvalidArgumentError(
                    None, None, f"Expect {select_cols[-1] + 1} fields but have {len(fields)} in "
                    f"record {r}")
            fields = [fields[c] for c in select_cols]
        elif len(fields) != len(kinds):
            raise InvalidArgumentError(
                None, None, f"Expect {len(kinds)} fields but have {len(fields)} in record {r}")
        for c, (field, (dtype, default)) in enumerate(zip(fields, kinds)):
            if field == "" or field == na_value:
                if default is None:
                    raise InvalidArgumentError(
                        None, None, f"Field {c} is required but missing in record {r}!")
                columns[c].append(default)
            else:
                columns[c].append(_convert(field, dtype, c, r))
    out: list[Any] = []
    for (dtype, _), values in zip(kinds, columns):
        if dtype is _dtypes.string:
            column = np.empty(len(values), dtype=object)
            column[:] = values
            out.append(column.reshape(shape))
        else:
            out.append(torch.tensor(values, dtype=dtype).reshape(shape))
    return out
