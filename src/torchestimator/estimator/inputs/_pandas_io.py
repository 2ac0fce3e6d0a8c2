"""`pandas_input_fn`: feeds a pandas DataFrame to an Estimator."""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from torchestimator.estimator.inputs._feeding import check_shuffle, check_sizes, make_dataset


def _unique_target_key(features: Any, name: str) -> str:
    if name in features:
        name += "_" + str(uuid.uuid4())
    return name


def _column(series: Any) -> np.ndarray:
    values = series.to_numpy()
    if values.dtype == object:  # strings: a numpy array of str, as the package's string tensors
        return np.asarray([v.decode() if isinstance(v, bytes) else v for v in values], dtype=object)
    return values


def pandas_input_fn(x: Any, y: Any = None, batch_size: int = 128, num_epochs: int | None = 1,
                    shuffle: bool | None = None, queue_capacity: int | None = 1000,
                    num_threads: int = 1, target_column: str = "target") -> Callable[[], Any]:
    """Returns input function that would feed Pandas DataFrame into the model.

    Note: `y`'s index must match `x`'s index. The input function returns a `tf.data.Dataset`
    of `(features, target)` batches (`features` alone when `y` is None): `features` is a dict
    with one tensor per column of `x`; `target` is a tensor (a dict keyed by `y`'s columns
    when `y` is a DataFrame). Batching and epochs are `numpy_input_fn`'s.

    Args:
      x: pandas `DataFrame` object.
      y: pandas `Series` object or `DataFrame`. `None` if absent.
      batch_size: int, size of batches to return.
      num_epochs: int, number of epochs to iterate over data. If `None`, repeats forever.
      shuffle: bool, whether to read the records in random order.
      queue_capacity: int, size of the read queue (the shuffle buffer). If `None`, it will
        be set roughly to the size of `x`.
      num_threads: Integer, number of threads used for reading and enqueueing (accepted).
      target_column: str, name to give the target column `y`. This parameter is not used
        when `y` is a `DataFrame`.

    Returns:
      Function, that has signature of ()->(dict of `features`, `target`)

    Raises:
      ValueError: if `x` already contains a column with the same name as `y`, if the
        indexes of `x` and `y` don't match, or if `shuffle` is not provided or not a bool.
      TypeError: if pandas is not installed or `target_column` is not a string.
    """
    try:
        import pandas as pd  # lazy: optional extra (pandas)
    except ImportError:
        raise TypeError("pandas_input_fn should not be called without pandas installed") from None
    check_shuffle(shuffle)
    if not isinstance(target_column, str):
        raise TypeError("target_column must be a string type")
    if not isinstance(x, pd.DataFrame):
        raise TypeError(f"x must be a pandas DataFrame; got {type(x).__name__}")
    check_sizes(batch_size, num_epochs, queue_capacity, num_threads)
    x = x.copy()
    y_columns: list | None = None
    if y is not None:
        if target_column in x:
            raise ValueError(f"Cannot use name {target_column} for target column: DataFrame already "
                             f"has a column with that name: {x.columns}")
        if not np.array_equal(x.index, y.index):
            raise ValueError(f"Index for x and y are mismatched.\nIndex for x: {x.index}\n"
                             f"Index for y: {y.index}\n")
        if isinstance(y, pd.DataFrame):
            y_columns = [(column, _unique_target_key(x, column)) for column in list(y)]
            for column, key in y_columns:
                x[key] = y[column]
        else:
            x[target_column] = y
    if queue_capacity is None:
        queue_capacity = max(1, 4 * len(x) if shuffle else len(x))
    names = [str(c) for c in x.columns]

    def input_fn() -> Any:
        """Pandas input function."""
        columns = OrderedDict((name, _column(x[c])) for name, c in zip(names, x.columns))
        dataset = make_dataset(columns, batch_size, num_epochs, shuffle, queue_capacity)
        return dataset.map(_splitter(y is not None, y_columns, target_column))

    return input_fn


def _splitter(has_y: bool, y_columns: list | None, target_column: str) -> Callable:
    def split(batch: dict) -> Any:
        features = dict(batch)
        if not has_y:
            return features
        if y_columns is not None:
            return features, {column: features.pop(key) for column, key in y_columns}
        return features, features.pop(target_column)

    return split
