"""The boosted trees' input: which feature columns they take, and the feature matrix they read
(used by `boosted_trees` for training and by `_tree_logits` for the exported trees)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.estimator.canned import _validation
from torchestimator.feature_column import (
    BucketizedColumn,
    FeatureTransformationCache,
    IndicatorColumn,
    NumericColumn,
)


def check_columns(feature_columns: Any, owner: str) -> tuple:
    """Numeric, bucketized and indicator columns only, sorted by name (as TF)."""
    columns = list(feature_columns) if feature_columns is not None else []
    if not columns:
        raise ValueError(f"{owner}: feature_columns must not be empty.")
    for column in columns:
        if not isinstance(column, (NumericColumn, BucketizedColumn, IndicatorColumn)):
            raise ValueError(
                f"{owner}: for now, only bucketized_column, indicator_column and numeric_column are "
                f"supported but got: {column!r}. Use those columns (e.g. indicator_column("
                "categorical_column_with_vocabulary_list(...)))."
            )
    return tuple(sorted(columns, key=lambda c: c.name))


def feature_matrix(features: Any, columns: tuple) -> tuple[np.ndarray, list[str]]:
    """The trees' input: float32 [batch, n] numpy matrix, and the column name of each of its
    n features (a numeric column's values, a bucketized column's bucket ids, an indicator
    column's per-category counts)."""
    _validation.validate_features(features)
    cache = FeatureTransformationCache(features)
    parts, names = [], []
    for column in columns:
        dense = column.get_dense_tensor(cache, None).detach()
        if isinstance(column, BucketizedColumn):
            dense = dense.argmax(-1).to(torch.float32)
        dense = dense.reshape(dense.shape[0], -1).to("cpu", torch.float32)
        parts.append(dense.numpy())
        names.extend([column.name] * dense.shape[1])
    return np.concatenate(parts, axis=1), names
