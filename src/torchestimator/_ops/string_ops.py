"""tf.strings over numpy object arrays of str.

torch has no string tensor, so (the design's rule) a string "tensor" is a
numpy object array of Python `str`: every op here accepts such an array, a
(nested) list, a `str` or `bytes` scalar (bytes are decoded as UTF-8) and
returns a numpy object array of `str` of TF's output shape (a 0-d array for a
scalar), or a `torch.Tensor` where TF returns numbers (`length`, `to_number`,
`regex_full_match`, the hash buckets).

The work is vectorized with PyArrow compute (C++ kernels over the whole
array); where TF defines its own rules (number parsing, `%`-formatting) the
per-element work runs in numpy's `frompyfunc` loop.

Where TF returns a `RaggedTensor` (`split`, `unicode_split`), the result is
plain Python: a scalar input gives a 1-D object array of tokens, a 1-D input
a list of lists of `str` (one list per string), a higher-rank input an object
array of the input's shape holding lists. Elementwise ops (`to_number`,
`lower`, `strip`, `length`, `regex_replace`, ...) accept such a list of lists
too and return one result per row, so `tf.strings.to_number(
tf.strings.split(lines, ","))` works as it does on TF's ragged tensors.

Regular expressions are RE2's, as in TF (PyArrow's kernels use RE2): `\\1`
back-references in `rewrite`, no look-around, `\\w` is ASCII. Strings are
Python `str` (Unicode); byte-level results that are not valid UTF-8 (a
`substr(..., unit="BYTE")` that cuts a character) come back as `bytes`
elements.
"""

from __future__ import annotations

import builtins
import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import torch

from torchestimator import _dtypes, _hashing
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator._ops.tokens import tokens
from torchestimator.errors import InvalidArgumentError, OutOfRangeError

__all__: list[str] = ["as_string"]  # TF 2.15 also has `tf.as_string` at top level

Tensor = torch.Tensor
_ASCII_WS = " \t\n\v\f\r"
_TOKEN = re.compile(r"[^ \t\n\v\f\r]+")


# ---------------------------------------------------------------------------- conversion
def _decode(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                f"tf.strings: {bytes(value)[:40]!r} is not valid UTF-8; torchestimator's strings "
                "are Python str (text), decode or pass the text."
            ) from None
    return value


_decode_all = np.frompyfunc(_decode, 1, 1)


def _is_ragged(value: Any) -> bool:
    """A list whose items are lists/arrays of different lengths (TF's ragged rows)."""
    if not isinstance(value, list) or not value:
        return False
    if not all(isinstance(v, (list, tuple, np.ndarray)) for v in value):
        return False
    return len({len(v) for v in value}) > 1


def _strings(value: Any, op: str, name: str = "input") -> np.ndarray:
    """`value` as a numpy object array of str (any shape; 0-d for a scalar)."""
    if isinstance(value, np.ndarray):
        array = value
    elif isinstance(value, Tensor):
        raise TypeError(
            f"{op}: `{name}` must be strings, got a {dtype_name(value.dtype)} tensor; use "
            "tf.strings.as_string to format numbers."
        )
    else:
        if isinstance(value, (str, bytes)):
            return np.array(_decode(value), dtype=object)
        array = np.asarray(value, dtype=object)
    kind = array.dtype.kind
    if kind == "U":
        return array.astype(object)
    if kind == "S":
        return _decode_all(array).astype(object) if array.size else array.astype(object)
    if kind == "O":
        if array.size == 0:
            return array
        flat = array.reshape(-1)
        types = {type(v) for v in flat.tolist()}
        if types <= {str}:
            return array
        if types <= {str, bytes, np.str_, np.bytes_, bytearray}:
            return _decode_all(array).astype(object)
        bad = next(v for v in flat.tolist() if not isinstance(v, (str, bytes, bytearray)))
        raise TypeError(
            f"{op}: `{name}` must be strings, got {bad!r} ({type(bad).__name__}); use "
            "tf.strings.as_string to format numbers."
        )
    raise TypeError(
        f"{op}: `{name}` must be strings, got an array of dtype {array.dtype}; use "
        "tf.strings.as_string to format numbers."
    )


def _arrow(array: np.ndarray) -> pa.Array:
    """A flat PyArrow string array of `array`'s values (C order)."""
    strings = pa.array(array.reshape(-1), type=pa.string())  # (large_string converts slowly)
    return strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings


def _back(result: pa.Array | pa.ChunkedArray, shape: tuple) -> np.ndarray:
    """A PyArrow string result as a numpy object array of `shape`."""
    out = result.to_numpy(zero_copy_only=False)
    if out.dtype != object:
        out = out.astype(object)
    return out.reshape(shape)


def _ragged(fn):
    """Lets an elementwise op take a list of rows of different lengths (TF's ragged values):
    the op runs once over all values and the result is split back into rows."""

    def wrapper(input: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_ragged(input):
            rows = [_strings(r, fn.__name__) for r in input]
            if any(r.ndim != 1 for r in rows):
                raise ValueError(
                    f"{fn.__name__}: ragged input must be a list of 1-D rows of strings."
                )
            lengths = [len(r) for r in rows]
            flat = np.concatenate(rows) if rows else np.zeros(0, object)
            out = fn(flat.astype(object), *args, **kwargs)
            bounds = np.cumsum([0] + lengths)
            return [out[bounds[i]:bounds[i + 1]] for i in range(len(rows))]
        return fn(input, *args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


def _unit(unit: str, op: str) -> str:
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'unit' of \"{unit}\" is not in the list of allowed "
            "values: \"BYTE\", \"UTF8_CHAR\""
        )
    return unit


def _tensor(array: np.ndarray, dtype: torch.dtype) -> Tensor:
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
    array = np.require(array, requirements=["C", "W"])
    return torch.from_numpy(array).to(dtype)


# ---------------------------------------------------------------------------- case and space
@_ragged
def lower(input: Any, encoding: str = "", name: str | None = None) -> np.ndarray:
    """Converts all uppercase characters into their lowercase replacements (TF's
    `tf.strings.lower`): ASCII letters only by default, all of Unicode with
    `encoding="utf-8"`.

    Returns:
        A string array of the input's shape.
    """
    array = _strings(input, "lower")
    if encoding == "":
        return _back(pc.ascii_lower(_arrow(array)), array.shape)
    _check_encoding(encoding, "lower")
    return np.frompyfunc(str.lower, 1, 1)(array).astype(object).reshape(array.shape)


@_ragged
def upper(input: Any, encoding: str = "", name: str | None = None) -> np.ndarray:
    """Converts all lowercase characters into their uppercase replacements (TF's
    `tf.strings.upper`): ASCII letters only by default, all of Unicode with
    `encoding="utf-8"` ('ß' becomes 'SS').

    Returns:
        A string array of the input's shape.
    """
    array = _strings(input, "upper")
    if encoding == "":
        return _back(pc.ascii_upper(_arrow(array)), array.shape)
    _check_encoding(encoding, "upper")
    return np.frompyfunc(str.upper, 1, 1)(array).astype(object).reshape(array.shape)


def _check_encoding(encoding: str, op: str) -> None:
    if encoding.lower().replace("-", "").replace("_", "") != "utf8":
        raise InvalidArgumentError(
            None, None, f"{op}: encoding must be '' (ASCII) or 'utf-8', got {encoding!r}."
        )


@_ragged
def strip(input: Any, name: str | None = None) -> np.ndarray:
    """Strips leading and trailing ASCII whitespace (TF's `tf.strings.strip`).

    Returns:
        A string array of the input's shape.
    """
    array = _strings(input, "strip")
    return _back(pc.utf8_trim(_arrow(array), characters=_ASCII_WS), array.shape)


@_ragged
def length(input: Any, unit: str = "BYTE", name: str | None = None) -> Tensor:
    """String lengths of `input` (TF's `tf.strings.length`): in UTF-8 bytes by default
    (`unit="BYTE"`; 'héllo' has 6), in Unicode characters with `unit="UTF8_CHAR"`.

    Returns:
        An int32 tensor of the input's shape.
    """
    array = _strings(input, "length")
    strings = _arrow(array)
    lengths = pc.binary_length(strings) if _unit(unit, "length") == "BYTE" \
        else pc.utf8_length(strings)
    return _tensor(lengths.to_numpy(zero_copy_only=False).reshape(array.shape), torch.int32)


# ---------------------------------------------------------------------------- joins and splits
def join(inputs: Any, separator: str = "", name: str | None = None) -> np.ndarray:
    """Performs element-wise concatenation of a list of string tensors, separated by
    `separator` (TF's `tf.strings.join`). Scalars broadcast; the other inputs must share one
    shape.

    Returns:
        A string array (a 0-d array when every input is a scalar).
    """
    if isinstance(inputs, (str, bytes, np.ndarray)):
        inputs = [inputs]
    arrays = [_strings(v, "join", f"inputs[{i}]") for i, v in enumerate(inputs)]
    if not arrays:
        return np.array("", dtype=object)
    shape: tuple | None = None
    for array in arrays:
        if array.ndim:
            if shape is not None and array.shape != shape:
                raise InvalidArgumentError(
                    None, None, f"join: Input shapes do not match: {list(shape)} vs. "
                    f"{list(array.shape)}"
                )
            shape = array.shape
    shape = shape or ()
    columns = [_arrow(np.ascontiguousarray(np.broadcast_to(a, shape))) for a in arrays]
    return _back(pc.binary_join_element_wise(*columns, _sep_scalar(separator)), shape)


def _sep(separator: Any) -> str:
    if isinstance(separator, np.ndarray):
        separator = separator.item()
    return _decode(separator)


def _sep_scalar(separator: Any) -> pa.Scalar:
    return pa.scalar(_sep(separator), type=pa.string())


def reduce_join(inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "",
                name: str | None = None) -> np.ndarray:
    """Joins all strings into a single string, or joins along an axis (TF's
    `tf.strings.reduce_join`). With several axes, the first listed varies fastest, as TF.

    Returns:
        A string array with the reduced dimensions removed (kept as 1 with `keepdims`).
    """
    array = _strings(inputs, "reduce_join")
    rank = array.ndim
    if axis is None:
        axes = list(range(rank - 1, -1, -1))
    else:
        if isinstance(axis, (Tensor, np.ndarray)):
            axis = axis.tolist()
        raw = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        axes = []
        for a in raw:
            a = int(a)
            if not -rank <= a < rank or rank == 0:
                raise OutOfRangeError(
                    None, None, f"reduce_join: Invalid reduction dimension {a} for input with "
                    f"{rank} dimension(s)"
                )
            a %= rank
            if a in axes:
                raise InvalidArgumentError(
                    None, None, f"reduce_join: Duplicate reduction dimension {a}"
                )
            axes.append(a)
    kept = [d for d in range(rank) if d not in axes]
    order = kept + axes[::-1]  # the first listed axis becomes the last (fastest) one
    moved = array.transpose(order) if rank else array
    out_shape = tuple(array.shape[d] for d in kept)
    count = int(np.prod([array.shape[d] for d in axes], dtype=np.int64)) if axes else 1
    rows = int(np.prod(out_shape, dtype=np.int64))
    values = _arrow(np.ascontiguousarray(moved))
    if rows * count < 2**31:
        offsets = pa.array(np.arange(rows + 1, dtype=np.int32) * count, type=pa.int32())
        lists = pa.ListArray.from_arrays(offsets, values)
        sep = _sep_scalar(separator)
    else:
        offsets = pa.array(np.arange(rows + 1, dtype=np.int64) * count, type=pa.int64())
        lists = pa.LargeListArray.from_arrays(offsets, values.cast(pa.large_string()))
        sep = pa.scalar(_sep(separator), type=pa.large_string())
    joined = _back(pc.binary_join(lists, sep), out_shape)
    if keepdims:
        joined = joined.reshape(tuple(1 if d in axes else array.shape[d] for d in range(rank)))
    return joined


def _split_whitespace(text: str, maxsplit: int) -> list[str]:
    """TF's SplitV2 without a separator: runs of ASCII whitespace separate tokens; after
    `maxsplit` tokens the rest (leading whitespace removed) is one more token."""
    if maxsplit == 0:
        return [text]
    if maxsplit < 0:
        return _TOKEN.findall(text)
    tokens: list[str] = []
    for match in _TOKEN.finditer(text):
        tokens.append(match.group())
        if len(tokens) == maxsplit:
            tokens.append(text[match.end():].lstrip(_ASCII_WS))
            break
    return tokens


def _ragged_result(array: np.ndarray, rows: list) -> Any:
    if array.ndim == 1:
        return rows
    out = np.empty(len(rows), dtype=object)
    out[:] = rows
    return out.reshape(array.shape)


def split(input: Any, sep: str | None = None, maxsplit: int = -1,
          name: str | None = None) -> Any:
    """Splits each string of `input` into tokens (TF's `tf.strings.split`, Python's
    `str.split` rules): with `sep` None (or ''), runs of ASCII whitespace separate tokens and
    empty tokens are dropped; otherwise every `sep` separates (`'a,,b'` gives 'a', '', 'b').
    `maxsplit` > 0 limits the number of splits.

    Returns:
        TF returns a RaggedTensor; here a scalar gives a 1-D string array of tokens, a 1-D
        input a list (one per string) of lists of str, and a higher-rank input an object array
        of the input's shape holding lists.
    """
    array = _strings(input, "split")
    maxsplit = int(maxsplit)
    sep = None if sep is None else _sep(sep)
    flat = array.reshape(-1).tolist()
    if sep:
        limit = maxsplit if maxsplit > 0 else -1
        rows = [t.split(sep, limit) for t in flat] if maxsplit else [[t] for t in flat]
    elif maxsplit < 0:
        rows = [_TOKEN.findall(t) for t in flat]
    else:
        rows = [_split_whitespace(t, maxsplit) for t in flat]
    if array.ndim == 0:
        return tokens(rows[0])
    return _ragged_result(array, rows)


def unicode_split(input: Any, input_encoding: str, errors: str = "replace",
                  replacement_char: int = 65533, name: str | None = None) -> Any:
    """Splits each string of `input` into its Unicode characters (TF's
    `tf.strings.unicode_split`; `input_encoding` "UTF-8").

    Returns:
        As `split`: a 1-D string array for a scalar, a list of lists for a 1-D input, an
        object array of lists for a higher rank.
    """
    if str(input_encoding).upper().replace("_", "-") not in ("UTF-8", "UTF8"):
        raise InvalidArgumentError(
            None, None, f"unicode_split: only input_encoding='UTF-8' is supported (strings are "
            f"Python str), got {input_encoding!r}."
        )
    array = _strings(input, "unicode_split")
    rows = [list(t) for t in array.reshape(-1).tolist()]
    if array.ndim == 0:
        return tokens(rows[0])
    return _ragged_result(array, rows)


# ---------------------------------------------------------------------------- regex, substr
def _pattern(pattern: Any) -> str:
    if isinstance(pattern, np.ndarray):
        pattern = pattern.item()
    return _decode(pattern)


def _regex_error(op: str, pattern: str, exc: Exception, used: str = "") -> InvalidArgumentError:
    reason = str(exc).replace("Invalid regular expression: ", "")
    if used:
        reason = reason.replace(used, pattern)
    return InvalidArgumentError(None, None, f"{op}: Invalid pattern: {pattern}, error: {reason}")


@_ragged
def regex_replace(input: Any, pattern: str, rewrite: str, replace_global: bool = True,
                  name: str | None = None) -> np.ndarray:
    """Replaces the matches of the RE2 regular expression `pattern` in `input` with `rewrite`
    (TF's `tf.strings.regex_replace`); `\\1`..`\\9` in `rewrite` insert capture groups, `\\0`
    the whole match. Only the first match is replaced when `replace_global` is False.

    Returns:
        A string array of the input's shape.
    """
    array = _strings(input, "regex_replace")
    pattern, rewrite = _pattern(pattern), _pattern(rewrite)
    try:
        out = pc.replace_substring_regex(
            _arrow(array), pattern=pattern, replacement=rewrite,
            max_replacements=None if replace_global else 1,
        )
    except pa.ArrowInvalid as exc:
        raise _regex_error("regex_replace", pattern, exc) from None
    return _back(out, array.shape)


@_ragged
def regex_full_match(input: Any, pattern: str, name: str | None = None) -> Tensor:
    """Checks whether each whole string matches the RE2 regular expression `pattern` (TF's
    `tf.strings.regex_full_match`).

    Returns:
        A bool tensor of the input's shape.
    """
    array = _strings(input, "regex_full_match")
    pattern = _pattern(pattern)
    try:
        out = pc.match_substring_regex(_arrow(array), pattern=f"^(?:{pattern})$")
    except pa.ArrowInvalid as exc:
        raise _regex_error("regex_full_match", pattern, exc, f"^(?:{pattern})$") from None
    return _tensor(out.to_numpy(zero_copy_only=False).reshape(array.shape), torch.bool)


def _positions(value: Any, name: str) -> np.ndarray:
    if isinstance(value, Tensor):
        value = value.detach().cpu().numpy()
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise InvalidArgumentError(
            None, None, f"substr: `{name}` must be int32 or int64, got {value!r}."
        )
    return array.astype(np.int64)


def _utf8_or_bytes(data: bytes) -> Any:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


@_ragged
def substr(input: Any, pos: Any, len: Any, unit: str = "BYTE",
           name: str | None = None) -> np.ndarray:
    """Returns the substrings of `input` of `len` units starting at `pos` (TF's
    `tf.strings.substr`): `unit` "BYTE" counts UTF-8 bytes, "UTF8_CHAR" characters; a
    negative `pos` counts from the end; `pos` and `len` broadcast with `input`. A substring
    past the end is shortened; a `pos` outside the string is an `InvalidArgumentError`.

    Returns:
        A string array of the broadcast shape (byte slices that are not valid UTF-8 are
        `bytes` elements).
    """
    array = _strings(input, "substr")
    unit = _unit(unit, "substr")
    starts, counts = _positions(pos, "pos"), _positions(len, "len")
    try:
        shape = np.broadcast_shapes(array.shape, starts.shape, counts.shape)
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"substr: Incompatible shapes: {list(array.shape)} vs. "
            f"{list(starts.shape if starts.shape != array.shape else counts.shape)}"
        ) from None
    strings = np.broadcast_to(array, shape)
    if unit == "BYTE":
        values = np.frompyfunc(lambda s: s.encode("utf-8"), 1, 1)(strings)
        sizes = pc.binary_length(_arrow(strings)).to_numpy(zero_copy_only=False)
    else:
        values = strings
        sizes = pc.utf8_length(_arrow(strings)).to_numpy(zero_copy_only=False)
    sizes = sizes.reshape(shape).astype(np.int64)
    starts = np.broadcast_to(starts, shape)
    counts = np.broadcast_to(counts, shape)
    begin = np.where(starts < 0, starts + sizes, starts)
    bad = (begin < 0) | (begin > sizes)
    if bad.any():
        at = np.argwhere(bad)[0]
        index = int(np.ravel_multi_index(tuple(at), shape)) if shape else 0
        raise InvalidArgumentError(
            None, None, f"substr: pos {int(starts[tuple(at)])} out of range for string "
            f"{strings[tuple(at)]!r} at index {index}"
        )
    end = np.where(counts < 0, sizes, np.minimum(begin + counts, sizes))
    cut = np.frompyfunc(lambda s, b, e: s[b:e], 3, 1)(values, begin, end)
    if unit == "BYTE":
        cut = np.frompyfunc(_utf8_or_bytes, 1, 1)(cut)
    return np.asarray(cut, dtype=object).reshape(shape)


# ---------------------------------------------------------------------------- numbers
_FLOAT_RE = (r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|0[xX][0-9a-fA-F]+"
             r"|(?i:inf|nan))")
_INT_RE = r"-?[0-9]+"
_NUMBER_TYPES = {torch.float32: "float", torch.float64: "double", torch.int32: "int32",
                 torch.int64: "int64"}


def _number_error(text: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        None, None, f"StringToNumberOp could not correctly convert string: {text}"
    )


@_ragged
def to_number(input: Any, out_type: Any = torch.float32, name: str | None = None) -> Tensor:
    """Converts each string of `input` to a number of `out_type` (float32, float64, int32 or
    int64) (TF's `tf.strings.to_number`). Leading and trailing whitespace is ignored; floats
    accept decimal and exponent forms, hexadecimal integers ("0x1A"), "inf" and "nan";
    integers accept decimal digits with an optional "-" and must fit `out_type`.

    Returns:
        A tensor of `out_type` and the input's shape. A string that is not a number raises
        `InvalidArgumentError` ("StringToNumberOp could not correctly convert string: ...").
    """
    want = _dtypes.as_dtype(out_type)
    if want not in _NUMBER_TYPES:
        raise InvalidArgumentError(
            None, None, f"to_number: Value for attr 'out_type' of {dtype_name(want)} is not in "
            "the list of allowed values: float, double, int32, int64"
        )
    array = _strings(input, "to_number")
    if array.size == 0:
        return torch.zeros(array.shape, dtype=want)
    raw = _arrow(array)
    text = pc.utf8_trim(raw, characters=_ASCII_WS)
    floating = want.is_floating_point
    ok = pc.match_substring_regex(text, pattern=f"^(?:{_FLOAT_RE if floating else _INT_RE})$")
    ok = ok.to_numpy(zero_copy_only=False)
    if floating:  # TF reads a string of only whitespace as 0, but not the empty string
        blank = pc.equal(pc.binary_length(text), 0).to_numpy(zero_copy_only=False)
        ok = ok | (blank & (pc.binary_length(raw).to_numpy(zero_copy_only=False) > 0))
    if not ok.all():
        raise _number_error(array.reshape(-1)[int(np.argmin(ok))])
    if floating:
        is_hex = pc.match_substring_regex(text, pattern="^[+-]?0[xX]").to_numpy(
            zero_copy_only=False)
        filled = pc.if_else(pc.equal(pc.binary_length(text), 0), "0", text)
        if is_hex.any():
            filled = pc.if_else(pa.array(is_hex), "0", filled)
        values = pc.cast(filled, pa.float32() if want is torch.float32 else pa.float64())
        values = values.to_numpy(zero_copy_only=False).copy()
        if is_hex.any():
            flat = np.asarray(text.to_pylist(), dtype=object)
            values[is_hex] = [float(int(s, 16)) for s in flat[is_hex]]
        return _tensor(values.reshape(array.shape), want)
    try:
        values = pc.cast(text, pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, OverflowError):
        flat = text.to_pylist()
        bad = next(s for s in flat if not -(2**63) <= int(s) < 2**63)
        raise _number_error(bad) from None
    if want is torch.int32:
        over = (values < -(2**31)) | (values >= 2**31)
        if over.any():
            raise _number_error(array.reshape(-1)[int(np.argmax(over))].strip(_ASCII_WS))
    return _tensor(values.reshape(array.shape), want)


_FILLS = (" ", "+", "-", "0", "#")


def as_string(input: Any, precision: int = -1, scientific: bool = False,
              shortest: bool = False, width: int = -1, fill: str = "",
              name: str | None = None) -> np.ndarray:
    """Converts each entry of `input` to a string with C's printf rules (TF's
    `tf.strings.as_string`): integers "%d", floats "%f" ("%e" with `scientific`, "%g" with
    `shortest`, `precision` digits), `width` and a `fill` flag (' ', '+', '-', '0' or '#');
    bools become "true"/"false".

    Returns:
        A string array of the input's shape.
    """
    value = convert_to_tensor(input) if not isinstance(input, np.ndarray) or \
        input.dtype.kind not in "OUS" else _strings(input, "as_string")
    fill = _sep(fill)
    if builtins.len(fill) > 1:
        raise InvalidArgumentError(None, None, "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise InvalidArgumentError(None, None, "Cannot select both scientific and shortest "
                                               "notation")
    if fill and fill not in _FILLS:
        raise InvalidArgumentError(None, None, f'Fill argument not supported: "{fill}"')
    spec = "%" + fill + (str(int(width)) if width > -1 else "")
    if isinstance(value, np.ndarray):  # strings are formatted with "%s"
        array = _strings(value, "as_string")
        return np.frompyfunc((spec + "s").__mod__, 1, 1)(array).astype(object).reshape(
            array.shape)
    dtype = value.dtype
    array = value.detach().cpu()
    if dtype is torch.bool:
        out = np.where(array.numpy(), "true", "false").astype(object)
        return out.reshape(tuple(array.shape))
    floating = dtype.is_floating_point or dtype.is_complex
    if not floating:
        if precision > -1:
            raise InvalidArgumentError(
                None, None, f"precision not supported for datatype {dtype_name(dtype)}"
            )
        if scientific or shortest:
            raise InvalidArgumentError(
                None, None, f"scientific and shortest format not supported for datatype "
                f"{dtype_name(dtype)}"
            )
        fmt = spec + "d"
    else:
        fmt = spec + (f".{int(precision)}" if precision > -1 else "") + \
            ("g" if shortest else "e" if scientific else "f")
    if dtype is torch.bfloat16:
        array = array.to(torch.float32)
    numbers = array.numpy()
    if isinstance(input, (np.ndarray, np.generic)):
        numbers = numbers.reshape(np.shape(input))  # a numpy scalar stays a scalar
    if dtype.is_complex:
        pair = "(" + fmt + "," + fmt + ")"
        out = np.frompyfunc(lambda z: pair % (z.real, z.imag), 1, 1)(numbers.astype(object))
    else:
        out = np.frompyfunc(fmt.__mod__, 1, 1)(numbers.astype(object))
        out = np.asarray(out, dtype=object)
        if floating and fill == "0" and not np.isfinite(numbers).all():
            # C's printf ignores the '0' flag for inf and nan (it pads with spaces)
            plain = fmt.replace("%0", "%", 1)
            special = ~np.isfinite(numbers)
            out[special] = np.frompyfunc(plain.__mod__, 1, 1)(numbers[special].astype(object))
    return np.asarray(out, dtype=object).reshape(numbers.shape)


# ---------------------------------------------------------------------------- hashing
def _num_buckets(num_buckets: Any, op: str) -> int:
    if isinstance(num_buckets, builtins.bool) or not isinstance(num_buckets, (int, np.integer)):
        raise TypeError(f"{op}: `num_buckets` must be an integer, got {num_buckets!r}.")
    if num_buckets < 1:
        raise InvalidArgumentError(
            None, None, f"{op}: Value for attr 'num_buckets' of {num_buckets} must be at least "
            "minimum 1"
        )
    return int(num_buckets)


@_ragged
def to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Tensor:
    """Converts each string of `input` to a hash bucket id in [0, num_buckets): FarmHash
    Fingerprint64 of its UTF-8 bytes modulo `num_buckets`, bit-identical to TF's
    `tf.strings.to_hash_bucket_fast`.

    Returns:
        An int64 tensor of the input's shape.
    """
    array = _strings(input, "to_hash_bucket_fast")
    buckets = _hashing.hash_bucket(array, _num_buckets(num_buckets, "to_hash_bucket_fast"))
    return _tensor(np.asarray(buckets, dtype=np.int64).reshape(array.shape), torch.int64)


@_ragged
def to_hash_bucket_strong(input: Any, num_buckets: int, key: Any,
                          name: str | None = None) -> Tensor:
    """Converts each string of `input` to a hash bucket id in [0, num_buckets) with the keyed
    SipHash-2-4 of its UTF-8 bytes, `key` two integers, bit-identical to TF's
    `tf.strings.to_hash_bucket_strong`.

    Returns:
        An int64 tensor of the input's shape.
    """
    array = _strings(input, "to_hash_bucket_strong")
    values = key.tolist() if isinstance(key, (Tensor, np.ndarray)) else key
    if not isinstance(values, (list, tuple)) or builtins.len(values) != 2:
        raise InvalidArgumentError(
            None, None, f"to_hash_bucket_strong: Key must have 2 elements, got {key!r}"
        )
    buckets = _hashing.strong_hash_bucket(
        array, _num_buckets(num_buckets, "to_hash_bucket_strong"), [int(v) for v in values]
    )
    return _tensor(np.asarray(buckets, dtype=np.int64).reshape(array.shape), torch.int64)


# ---------------------------------------------------------------------------- format
def _scalar_text(value: Any, dtype: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if dtype in (np.float32, np.float16):
        text = f"{value:.6g}"
        return text if np.float32(float(text)) == np.float32(value) else f"{value:.9g}"
    if dtype == np.float64:
        text = f"{value:.15g}"
        return text if float(text) == float(value) else f"{value:.17g}"
    return str(value)


def _summarize(array: np.ndarray, summarize: int, depth: int = 0) -> str:
    if array.ndim == 0:
        return _scalar_text(array.item(), array.dtype.type)
    n = array.shape[0]
    elide = 0 <= summarize and 2 * summarize < n
    head = range(summarize) if elide else range(n)
    tail = range(n - summarize, n) if elide else range(0)
    parts = [_summarize(np.asarray(array[i]), summarize, depth + 1) for i in head]
    if elide:
        parts.append("...")
        parts += [_summarize(np.asarray(array[i]), summarize, depth + 1) for i in tail]
    if array.ndim == 1:
        return "[" + " ".join(parts) + "]"
    joiner = "\n" * (array.ndim - 1) + " " * (depth + 1)
    return "[" + joiner.join(parts) + "]"


def format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
           name: str | None = None) -> np.ndarray:
    """Formats a string template using a list of tensors (TF's `tf.strings.format`): each
    `placeholder` is replaced by a tensor's summary (the first and last `summarize` entries
    of each dimension; -1 shows everything).

    Returns:
        A scalar (0-d) string array.
    """
    if isinstance(inputs, (Tensor, np.ndarray)):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(
            f"format: `inputs` must be a list of tensors (or one tensor), got "
            f"{type(inputs).__name__}."
        )
    pieces = _pattern(template).split(placeholder)
    if builtins.len(pieces) - 1 != builtins.len(inputs):
        raise ValueError(
            f"The template expects {builtins.len(pieces) - 1} tensors, but the inputs only has "
            f"{builtins.len(inputs)}. Please ensure the number of placeholders in template "
            "matches inputs length."
        )
    texts = []
    for value in inputs:
        converted = convert_to_tensor(value)
        if isinstance(converted, Tensor):
            converted = converted.detach().cpu()
            if converted.dtype is torch.bfloat16:
                converted = converted.to(torch.float32)
            converted = converted.numpy()
        texts.append(_summarize(np.asarray(converted), int(summarize)))
    out = pieces[0] + "".join(t + p for t, p in zip(texts, pieces[1:]))
    return np.array(out, dtype=object)
