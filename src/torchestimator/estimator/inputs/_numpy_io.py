"""`numpy_input_fn`: feeds a dict of numpy arrays (or one array) to an Estimator."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from torchestimator.estimator.inputs._feeding import check_shuffle, check_sizes, make_dataset

_TARGET_KEY = "__target_key__"
_DIRECT_KEY = "__direct_np_input__"


def _unique_target_key(features: dict) -> str:
    key = _TARGET_KEY
    while key in features:
        key += "_n"
    return key


def _ordered_features(x: Any) -> OrderedDict:
    """`x` as an OrderedDict sorted by key (TF's order); raises as TF does."""
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return OrderedDict(sorted(x.items(), key=lambda item: item[0]))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return OrderedDict({_DIRECT_KEY: x})
    raise TypeError(f"x must be a dict or array; got {type(x).__name__}")


def numpy_input_fn(x: Any, y: Any = None, batch_size: int = 128, num_epochs: int | None = 1,
                   shuffle: bool | None = None, queue_capacity: int = 1000,
                   num_threads: int = 1) -> Callable[[], Any]:
    """Returns input function that would feed dict of numpy arrays into the model.

    The input function returns a `tf.data.Dataset` of `(features, targets)` batches (of
    `features` alone when `y` is None): `features` is a dict with the keys of `x` (the batch
    tensor itself when `x` is an array), `targets` has the keys of `y` when `y` is a dict. As
    TF's queue, rows are read in order across epochs (a batch may span two epochs); only the
    last batch of the last epoch may hold fewer than `batch_size` rows; with
    `num_epochs=None` it repeats forever.

    Args:
      x: numpy array object or dict of numpy array objects. If an array, the array will be
        treated as a single feature.
      y: numpy array object or dict of numpy array object. `None` if absent.
      batch_size: Integer, size of batches to return.
      num_epochs: Integer, number of epochs to iterate over data. If `None` will run forever.
      shuffle: Boolean, if True shuffles the queue. Avoid shuffle at prediction time.
      queue_capacity: Integer, size of queue to accumulate (the shuffle buffer).
      num_threads: Integer, number of threads used for reading and enqueueing (accepted;
        reading is deterministic).

    Returns:
      Function, that has signature of ()->(dict of `features`, `targets`)

    Raises:
      ValueError: if the shape of `y` mismatches the shape of values in `x`, if duplicate
        keys are in both `x` and `y` when `y` is a dict, if x or y is an empty dict, or if
        `shuffle` is not provided or not a bool.
      TypeError: `x` is not a dict or array.
    """
    check_shuffle(shuffle)
    check_sizes(batch_size, num_epochs, queue_capacity, num_threads)

    def input_fn() -> Any:
        """Numpy input function."""
        data = _ordered_features(x)
        data = OrderedDict((k, np.asarray(v)) for k, v in data.items())
        feature_keys = list(data)
        if y is None:
            target_keys: Any = None
        elif isinstance(y, dict):
            if not y:
                raise ValueError("y cannot be empty dict, use None instead.")
            ordered_y = OrderedDict(sorted(y.items(), key=lambda item: item[0]))
            target_keys = list(ordered_y)
            duplicates = set(feature_keys) & set(target_keys)
            if duplicates:
                raise ValueError(f"{len(duplicates)} duplicate keys are found in both x and y: {duplicates}")
            data.update((k, np.asarray(v)) for k, v in ordered_y.items())
        else:
            target_keys = _unique_target_key(data)
            data[target_keys] = np.asarray(y)
        if len({v.shape[0] if v.ndim else None for v in data.values()}) != 1:
            shapes_x = {k: data[k].shape for k in feature_keys}
            if target_keys is None:
                shape_y = None
            elif isinstance(target_keys, str):
                shape_y = data[target_keys].shape
            else:
                shape_y = {k: data[k].shape for k in target_keys}
            raise ValueError("Length of tensors in x and y is mismatched. All elements in x and y "
                             "must have the same length.\n"
                             f"Shapes in x: {shapes_x}\nShapes in y: {shape_y}\n")
        dataset = make_dataset(data, batch_size, num_epochs, shuffle, queue_capacity)
        return dataset.map(lambda batch: _split(batch, feature_keys, target_keys, isinstance(x, np.ndarray)))

    return input_fn


def _split(batch: dict, feature_keys: list, target_keys: Any, direct: bool) -> Any:
    features = batch[_DIRECT_KEY] if direct else {k: batch[k] for k in feature_keys}
    if target_keys is None:
        return features
    if isinstance(target_keys, str):
        return features, batch[target_keys]
    return features, {k: batch[k] for k in target_keys}
