"""The string work of `TextVectorization`: standardize, split into tokens, form n-grams and lay
the token rows out as one padded array.

Strings are numpy object arrays of `str` (the project's string "tensors",
`_ops/string_ops.py`). TF's ragged token rows are Python lists of rows here; `pad_rows`
turns them into a rectangular array padded with '' (the lookup's mask token), which is
how Keras densifies them (`to_tensor(default_value=0)` after the lookup).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._ops import string_ops

LOWER_AND_STRIP_PUNCTUATION = "lower_and_strip_punctuation"
LOWER = "lower"
STRIP_PUNCTUATION = "strip_punctuation"
WHITESPACE = "whitespace"
CHARACTER = "character"

#: Keras 2.15's `DEFAULT_STRIP_REGEX` (ASCII punctuation), applied with RE2 as TF does.
DEFAULT_STRIP_REGEX = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


def standardize(values: np.ndarray, how: str | Callable | None) -> np.ndarray:
    """Keras' standardization: ASCII lower-casing (`tf.strings.lower`), removal of ASCII
    punctuation, or a user callable applied to the whole string array."""
    if how in (LOWER, LOWER_AND_STRIP_PUNCTUATION):
        values = string_ops.lower(values)
    if how in (STRIP_PUNCTUATION, LOWER_AND_STRIP_PUNCTUATION):
        values = string_ops.regex_replace(values, DEFAULT_STRIP_REGEX, "")
    if callable(how):
        values = how(values)
        if not isinstance(values, np.ndarray):
            values = string_ops._strings(values, "TextVectorization standardize")
    return values


def split(values: np.ndarray, how: str | Callable) -> list[list[str]]:
    """Splits each string of the 1-D array `values` into a row of tokens: on runs of ASCII
    whitespace (`tf.strings.split`), into Unicode characters, or with a user callable (which
    may return a list of rows, a 2-D array, or an object array of rows)."""
    if how == WHITESPACE:
        rows = string_ops.split(values)
    elif how == CHARACTER:
        rows = string_ops.unicode_split(values, "UTF-8")
    else:
        rows = how(values)
    return as_rows(rows, len(values))


def as_rows(rows: Any, expected: int) -> list[list[str]]:
    """Normalizes what a splitter returned into a list (one per string) of lists of str."""
    if type(rows).__name__ == "RaggedTensor" and rows.ragged_rank == 1:  # tf.strings.split's
        flat = rows.flat_values
        flat = flat.tolist() if isinstance(flat, (np.ndarray, torch.Tensor)) else list(flat)
        bounds = rows.row_splits.tolist()
        rows = [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if isinstance(rows, np.ndarray) and rows.dtype != object and rows.ndim == 2:
        rows = rows.astype(str).tolist()
    elif isinstance(rows, np.ndarray):
        rows = rows.tolist()
    out = [[_text(t) for t in (r.tolist() if isinstance(r, np.ndarray) else r)] for r in rows]
    if len(out) != expected:
        raise ValueError(
            f"TextVectorization: the `split` callable returned {len(out)} rows of tokens for "
            f"{expected} strings; it must return one row (list or array of tokens) per string."
        )
    return out


def _text(token: Any) -> str:
    return token.decode("utf-8") if isinstance(token, (bytes, np.bytes_)) else str(token)


def ngrams(rows: list[list[str]], widths: Sequence[int]) -> list[list[str]]:
    """`tf.strings.ngrams(rows, widths, separator=" ")`: per row, all n-grams of the first
    width, then of the next, ...; a row shorter than n gives no n-gram of width n."""
    out = []
    for row in rows:
        grams: list[str] = []
        for n in widths:
            if n == 1:
                grams.extend(row)
            else:
                grams.extend(" ".join(row[i:i + n]) for i in range(len(row) - n + 1))
        out.append(grams)
    return out


def pad_rows(rows: list[list[str]], min_width: int = 0) -> np.ndarray:
    """The rows as a `(len(rows), longest)` object array padded with '' (at least `min_width`
    wide)."""
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    width = max(int(lengths.max()) if len(rows) else 0, min_width)
    out = np.full((len(rows), width), "", dtype=object)
    if lengths.sum():
        flat = np.empty(int(lengths.sum()), dtype=object)
        flat[:] = [t for r in rows for t in r]
        out[np.arange(width)[None, :] < lengths[:, None]] = flat
    return out
