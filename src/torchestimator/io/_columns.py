"""`RawColumn`: one feature's values across a batch, and turning it into parse_example's output.

Both parsers (the vectorized wire-format one and the protobuf one) produce,
per requested key, the values of every example concatenated in order, the
number of values each example has, and which examples lack the feature.
`assemble` checks those against the spec (required features, value counts)
and builds TF's outputs: a dense tensor for a `FixedLenFeature`, a
`SparseTensor` for a `VarLenFeature`, a padded tensor for a
`FixedLenSequenceFeature`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from torchestimator._sparse_tensor import SparseTensor
from torchestimator.errors import InvalidArgumentError
from torchestimator.io._specs import ParseSpec


@dataclasses.dataclass
class RawColumn:
    """Values of one key over a batch: flat `values`, per-example `counts` and `missing`."""

    values: np.ndarray
    counts: np.ndarray  # int64 [batch]
    missing: np.ndarray | None  # bool [batch]; None when no example lacks it
    count: int | None = None  # set when every example has exactly this many values


def example_label(index: int, names: Sequence[Any] | None) -> str:
    """'Index: 3' or 'Name: id-7, Index: 3' for error messages."""
    if names is not None and index < len(names):
        name = names[index]
        name = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)
        return f"Name: {name}, Index: {index}"
    return f"Index: {index}"


def _as_output(values: np.ndarray, spec: ParseSpec) -> Any:
    if spec.dtype == "string":
        return values
    return torch.from_numpy(np.ascontiguousarray(values))


def assemble(spec: ParseSpec, col: RawColumn, n: int, names: Sequence[Any] | None) -> Any:
    """Returns parse_example's output for `spec` from `col`; InvalidArgumentError on bad counts."""
    if spec.kind == "var":
        return _sparse(spec, col, n)
    if spec.kind == "seq":
        return _sequence(spec, col, n, names)
    return _fixed(spec, col, n, names)


def _fixed(spec: ParseSpec, col: RawColumn, n: int, names: Sequence[Any] | None) -> Any:
    size = spec.size
    if col.count == size:
        return _as_output(col.values.reshape((n, *spec.shape)), spec)
    missing = col.missing
    if missing is not None and spec.default is None and missing.any():
        i = int(np.argmax(missing))
        raise InvalidArgumentError(
            f"{example_label(i, names)}. Feature: {spec.key} (data type: {spec.tf_type}) is "
            f"required but could not be found in example {i}. Add the feature to every "
            "example, or give tf.io.FixedLenFeature a default_value.")
    present = col.counts if missing is None else col.counts[~missing]
    bad = present != size
    if bad.any():
        rows = np.arange(n) if missing is None else np.flatnonzero(~missing)
        j = int(np.argmax(bad))
        i = int(rows[j])
        raise InvalidArgumentError(
            f"Key: {spec.key}, {example_label(i, names)}. Number of {spec.tf_type} values != "
            f"expected. Values size: {int(present[j])} but output shape: {list(spec.shape)} "
            f"(feature {spec.key!r} in example {i} has {int(present[j])} values; the spec "
            f"expects {size}).")
    if missing is None or not missing.any():
        out = col.values.reshape((n, *spec.shape))
    else:
        out = np.empty((n, size), dtype=spec.np_dtype)
        out[~missing] = col.values.reshape(-1, size)
        out[missing] = spec.default
        out = out.reshape((n, *spec.shape))
    return _as_output(out, spec)


def _row_positions(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    total = int(counts.sum())
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    cols = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
    return rows, cols


def _sparse(spec: ParseSpec, col: RawColumn, n: int) -> SparseTensor:
    counts = col.counts
    rows, cols = _row_positions(counts)
    indices = np.empty((len(rows), 2), np.int64)
    indices[:, 0] = rows
    indices[:, 1] = cols
    width = int(counts.max()) if n else 0
    values = col.values if spec.dtype == "string" else torch.from_numpy(
        np.ascontiguousarray(col.values))
    return SparseTensor._from_parts(torch.from_numpy(indices), values,
                                    torch.from_numpy(np.array([n, width], np.int64)))


def _sequence(spec: ParseSpec, col: RawColumn, n: int, names: Sequence[Any] | None) -> Any:
    size = spec.size
    counts = col.counts
    if size == 0:
        if counts.any():
            i = int(np.argmax(counts > 0))
            raise InvalidArgumentError(
                f"Key: {spec.key}, {example_label(i, names)}. FixedLenSequenceFeature of shape "
                f"{list(spec.shape)} holds no values, but example {i} has {int(counts[i])}.")
        steps = np.zeros(n, dtype=np.int64)
    else:
        bad = counts % size != 0
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidArgumentError(
                f"Key: {spec.key}, {example_label(i, names)}. Number of {spec.tf_type} values is "
                f"not a multiple of stride length. Saw {int(counts[i])} values but output shape "
                f"is: {list(spec.shape)} (feature {spec.key!r} in example {i}).")
        steps = counts // size
    max_steps = int(steps.max()) if n else 0
    if spec.default is not None:
        fill = spec.default[0]
    else:
        fill = b"" if spec.dtype == "string" else 0
    out = np.full((n, max_steps, size), fill, dtype=spec.np_dtype)
    if len(col.values):
        rows, pos = _row_positions(steps)
        out[rows, pos] = col.values.reshape(-1, size)
    return _as_output(out.reshape((n, max_steps, *spec.shape)), spec)
