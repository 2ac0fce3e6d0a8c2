"""Parsing specs (TF's `tf.io.FixedLenFeature` / `VarLenFeature`) and `make_parse_example_spec`.

A parse spec says how to read each raw feature from a serialized
`tf.train.Example`: a fixed-length dense value (numeric columns, with an
optional default for a missing feature) or a variable-length list
(categorical ids and their weights).
"""

from __future__ import annotations

from collections.abc import Iterable
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


def make_parse_example_spec(feature_columns: Iterable[Any]) -> dict[str, Any]:
    """Creates the parsing spec dictionary for the given feature columns.

    Returns a dict from feature key to `FixedLenFeature` or `VarLenFeature`,
    as TF's `tf.feature_column.make_parse_example_spec`: numeric columns (also
    under a bucketized column) give `FixedLenFeature(shape, dtype, default)`;
    categorical columns give `VarLenFeature` of their dtype; weighted columns
    add `VarLenFeature(float32)` for the weight key.

    Raises ValueError when an item is not a feature column, or when two
    columns need different specs for the same key.
    """
    from torchestimator.feature_column._base import FeatureColumn

    if isinstance(feature_columns, (str, dict)) or not isinstance(feature_columns, Iterable):
        raise ValueError(
            f"feature_columns must be a list of feature columns; received {type(feature_columns).__name__}"
        )
    result: dict[str, Any] = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(
                f"All feature_columns must be FeatureColumn instances. Given: {column!r}"
            )
        for key, spec in column.parse_example_spec.items():
            if key in result and result[key] != spec:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}. Given "
                    f"{result[key]} and {spec}"
                )
            result[key] = spec
    return result


def var_len_for(dtype: Any) -> VarLenFeature:
    """Returns `VarLenFeature` for a categorical dtype: string, or int64 for any integer dtype."""
    d = _dtypes.as_dtype(dtype)
    if d is _dtypes.string:
        return VarLenFeature(_dtypes.string)
    return VarLenFeature(d)
