"""Fashion-MNIST dataset (`tf.keras.datasets.fashion_mnist`)."""

from __future__ import annotations

import gzip
import os

import numpy as np

from torchestimator.keras.datasets import _common
from torchestimator.keras.utils._data_utils import get_file

_FILES = (
    "train-labels-idx1-ubyte.gz",
    "train-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
)
_LABELS_MAGIC, _IMAGES_MAGIC = 2049, 2051  # the idx headers: unsigned bytes, 1 or 3 dims

__all__ = ["load_data"]


def _read_idx(path: str, magic: int, offset: int) -> np.ndarray:
    """Reads the uint8 payload of a gzip'd idx file after checking its magic number."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    found = int.from_bytes(data[:4], "big") if len(data) >= 4 else None
    if found != magic or len(data) < offset:
        raise ValueError(
            f"{path} is not a gzip'd idx file of uint8 {'labels' if magic == _LABELS_MAGIC else 'images'}: "
            f"expected the magic number {magic}, found {found}. Delete it and download it again."
        )
    return np.frombuffer(data, np.uint8, offset=offset)


def load_data() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Loads the Fashion-MNIST dataset.

    This is a dataset of 60,000 28x28 grayscale images of 10 fashion categories, along with
    a test set of 10,000 images; a drop-in replacement for MNIST. Labels: 0 T-shirt/top,
    1 Trouser, 2 Pullover, 3 Dress, 4 Coat, 5 Sandal, 6 Shirt, 7 Sneaker, 8 Bag,
    9 Ankle boot. The four idx files are cached in `~/.keras/datasets/fashion-mnist/`.

    Returns:
        Tuple of NumPy arrays: `(x_train, y_train), (x_test, y_test)`: uint8 images of shape
        `(60000, 28, 28)` / `(10000, 28, 28)` and uint8 labels of shape `(60000,)` / `(10000,)`.
    """
    dirname = os.path.join("datasets", "fashion-mnist")
    paths = [get_file(f, origin=_common.ORIGIN_FOLDER + f, cache_subdir=dirname) for f in _FILES]
    y_train = _read_idx(paths[0], _LABELS_MAGIC, 8)
    x_train = _read_idx(paths[1], _IMAGES_MAGIC, 16).reshape(len(y_train), 28, 28)
    y_test = _read_idx(paths[2], _LABELS_MAGIC, 8)
    x_test = _read_idx(paths[3], _IMAGES_MAGIC, 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
