"""Parsing specs: TF's `tf.io.FixedLenFeature`, `VarLenFeature` and `FixedLenSequenceFeature`.

A parse spec says how to read each raw feature from a serialized
`tf.train.Example`: a fixed-length dense value (numeric columns, with an
optional default for a missing feature) or a variable-length list
(categorical ids and their weights).
"""

from __future__ import annotations

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
