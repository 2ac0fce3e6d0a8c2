"""`tf.sets`: set operations along the last dimension of dense or sparse tensors.

Each row (all dimensions but the last) is a set of its values; a `SparseTensor` row holds
only its present values. Results are `SparseTensor`s whose rows are the sorted result sets,
shaped `[*row_dims, max set size]`, as TF returns them.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch

from torchestimator._sparse_tensor import SparseTensor


def _rows(value: Any, what: str) -> tuple[tuple[int, ...], dict[tuple, list], bool]:
    """`(row shape, {row index: values}, is_string)` of a dense or sparse input."""
    if isinstance(value, SparseTensor):
        shape = value.shape
        strings = isinstance(value.values, np.ndarray)
        values = value.values.tolist() if strings else value.values.tolist()
        rows: dict[tuple, list] = {}
        for index, v in zip(value.indices.tolist(), values):
            rows.setdefault(tuple(index[:-1]), []).append(_norm(v))
        return tuple(shape[:-1]), rows, strings
    if isinstance(value, torch.Tensor):
        array, strings = value.detach().cpu().numpy(), False
    else:
        array = np.asarray(value)
        strings = array.dtype.kind in "OUS"
    if array.ndim < 2:
        raise ValueError(f"tf.sets: {what} must have rank >= 2 (rows of sets along the last dimension); "
                         f"received shape {array.shape}.")
    if not strings and array.dtype.kind not in "iu":
        raise TypeError(f"tf.sets: {what} must hold integers or strings; received dtype {array.dtype}.")
    rows = {idx: [_norm(v) for v in array[idx].tolist()] for idx in itertools.product(*map(range, array.shape[:-1]))}
    return tuple(array.shape[:-1]), rows, strings


def _norm(value: Any) -> Any:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _set_op(a: Any, b: Any, op: str, validate_indices: bool = True) -> SparseTensor:
    shape_a, rows_a, str_a = _rows(a, "a")
    shape_b, rows_b, str_b = _rows(b, "b")
    if str_a != str_b:
        raise TypeError("tf.sets: a and b must both hold strings or both hold integers.")
    if shape_a != shape_b:
        raise ValueError(f"tf.sets: a and b must have the same row dimensions (all but the last); "
                         f"received {list(shape_a)} and {list(shape_b)}.")
    indices, values, width = [], [], 0
    for row in itertools.product(*map(range, shape_a)):
        x, y = set(rows_a.get(row, [])), set(rows_b.get(row, []))
        result = sorted({"intersection": x & y, "union": x | y, "a-b": x - y, "b-a": y - x}[op])
        width = max(width, len(result))
        for j, v in enumerate(result):
            indices.append(list(row) + [j])
            values.append(v)
    rank = len(shape_a) + 1
    index_tensor = torch.tensor(indices, dtype=torch.int64).reshape(-1, rank)
    value_out: Any = (np.array([v.encode("utf-8") for v in values], dtype=object) if str_a
                      else torch.tensor(values, dtype=_dtype_of(a)))
    return SparseTensor(index_tensor, value_out, list(shape_a) + [width])


def _dtype_of(value: Any) -> torch.dtype:
    if isinstance(value, SparseTensor):
        return value.values.dtype
    if isinstance(value, torch.Tensor):
        return value.dtype
    return torch.from_numpy(np.asarray(value)[:0].copy()).dtype


def intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The set intersection of the last dimension of `a` and `b` (a `SparseTensor`)."""
    return _set_op(a, b, "intersection")


def union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The set union of the last dimension of `a` and `b` (a `SparseTensor`)."""
    return _set_op(a, b, "union")


def difference(a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True) -> SparseTensor:
    """The set difference of the last dimension of `a` and `b`: `a - b`, or `b - a` when
    `aminusb` is False (a `SparseTensor`)."""
    return _set_op(a, b, "a-b" if aminusb else "b-a")


def size(a: Any, validate_indices: bool = True) -> torch.Tensor:
    """The number of unique elements in each row set of `a` (int32, of the row shape)."""
    shape, rows, _ = _rows(a, "a")
    counts = [len(set(rows.get(row, []))) for row in itertools.product(*map(range, shape))]
    return torch.tensor(counts, dtype=torch.int32).reshape(shape)
