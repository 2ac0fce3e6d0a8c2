"""tf.strings' case, whitespace, length, regex and substring ops: lower, upper, strip, length,
regex_replace, regex_full_match, substr."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import torch

from torchestimator._ops.string_ops._common import (
    _ASCII_WS,
    Tensor,
    _arrow,
    _back,
    _decode,
    _ragged,
    _strings,
    _tensor,
    _unit,
)
from torchestimator.errors import InvalidArgumentError


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
