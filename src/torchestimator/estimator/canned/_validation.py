"""Argument checks the canned estimators share: features, feature columns, hidden units,
dropout, and the regression label dimension. Errors name the estimator and the argument."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from torchestimator.feature_column import CategoricalColumn, DenseColumn, FeatureColumn
from torchestimator.feature_column._base import SequenceDenseColumn, is_sequence_categorical
from torchestimator.keras import activations


def validate_features(features: Any) -> None:
    """Raises ValueError unless `features` is a dict (canned estimators read named features)."""
    if not isinstance(features, Mapping):
        raise ValueError(
            "features should be a dictionary of `Tensor`s. Given type: "
            f"{type(features).__name__}. Make input_fn return (dict of feature name -> values, labels)."
        )


def _as_column_list(columns: Any, argument: str, owner: str) -> list:
    if isinstance(columns, FeatureColumn):
        columns = [columns]
    if isinstance(columns, (str, bytes, Mapping)) or not isinstance(columns, Iterable):
        raise ValueError(
            f"{owner}: {argument} must be a list of feature columns (tf.feature_column.*); given "
            f"{type(columns).__name__}: {columns!r}."
        )
    columns = list(columns)
    for column in columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(
                f"{owner}: every item of {argument} must be a feature column made by "
                f"tf.feature_column.*; given {type(column).__name__}: {column!r}."
            )
    return columns


def _is_sequence(column: Any) -> bool:
    inner = getattr(column, "categorical_column", None)
    return is_sequence_categorical(column) or is_sequence_categorical(inner) or \
        type(column).__name__.startswith("Sequence")


def dense_columns(columns: Any, argument: str, owner: str, required: bool = True) -> tuple:
    """Checks the columns of a DNN: dense, non-sequence columns; returns them as a tuple."""
    columns = _as_column_list(columns if columns is not None else [], argument, owner)
    if required and not columns:
        raise ValueError(f"{owner}: {argument} must not be empty.")
    for column in columns:
        if _is_sequence(column):
            raise ValueError(
                f"{owner}: {argument} takes no sequence columns; {column.name!r} is one. Sequence "
                "input needs an RNN model (SequenceFeatures)."
            )
        if not isinstance(column, DenseColumn):
            raise ValueError(
                f"{owner}: {argument} must be dense columns (numeric, bucketized, embedding or "
                f"indicator); {column.name!r} is a {type(column).__name__}. Wrap a categorical "
                "column with tf.feature_column.embedding_column or indicator_column."
            )
    return tuple(columns)


def sequence_columns(columns: Any, argument: str, owner: str) -> tuple:
    """Checks the sequence columns of an RNN: sequence numeric columns, or embedding/indicator
    columns over sequence categorical columns; returns them as a tuple."""
    columns = _as_column_list(columns if columns is not None else [], argument, owner)
    if not columns:
        raise ValueError(f"{owner}: {argument} must not be empty.")
    for column in columns:
        if not isinstance(column, SequenceDenseColumn):
            raise ValueError(
                f"{owner}: {argument} must be sequence columns (sequence_numeric_column, or "
                "embedding_column / indicator_column over sequence_categorical_column_with_*); "
                f"{column.name!r} is a {type(column).__name__}. Put non-sequence columns in "
                "context_feature_columns."
            )
    return tuple(columns)


def linear_columns(columns: Any, argument: str, owner: str, required: bool = True) -> tuple:
    """Checks the columns of a linear model: categorical or dense, no sequence columns."""
    columns = _as_column_list(columns if columns is not None else [], argument, owner)
    if required and not columns:
        raise ValueError(f"{owner}: {argument} must not be empty.")
    for column in columns:
        if _is_sequence(column):
            raise ValueError(
                f"{owner}: {argument} takes no sequence columns; {column.name!r} is one. A linear "
                "model needs one value (or one set of ids) per example."
            )
        if not isinstance(column, (DenseColumn, CategoricalColumn)):
            raise ValueError(
                f"{owner}: {argument} must be categorical or dense columns; {column.name!r} is a "
                f"{type(column).__name__}."
            )
    return tuple(columns)


def hidden_units(units: Any, argument: str, owner: str) -> tuple:
    """Checks `hidden_units`: an iterable of positive ints; returns a tuple."""
    if isinstance(units, (str, bytes)) or not isinstance(units, Iterable):
        raise ValueError(f"{owner}: {argument} must be a list of positive ints, e.g. [64, 32]; given {units!r}.")
    units = tuple(units)
    for u in units:
        if isinstance(u, bool) or not isinstance(u, int) or u < 1:
            raise ValueError(f"{owner}: {argument} must be a list of positive ints; given {list(units)}.")
    return units


def dropout(rate: Any, argument: str, owner: str) -> float | None:
    """Checks `dropout`: None or a float in [0, 1)."""
    if rate is None:
        return None
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(f"{owner}: {argument} must be None or a probability in [0, 1); given {rate!r}.")
    return float(rate)


def label_dimension(value: Any, owner: str) -> int:
    """Checks `label_dimension`: an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{owner}: label_dimension must be an int >= 1; given {value!r}.")
    return value


def activation(fn: Any, argument: str, owner: str) -> Any:
    """Resolves an activation: a callable, or a Keras activation name; None means relu."""

    if fn is None:
        return activations.relu
    if isinstance(fn, str):
        try:
            return activations.get(fn)
        except ValueError as error:
            raise ValueError(f"{owner}: {argument}={fn!r}: {error}") from None
    if not callable(fn):
        raise ValueError(f"{owner}: {argument} must be callable (e.g. tf.nn.relu); given {fn!r}.")
    return fn


def batch_size_of(features: Mapping, weight_column: Any = None) -> int:
    """The batch size of a features dict: the length of its first feature."""
    if not features:
        raise ValueError(
            "features is empty: the baseline needs at least one feature to know the batch size."
        )
    key = weight_column if isinstance(weight_column, str) else getattr(weight_column, "key", None)
    value = features[key] if key in features else next(iter(features.values()))
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) > 0:
        return shape[0]  # not int(): an export keeps the batch size symbolic
    return len(value)
