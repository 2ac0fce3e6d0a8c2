"""Boston housing price regression dataset (`tf.keras.datasets.boston_housing`)."""

from __future__ import annotations

import numpy as np

from torchestimator.keras.datasets import _common
from torchestimator.keras.datasets._safe_pickle import load_npz
from torchestimator.keras.utils._data_utils import get_file

_FILE_NAME = "boston_housing.npz"
_FILE_HASH = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"

__all__ = ["load_data"]


def load_data(
    path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Loads the Boston Housing dataset.

    This is a dataset taken from the StatLib library which is maintained at Carnegie Mellon
    University: 506 samples of 13 attributes of houses at different locations around the
    Boston suburbs in the late 1970s; the targets are the median values of the houses at a
    location (in k$).

    Args:
        path: path where to cache the dataset locally (relative to `~/.keras/datasets`).
        test_split: fraction of the data to reserve as test set, in `[0, 1)`.
        seed: random seed for shuffling the data before computing the test split.

    Returns:
        Tuple of NumPy arrays: `(x_train, y_train), (x_test, y_test)`: float64 `x` of shape
        `(num_samples, 13)` and float64 `y` of shape `(num_samples,)` (404 train and 102 test
        samples by default).
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"`test_split` must be in [0, 1). Received: test_split={test_split}.")
    path = get_file(path, origin=_common.ORIGIN_FOLDER + _FILE_NAME, file_hash=_FILE_HASH)
    arrays = load_npz(path)
    x, y = _common.take(arrays, "x", path), _common.take(arrays, "y", path)

    rng = np.random.RandomState(seed)
    indices = np.arange(len(x))
    rng.shuffle(indices)
    x, y = x[indices], y[indices]
    split = int(len(x) * (1 - test_split))
    x_train, y_train = np.array(x[:split]), np.array(y[:split])
    x_test, y_test = np.array(x[split:]), np.array(y[split:])
    return (x_train, y_train), (x_test, y_test)
