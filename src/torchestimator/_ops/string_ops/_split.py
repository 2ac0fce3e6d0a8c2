"""tf.strings' joins and splits: join, reduce_join, split, unicode_split."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import torch

from torchestimator._ops.string_ops._common import (
    _ASCII_WS,
    _TOKEN,
    Tensor,
    _arrow,
    _back,
    _decode,
    _strings,
)
from torchestimator._ops.tokens import tokens
from torchestimator._ragged._tensor import RaggedTensor
from torchestimator.errors import InvalidArgumentError, OutOfRangeError


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
        A string array with the reduced dimensions removed (kept as 1 with `keepdims`). For a
        `tf.RaggedTensor` joined along its last axis (TF's `reduce_join(chars, axis=-1)`), each
        row's strings joined: a 1-D array for a rank-2 input, else a RaggedTensor one rank lower.
    """
    if isinstance(inputs, RaggedTensor):
        return _reduce_join_ragged(inputs, axis, keepdims, separator)
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


def _reduce_join_ragged(rt: Any, axis: Any, keepdims: bool, separator: str) -> Any:
    """`reduce_join` of a RaggedTensor of strings along its last axis (or all of it)."""
    rank = rt.shape.rank
    if isinstance(axis, (Tensor, np.ndarray)):
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    sep = _sep(separator)
    if axis is None and not keepdims:
        flat = _strings(rt.flat_values, "reduce_join").reshape(-1).tolist()
        return np.array(sep.join(flat), dtype=object)
    if not isinstance(axis, (int, np.integer)) or int(axis) % rank != rank - 1 or keepdims:
        raise InvalidArgumentError(
            None, None, f"reduce_join of a RaggedTensor joins along its last axis (axis=-1, "
            f"keepdims=False); got axis={axis!r}, keepdims={keepdims}. Call `.to_tensor()` "
            "first to join along another axis."
        )
    outer = []
    node = rt
    while isinstance(node.values, RaggedTensor):
        outer.append(node.row_splits)
        node = node.values
    flat = _strings(node.values, "reduce_join").reshape(-1).tolist()
    bounds = node.row_splits.tolist()
    out: Any = np.empty(len(bounds) - 1, dtype=object)
    out[:] = [sep.join(flat[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    for splits in reversed(outer):
        out = RaggedTensor.from_row_splits(out, splits, validate=False)
    return out


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
        As TF 2.x: a scalar gives a 1-D string array of tokens; an input of rank N >= 1 a
        `tf.RaggedTensor` of rank N + 1 (row_splits int64) whose last dimension is ragged (the
        tokens of each string); the input's other dimensions stay uniform.
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
    return _ragged_tokens(array.shape, rows)


def _ragged_tokens(shape: tuple, rows: list) -> Any:
    """A RaggedTensor of `rows` (token lists, one per string of an input of `shape`)."""


    flat = np.empty(sum(len(r) for r in rows), dtype=object)
    flat[:] = [t for r in rows for t in r]
    splits = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=splits[1:])
    out = RaggedTensor.from_row_splits(flat, torch.from_numpy(splits), validate=False)
    for size in reversed(shape[1:]):
        out = RaggedTensor.from_uniform_row_length(out, size, validate=False)
    return out


def unicode_split(input: Any, input_encoding: str, errors: str = "replace",
                  replacement_char: int = 65533, name: str | None = None) -> Any:
    """Splits each string of `input` into its Unicode characters (TF's
    `tf.strings.unicode_split`; `input_encoding` "UTF-8").

    Returns:
        As `split`: a 1-D string array for a scalar; for an input of rank N >= 1 a
        `tf.RaggedTensor` of rank N + 1 whose last dimension (the characters) is ragged.
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
    return _ragged_tokens(array.shape, rows)
