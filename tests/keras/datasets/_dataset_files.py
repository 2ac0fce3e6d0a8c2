"""Small files in the real formats of Keras' datasets, written with plain numpy/gzip/pickle.

Shared by the tests and by tools/make_tf_datasets_fixtures.py (which runs TF 2.15's loaders
on the same files). Every array is fixed (seeded), so both sides see the same bytes.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import tarfile

import numpy as np


def _sequences(rng: np.random.RandomState, n: int, vocab: int, max_len: int) -> np.ndarray:
    seqs = [list(map(int, rng.randint(1, vocab, size=rng.randint(2, max_len)))) for _ in range(n)]
    out = np.empty(n, dtype=object)
    out[:] = seqs
    return out


def imdb_arrays() -> dict[str, np.ndarray]:
    """`imdb.npz`'s arrays: object arrays of word-id lists and int64 labels."""
    rng = np.random.RandomState(1)
    return {
        "x_train": _sequences(rng, 7, 12, 9), "y_train": rng.randint(0, 2, 7).astype(np.int64),
        "x_test": _sequences(rng, 5, 12, 9), "y_test": rng.randint(0, 2, 5).astype(np.int64),
    }


def reuters_arrays() -> dict[str, np.ndarray]:
    """`reuters.npz`'s arrays: `x` (object array of word-id lists) and int64 `y`."""
    rng = np.random.RandomState(2)
    return {"x": _sequences(rng, 11, 15, 10), "y": rng.randint(0, 46, 11).astype(np.int64)}


def boston_arrays() -> dict[str, np.ndarray]:
    """`boston_housing.npz`'s arrays: float64 `x` (n, 13) and `y` (n,)."""
    rng = np.random.RandomState(3)
    return {"x": rng.rand(17, 13) * 100, "y": rng.rand(17) * 50}


def mnist_arrays() -> dict[str, np.ndarray]:
    """`mnist.npz`'s arrays: uint8 images (n, 28, 28) and uint8 labels."""
    rng = np.random.RandomState(4)
    return {
        "x_train": rng.randint(0, 256, (6, 28, 28)).astype(np.uint8),
        "y_train": rng.randint(0, 10, 6).astype(np.uint8),
        "x_test": rng.randint(0, 256, (3, 28, 28)).astype(np.uint8),
        "y_test": rng.randint(0, 10, 3).astype(np.uint8),
    }


def write_npz(path: str, arrays: dict[str, np.ndarray]) -> str:
    """Writes `arrays` as an `.npz` (object arrays pickled, as numpy does)."""
    np.savez(path, **arrays)
    return path


def write_idx(path: str, array: np.ndarray) -> str:
    """Writes a uint8 array as a gzip'd idx file (magic 0x0801 + ndim, big-endian dims)."""
    header = bytes([0, 0, 8, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())
    return path


def fashion_arrays() -> dict[str, np.ndarray]:
    """The four Fashion-MNIST idx files' arrays, by file name."""
    rng = np.random.RandomState(5)
    return {
        "train-labels-idx1-ubyte.gz": rng.randint(0, 10, 4).astype(np.uint8),
        "train-images-idx3-ubyte.gz": rng.randint(0, 256, (4, 28, 28)).astype(np.uint8),
        "t10k-labels-idx1-ubyte.gz": rng.randint(0, 10, 2).astype(np.uint8),
        "t10k-images-idx3-ubyte.gz": rng.randint(0, 256, (2, 28, 28)).astype(np.uint8),
    }


def _batch(rng: np.random.RandomState, n: int, label_keys: dict[str, int]) -> dict[bytes, object]:
    batch: dict[bytes, object] = {
        b"batch_label": b"testing batch",
        b"data": rng.randint(0, 256, (n, 3072)).astype(np.uint8),
        b"filenames": [f"img_{i}.png".encode() for i in range(n)],
    }
    for key, classes in label_keys.items():
        batch[key.encode()] = [int(v) for v in rng.randint(0, classes, n)]
    return batch


def cifar10_batches() -> dict[str, dict]:
    """CIFAR-10's six batch dicts (byte keys, as the Python 2 pickles), by file name."""
    rng = np.random.RandomState(6)
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    return {name: _batch(rng, 2 if name != "test_batch" else 3, {"labels": 10}) for name in names}


def cifar100_batches() -> dict[str, dict]:
    """CIFAR-100's `train` and `test` batch dicts."""
    rng = np.random.RandomState(7)
    keys = {"fine_labels": 100, "coarse_labels": 20}
    return {"train": _batch(rng, 4, keys), "test": _batch(rng, 3, keys)}


def write_cifar_tar(path: str, folder: str, batches: dict[str, object]) -> str:
    """Writes `folder/<name>` pickles (protocol 2) into a `.tar.gz` at `path`.

    A value that is `bytes` is written as the member's raw content (for crafted pickles).
    """
    with tarfile.open(path, "w:gz") as tar:
        for name, batch in batches.items():
            data = batch if isinstance(batch, bytes) else pickle.dumps(batch, protocol=2)
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def write_all(directory: str) -> dict[str, str]:
    """Writes every dataset's files into `directory`; returns {file name: path}."""
    os.makedirs(directory, exist_ok=True)
    paths = {
        "mnist.npz": write_npz(os.path.join(directory, "mnist.npz"), mnist_arrays()),
        "imdb.npz": write_npz(os.path.join(directory, "imdb.npz"), imdb_arrays()),
        "reuters.npz": write_npz(os.path.join(directory, "reuters.npz"), reuters_arrays()),
        "boston_housing.npz": write_npz(os.path.join(directory, "boston_housing.npz"),
                                        boston_arrays()),
        "cifar-10-python.tar.gz": write_cifar_tar(
            os.path.join(directory, "cifar-10-python.tar.gz"), "cifar-10-batches-py",
            cifar10_batches()),
        "cifar-100-python.tar.gz": write_cifar_tar(
            os.path.join(directory, "cifar-100-python.tar.gz"), "cifar-100-python",
            cifar100_batches()),
    }
    for name, array in fashion_arrays().items():
        paths[name] = write_idx(os.path.join(directory, name), array)
    for name, index in (("imdb_word_index.json", {"the": 1, "and": 2, "film": 3}),
                        ("reuters_word_index.json", {"the": 1, "of": 2, "said": 3})):
        import json

        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            json.dump(index, f)
        paths[name] = os.path.join(directory, name)
    return paths
