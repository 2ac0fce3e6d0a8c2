"""CIFAR100 small images classification dataset (`tf.keras.datasets.cifar100`)."""

from __future__ import annotations

import os

import numpy as np

from torchestimator.keras.backend import image_data_format
from torchestimator.keras.datasets._cifar import load_batch
from torchestimator.keras.utils._data_utils import get_file

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
_FILE_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"

__all__ = ["load_data"]


def load_data(
    label_mode: str = "fine",
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Loads the CIFAR100 dataset.

    This is a dataset of 50,000 32x32 color training images and 10,000 test images,
    labeled over 100 fine-grained classes that are grouped into 20 coarse-grained classes.
    The archive is downloaded once, checked against its sha256 hash and extracted into
    `~/.keras/datasets/cifar-100-python/`; the batches are read without unpickling code.

    Args:
        label_mode: one of "fine", "coarse". If it is "fine" the category labels are the
            fine-grained labels, if it is "coarse" the output labels are the coarse-grained
            superclasses.

    Returns:
        Tuple of NumPy arrays: `(x_train, y_train), (x_test, y_test)`: uint8 images of shape
        `(50000, 32, 32, 3)` / `(10000, 32, 32, 3)` (`(N, 3, 32, 32)` when
        `image_data_format()` is 'channels_first') and int64 labels (as Keras 2.15 returns
        them) of shape `(50000, 1)` / `(10000, 1)`.
    """

    if label_mode not in ["fine", "coarse"]:
        raise ValueError(
            '`label_mode` must be one of `"fine"`, `"coarse"`. '
            f"Received: label_mode={label_mode}."
        )
    path = get_file("cifar-100-python", origin=_ORIGIN, untar=True, file_hash=_FILE_HASH)
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=label_mode + "_labels")
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=label_mode + "_labels")

    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
