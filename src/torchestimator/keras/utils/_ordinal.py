"""`to_ordinal`: integer class labels to Keras' ordinal regression targets."""

from __future__ import annotations

from typing import Any

import numpy as np


def to_ordinal(y: Any, num_classes: int | None = None, dtype: str = "float32") -> np.ndarray:
    """Converts a class vector (integers) to an ordinal regression matrix.

    This utility encodes class vector to ordinal regression/classification matrix where
    each sample is indicated by a row and rank of that sample is indicated by number of ones
    in that row: class `c` of `num_classes` becomes `c` ones followed by
    `num_classes - 1 - c` zeros.

    Args:
        y: array-like of class values to be converted into a matrix (integers from 0 to
            `num_classes - 1`). A trailing dimension of size 1 is dropped.
        num_classes: total number of classes. If `None`, this would be inferred as
            `max(y) + 1`.
        dtype: the data type of the output (default `'float32'`).

    Returns:
        An ordinal regression matrix of shape `y.shape + (num_classes - 1,)`.
    """
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(y)) + 1
    n = y.shape[0]
    range_values = np.tile(np.expand_dims(np.arange(num_classes - 1), 0), [n, 1])
    ordinal = np.zeros((n, num_classes - 1), dtype=dtype)
    ordinal[range_values < np.expand_dims(y, -1)] = 1
    return np.reshape(ordinal, input_shape + (num_classes - 1,))
