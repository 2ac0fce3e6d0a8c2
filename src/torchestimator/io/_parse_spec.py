"""Parsing specs: TF's `tf.io.FixedLenFeature`, `VarLenFeature`, `FixedLenSequenceFeature`,
`RaggedFeature` and `SparseFeature`.

A parse spec says how to read each raw feature from a serialized
`tf.train.Example`: a fixed-length dense value (numeric columns, with an
optional default for a missing feature) or a variable-length list
(categorical ids and their weights).
"""

from __future__ import annotations

import collections
from typing import Any, NamedTuple

from torchestimator import _dtypes


class FixedLenFeature(NamedTuple):
    """A dense feature of a known shape (TF's `tf.io.FixedLenFeature(shape, dtype, default_value=None)`).

    `default_value` fills an example that lacks the feature; None makes the
    feature required.
    """

    shape: tuple
    dtype: Any
    default_value: Any = None


class VarLenFeature(NamedTuple):
    """A variable-length list feature (TF's `tf.io.VarLenFeature(dtype)`)."""

    dtype: Any


class FixedLenSequenceFeature(NamedTuple):
    """A sequence of dense values of a known shape per step (TF's `tf.io.FixedLenSequenceFeature`).

    `parse_example` reads it from an Example's list (its length a multiple of
    the shape's size) into [batch, max_steps, *shape], padding shorter
    examples with `default_value` (0 or b''); it needs `allow_missing=True`.
    """

    shape: tuple
    dtype: Any
    allow_missing: bool = False
    default_value: Any = None


def var_len_for(dtype: Any) -> VarLenFeature:
    """Returns `VarLenFeature` for a categorical dtype: string, or int64 for any integer dtype."""
    d = _dtypes.as_dtype(dtype)
    if d is _dtypes.string:
        return VarLenFeature(_dtypes.string)
    return VarLenFeature(d)


def _partition(name: str, field: str, doc: str) -> type:
    cls = collections.namedtuple(name, [field])
    cls.__doc__ = doc
    return cls


class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A ragged feature (TF's `tf.io.RaggedFeature(dtype, value_key=None, partitions=(),
    row_splits_dtype=tf.int32, validate=False)`).

    `parse_example` reads the values of `value_key` (default: the feature's key) and
    partitions them with the `partitions` features, outermost first
    (`RaggedFeature.RowSplits(key)`, `RowLengths(key)`, `RowStarts(key)`, `RowLimits(key)`,
    `ValueRowIds(key)`, `UniformRowLength(length)`). Returns a `tf.RaggedTensor` with the
    batch as its outer dimension (`parse_single_example`: a tensor when no partitions).
    """

    RowSplits = _partition("RowSplits", "key", "Partition by the row_splits in feature `key`.")
    RowLengths = _partition("RowLengths", "key", "Partition by the row lengths in feature `key`.")
    RowStarts = _partition("RowStarts", "key", "Partition by the row starts in feature `key`.")
    RowLimits = _partition("RowLimits", "key", "Partition by the row limits in feature `key`.")
    ValueRowIds = _partition("ValueRowIds", "key",
                             "Partition by the value row ids in feature `key`.")
    UniformRowLength = _partition("UniformRowLength", "length",
                                  "Partition into rows of `length` values each.")

    def __new__(cls, dtype: Any, value_key: str | None = None, partitions: Any = (),
                row_splits_dtype: Any = "int32", validate: bool = False) -> RaggedFeature:
        d = _dtypes.as_dtype(dtype)
        if _dtypes.dtype_name(d) not in ("int64", "float32", "string"):
            raise ValueError(f"RaggedFeature: dtype must be tf.int64, tf.float32 or tf.string; "
                             f"received {_dtypes.dtype_name(d)}")
        if value_key is not None and (not isinstance(value_key, str) or not value_key):
            raise ValueError(f"RaggedFeature: value_key must be a non-empty string or None; "
                             f"received {value_key!r}")
        kinds = (cls.RowSplits, cls.RowLengths, cls.RowStarts, cls.RowLimits, cls.ValueRowIds,
                 cls.UniformRowLength)
        if not isinstance(partitions, (list, tuple)) or not all(
                isinstance(p, kinds) for p in partitions):
            raise TypeError(f"RaggedFeature: partitions must be a list of RaggedFeature partition "
                            f"specs (RowSplits, RowLengths, ...); received {partitions!r}")
        s = _dtypes.as_dtype(row_splits_dtype)
        if _dtypes.dtype_name(s) not in ("int32", "int64"):
            raise ValueError(f"RaggedFeature: row_splits_dtype must be tf.int32 or tf.int64; "
                             f"received {_dtypes.dtype_name(s)}")
        return super().__new__(cls, d, value_key, partitions, s, validate)


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A sparse feature read from index and value features (TF's `tf.io.SparseFeature(
    index_key, value_key, dtype, size, already_sorted=False)`).

    `index_key` names one int64 feature (a 1-D feature of dense size `size`) or a list of
    them (one per dimension, `size` a list). `parse_example` returns a `tf.SparseTensor`
    with dense_shape [batch, *size], its entries sorted by index unless `already_sorted`.
    """

    def __new__(cls, index_key: Any, value_key: str, dtype: Any, size: Any,
                already_sorted: bool = False) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, _dtypes.as_dtype(dtype), size,
                               already_sorted)
