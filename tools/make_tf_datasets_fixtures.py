"""Records tf.keras 2.15's `datasets.*.load_data` on small local files, and `to_ordinal` /
`warmstart_embedding_matrix` on fixed inputs.

The dataset files come from tests/keras/datasets/_dataset_files.py (the same bytes the tests
serve); TF's own `get_file` reads them from `file://` URLs (no network, hashes skipped).
Run with a Python that has `tensorflow-cpu==2.15` (never a dependency of the package or of
its tests):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_datasets_fixtures.py

It writes `tests/keras/datasets/fixtures/tf_datasets_2.15.json` and
`tests/keras/utils/fixtures/tf_utils_misc_2.15.json`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile

import numpy as np
import tensorflow as tf
from keras.src.datasets import boston_housing, cifar100, fashion_mnist, imdb, mnist, reuters
from keras.src.utils import data_utils

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "keras", "datasets"))
import _dataset_files  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "keras", "datasets", "fixtures", "tf_datasets_2.15.json")
OUT_UTILS = os.path.join(HERE, "..", "tests", "keras", "utils", "fixtures",
                         "tf_utils_misc_2.15.json")

IMDB_CASES = [
    {}, {"num_words": 8}, {"skip_top": 5}, {"num_words": 10, "skip_top": 4, "oov_char": None},
    {"maxlen": 7}, {"start_char": None, "index_from": 2},
    {"seed": 7, "start_char": 9, "oov_char": 3, "index_from": 5, "num_words": 12},
    {"maxlen": 2},
]
REUTERS_CASES = [
    {}, {"test_split": 0.5}, {"num_words": 9, "skip_top": 3}, {"maxlen": 6},
    {"oov_char": None, "num_words": 10}, {"seed": 1, "index_from": 0, "start_char": 7},
]
BOSTON_CASES = [{}, {"test_split": 0.3, "seed": 5}, {"test_split": 0.0}]


def describe(array: np.ndarray) -> dict:
    """dtype, shape and content of an array (lists for object arrays, else a sha256)."""
    out = {"dtype": str(array.dtype), "shape": list(array.shape)}
    if array.dtype == object:
        out["values"] = [list(map(int, x)) for x in array]
    elif array.size <= 64:
        out["values"] = array.tolist()
    else:
        out["sha256"] = hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()
    return out


def run(fn, **kwargs) -> dict:
    try:
        (x_train, y_train), (x_test, y_test) = fn(**kwargs)
    except ValueError as e:
        return {"kwargs": kwargs, "error": "ValueError", "message": str(e)}
    return {"kwargs": kwargs, "x_train": describe(x_train), "y_train": describe(y_train),
            "x_test": describe(x_test), "y_test": describe(y_test)}


def main() -> None:
    tmp = tempfile.mkdtemp()
    paths = _dataset_files.write_all(os.path.join(tmp, "src"))
    real_get_file = data_utils.get_file

    def local_get_file(fname=None, origin=None, file_hash=None, **kwargs):
        name = origin.rsplit("/", 1)[-1]
        return real_get_file(fname, origin="file://" + paths[name],
                             cache_dir=os.path.join(tmp, "cache"), **kwargs)

    for module in (boston_housing, cifar100, fashion_mnist, imdb, mnist, reuters):
        module.get_file = local_get_file

    result = {
        "imdb": [run(imdb.load_data, **case) for case in IMDB_CASES],
        "reuters": [run(reuters.load_data, **case) for case in REUTERS_CASES],
        "boston_housing": [run(boston_housing.load_data, **case) for case in BOSTON_CASES],
        "mnist": [run(mnist.load_data)],
        "fashion_mnist": [run(fashion_mnist.load_data)],
        "cifar100": [run(cifar100.load_data, label_mode=m) for m in ("fine", "coarse")],
        "imdb_word_index": imdb.get_word_index(),
        "reuters_word_index": reuters.get_word_index(),
        "reuters_label_names": list(reuters.get_label_names()),
    }
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1)

    utils = {"to_ordinal": [], "warmstart": []}
    for y, num_classes in (([0, 1, 2, 3], None), ([[1], [0], [2]], None), ([[0, 2], [1, 1]], 4),
                           ([3, 0], 5)):
        out = tf.keras.utils.to_ordinal(y, num_classes=num_classes)
        utils["to_ordinal"].append({"y": y, "num_classes": num_classes,
                                    "dtype": str(out.dtype), "out": out.tolist()})
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    for init in ("zeros", "ones", {"class_name": "Constant", "config": {"value": 7.5}}):
        out = tf.keras.utils.warmstart_embedding_matrix(
            ["a", "b", "c", "d"], ["d", "x", "b", "a", "y"], base,
            new_embeddings_initializer=tf.keras.initializers.get(init))
        utils["warmstart"].append({"init": init, "dtype": out.dtype.name, "out": out.numpy().tolist()})
    with open(OUT_UTILS, "w") as f:
        json.dump(utils, f, indent=1)
    print("wrote", OUT, OUT_UTILS)


if __name__ == "__main__":
    main()
