"""`tf.feature_column.make_parse_example_spec`: the parse specs (`tf.io`'s) that feature
columns read from a serialized `tf.train.Example`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from torchestimator.feature_column._base import FeatureColumn


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
