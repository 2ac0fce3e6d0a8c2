"""MNIST handwritten digits dataset (`tf.keras.datasets.mnist`)."""

from __future__ import annotations

import numpy as np

from torchestimator.keras.datasets import _common
from torchestimator.keras.datasets._safe_pickle import load_npz
from torchestimator.keras.utils._data_utils import get_file

_FILE_NAME = "mnist.npz"
_FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"

__all__ = ["load_data"]


def load_data(
    path: str = "mnist.npz",
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Loads the MNIST dataset.

    This is a dataset of 60,000 28x28 grayscale images of the 10 digits, along with a test
    set of 10,000 images. The file is downloaded once from Keras' storage into
    `~/.keras/datasets/` (or `$KERAS_HOME/datasets/`) and checked against its sha256 hash.

    Args:
        path: path where to cache the dataset locally (relative to `~/.keras/datasets`).

    Returns:
        Tuple of NumPy arrays: `(x_train, y_train), (x_test, y_test)`. `x_train` is uint8 of
        shape `(60000, 28, 28)`, `y_train` uint8 of shape `(60000,)` (digits 0-9); the test
        arrays have 10,000 rows.
    """
    path = get_file(path, origin=_common.ORIGIN_FOLDER + _FILE_NAME, file_hash=_FILE_HASH)
    arrays = load_npz(path)
    x_train, y_train = _common.take(arrays, "x_train", path), _common.take(arrays, "y_train", path)
    x_test, y_test = _common.take(arrays, "x_test", path), _common.take(arrays, "y_test", path)
    return (x_train, y_train), (x_test, y_test)
