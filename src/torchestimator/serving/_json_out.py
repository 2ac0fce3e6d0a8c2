"""Output tensors to the JSON text of a `:predict` answer, without a Python object per value.

`outputs_to_row_json` / `outputs_to_columnar_json` (in `_json_tensor`) build
nested Python lists that `json.dumps` then writes: about 10 s and 1.5 GB for
the answer to a 10^6-row request. The functions here write the same bytes
(exactly what `json.dumps(..., ensure_ascii=False, allow_nan=True)` writes for
those lists: `", "` separators, float32 values with the 6 or 9 digits TF
Serving prints, `NaN`/`Infinity`) from whole arrays:

- numbers are written by orjson from the numpy array (C speed); orjson and
  Python print a float64 alike in [1e-4, 1e16), so only values outside that
  range (and NaN/inf) are reprinted, with numpy's repr-exact formatting;
- strings are encoded once per distinct value, then indexed;
- the row format (several outputs) is assembled a chunk of rows at a time.

Before writing, the answer's size is bounded from below by its number of values
(each takes at least 3 bytes with its separator): an answer that must exceed
`max_bytes` is refused (413) before any formatting; the written answer is
checked again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from torchestimator.serving._errors import RequestError
from torchestimator.serving._json_tensor import (
    _short,
    _string_leaf,
    float32_for_json,
    output_to_json,
    row_batch_size,
    to_numpy,
)

try:  # the `serving` extra installs orjson; without it the answers are built as before
    import orjson

    _ORJSON_NUMPY = orjson.OPT_SERIALIZE_NUMPY
except ImportError:  # pragma: no cover - exercised only without the serving extra
    orjson = None  # type: ignore[assignment]
    _ORJSON_NUMPY = 0

_SMALL = 64  # arrays this small are written the plain way (json.dumps of lists)
_ROW_CHUNK = 65536  # rows assembled at a time in the row format (bounds temporary memory)
_FAST_LOW, _FAST_HIGH = 1e-4, 1e16  # orjson prints float64 as repr() does in this range
_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _dumps(value: Any) -> bytes:
    """`value` as the server has always written it (json.dumps, UTF-8)."""
    return json.dumps(value, allow_nan=True, ensure_ascii=False).encode("utf-8", "replace")


def too_large(size: int, limit: int, exact: bool) -> RequestError:
    """The 413 for an answer of `size` bytes (or at least that many) over `limit`."""
    what = f"{size} bytes" if exact else f"at least {size} bytes"
    return RequestError(
        f"Response too large: the answer would be {what}, over the server's limit of {limit} "
        "bytes (--max_response_bytes); send fewer instances per request, or raise the limit",
        413)


def check_value_count(arrays: Mapping[str, np.ndarray], limit: int | None) -> None:
    """413 before formatting when the values of `arrays` cannot fit in `limit` bytes."""
    if limit is None:
        return
    values = sum(int(a.size) for a in arrays.values())
    if values * 3 - 2 > limit:
        raise too_large(values * 3 - 2, limit, exact=False)


def _check_size(text: bytes, limit: int | None) -> bytes:
    if limit is not None and len(text) > limit:
        raise too_large(len(text), limit, exact=True)
    return text


def _fast(array: np.ndarray) -> bool:
    """True for arrays this module writes (numbers and strings, big enough to matter)."""
    return (orjson is not None and array.size > _SMALL and array.ndim > 0
            and array.dtype.kind in "fiubOSU"
            and not (array.dtype.kind == "f" and array.dtype.itemsize > 8))


def _json_floats(array: np.ndarray) -> np.ndarray:
    """The float64 values whose repr() is the text the server writes for `array`."""
    if array.dtype.itemsize <= 4:
        return float32_for_json(array.astype(np.float32, copy=False))
    return array.astype(np.float64, copy=False)


def _float_specials(values: np.ndarray) -> np.ndarray:
    """Flat indices of float64 `values` that orjson does not print as repr() does."""
    magnitude = np.abs(values.ravel())
    with np.errstate(invalid="ignore"):
        ok = ((magnitude >= _FAST_LOW) & (magnitude < _FAST_HIGH)) | (magnitude == 0)
    return np.flatnonzero(~ok)


def _repr_text(values: np.ndarray) -> list[str]:
    """repr()-exact text of float64 `values` (numpy's shortest formatting; NaN/Infinity)."""
    texts = values.astype(np.dtypes.StringDType()).tolist()
    return [_NON_FINITE.get(t, t) for t in texts]


def _number_tokens(name: str, array: np.ndarray) -> np.ndarray:
    """Object array (the shape of `array`) of the JSON bytes of each number, no brackets."""
    values = _json_floats(array) if array.dtype.kind == "f" else array
    flat = np.ascontiguousarray(values).reshape(-1)
    if flat.dtype.kind == "f":
        specials = _float_specials(flat)
        safe = flat.copy() if specials.size else flat
        safe[specials] = 0.0
    else:
        specials, safe = np.empty(0, np.intp), flat
    tokens = np.empty(flat.size, dtype=object)
    tokens[:] = orjson.dumps(safe, option=_ORJSON_NUMPY)[1:-1].split(b",")
    if specials.size:
        tokens[specials] = [t.encode("ascii") for t in _repr_text(flat[specials])]
    return tokens.reshape(array.shape)


def _string_tokens(name: str, array: np.ndarray) -> np.ndarray:
    """Object array (the shape of `array`) of the JSON bytes of each string/bytes value,
    each distinct value encoded once."""
    as_bytes = name.endswith("_bytes")
    flat = array.reshape(-1).tolist()
    try:
        encoded = {v: _dumps(_string_leaf(v, as_bytes)) for v in set(flat)}
        tokens_list = [encoded[v] for v in flat]
    except TypeError:  # unhashable values: one at a time
        tokens_list = [_dumps(_string_leaf(v, as_bytes)) for v in flat]
    tokens = np.empty(len(tokens_list), dtype=object)
    tokens[:] = tokens_list
    return tokens.reshape(array.shape)


def _tokens(name: str, array: np.ndarray) -> np.ndarray:
    if array.dtype.kind in "OSU":
        return _string_tokens(name, array)
    return _number_tokens(name, array)


def _bracket(tokens: np.ndarray, first_axis: int = 0) -> np.ndarray:
    """Adds the `[` / `]` of the nesting from axis `first_axis` on to the first/last tokens
    (in place; `tokens` has no zero-length axis)."""
    ndim = tokens.ndim
    for axis in range(first_axis, ndim):
        lead = (slice(None),) * axis
        opening = lead + (0,) * (ndim - axis)
        closing = lead + (-1,) * (ndim - axis)
        tokens[opening] = b"[" + tokens[opening]
        tokens[closing] = tokens[closing] + b"]"
    return tokens


def tensor_json(name: str, value: Any) -> bytes:
    """The JSON text of one output tensor, as `json.dumps(output_to_json(name, value))`."""
    array = to_numpy(value)
    if not _fast(array):
        return _dumps(output_to_json(name, array))
    if array.dtype.kind in "iub":
        return orjson.dumps(np.ascontiguousarray(array), option=_ORJSON_NUMPY).replace(
            b",", b", ")
    if array.dtype.kind == "f":
        values = np.ascontiguousarray(_json_floats(array))
        if not _float_specials(values).size:
            return orjson.dumps(values, option=_ORJSON_NUMPY).replace(b",", b", ")
    return b", ".join(_bracket(_tokens(name, array)).reshape(-1).tolist())


def columnar_json(outputs: Mapping[str, Any], max_bytes: int | None = None) -> bytes:
    """The bytes of `outputs_to_columnar_json(outputs)` as the server writes them; a 413
    when they would exceed `max_bytes`."""
    arrays = {n: to_numpy(v) for n, v in outputs.items()}
    if not arrays:
        raise RequestError("the signature returned no outputs", 500)
    check_value_count(arrays, max_bytes)
    if len(arrays) == 1:
        (name, array), = arrays.items()
        return _check_size(b'{"outputs": ' + tensor_json(name, array) + b"}", max_bytes)
    parts = [_dumps(n) + b": " + tensor_json(n, a) for n, a in arrays.items()]
    return _check_size(b'{"outputs": {' + b", ".join(parts) + b"}}", max_bytes)


def row_json(outputs: Mapping[str, Any], max_bytes: int | None = None) -> bytes:
    """The bytes of `outputs_to_row_json(outputs)` as the server writes them; a 413 when
    they would exceed `max_bytes` (the same 400s for outputs without a common batch)."""
    arrays = {n: to_numpy(v) for n, v in outputs.items()}
    batch = row_batch_size(arrays)
    check_value_count(arrays, max_bytes)
    if len(arrays) == 1:
        (name, array), = arrays.items()
        return _check_size(b'{"predictions": ' + tensor_json(name, array) + b"}", max_bytes)
    if batch <= _SMALL or not all(_fast(a) and a.size for a in arrays.values()):
        # (outputs_to_row_json's document, from the arrays converted once)
        columns = [_json_values(n, a) for n, a in arrays.items()]
        rows = [dict(zip(arrays, row)) for row in zip(*columns)]
        return _check_size(_dumps({"predictions": rows}), max_bytes)
    chunks = []
    size = 0
    for start in range(0, batch, _ROW_CHUNK):
        chunk = _row_chunk({n: a[start:start + _ROW_CHUNK] for n, a in arrays.items()})
        size += len(chunk) + 2
        if max_bytes is not None and size > max_bytes:
            raise too_large(size, max_bytes, exact=False)
        chunks.append(chunk)
    return _check_size(b'{"predictions": [' + b", ".join(chunks) + b"]}", max_bytes)


def _json_values(name: str, array: np.ndarray) -> Any:
    """`output_to_json(name, array)` for a numpy `array`: the common small numeric outputs
    (a batch of vectors or scalars) formatted without the general path's per-call work."""
    kind = array.dtype.kind
    if kind in "iub":
        return array.tolist()
    if kind == "f" and array.dtype.itemsize <= 4 and 1 <= array.ndim <= 2:
        values = array.astype(np.float32, copy=False).tolist()
        if array.ndim == 1:
            return [_short(v) for v in values]
        return [[_short(v) for v in row] for row in values]
    return output_to_json(name, array)


def _row_chunk(arrays: Mapping[str, np.ndarray]) -> bytes:
    """`{"a": ..., "b": ...}, {...}` for the rows of `arrays` (each with >= 1 value per row)."""
    columns = []
    for index, (name, array) in enumerate(arrays.items()):
        tokens = _bracket(_tokens(name, array), first_axis=1).reshape(len(array), -1)
        key = (b"{" if index == 0 else b"") + _dumps(name) + b": "
        tokens[:, 0] = key + tokens[:, 0]
        columns.append(tokens)
    table = np.concatenate(columns, axis=1)
    table[:, -1] = table[:, -1] + b"}"
    return b", ".join(table.reshape(-1).tolist())
