"""CIFAR10 small images classification dataset (`tf.keras.datasets.cifar10`)."""

from __future__ import annotations

import os

import numpy as np

from torchestimator.keras.backend import image_data_format
from torchestimator.keras.datasets._cifar import load_batch
from torchestimator.keras.utils._data_utils import get_file

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
_FILE_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"

__all__ = ["load_data"]


def load_data() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Loads the CIFAR10 dataset.

    This is a dataset of 50,000 32x32 color training images and 10,000 test images,
    labeled over 10 categories (0 airplane, 1 automobile, 2 bird, 3 cat, 4 deer, 5 dog,
    6 frog, 7 horse, 8 ship, 9 truck). The archive is downloaded once, checked against its
    sha256 hash and extracted into `~/.keras/datasets/cifar-10-batches-py/`; the batches are
    read without unpickling code.

    Returns:
        Tuple of NumPy arrays: `(x_train, y_train), (x_test, y_test)`: uint8 images of shape
        `(50000, 32, 32, 3)` / `(10000, 32, 32, 3)` (`(N, 3, 32, 32)` when
        `image_data_format()` is 'channels_first') and uint8 labels of shape `(50000, 1)` /
        `(10000, 1)`.
    """

    path = get_file("cifar-10-batches-py", origin=_ORIGIN, untar=True, file_hash=_FILE_HASH)
    xs, ys = [], []
    for i in range(1, 6):
        data, labels = load_batch(os.path.join(path, "data_batch_" + str(i)))
        xs.append(data.astype("uint8", copy=False))
        ys.append(np.asarray(labels).astype("uint8"))
    x_train, y_train = np.concatenate(xs), np.concatenate(ys)
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))

    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    x_test = x_test.astype(x_train.dtype)
    y_test = y_test.astype(y_train.dtype)
    return (x_train, y_train), (x_test, y_test)
