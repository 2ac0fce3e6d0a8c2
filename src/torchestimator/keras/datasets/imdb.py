"""IMDB sentiment classification dataset (`tf.keras.datasets.imdb`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from torchestimator.keras.datasets import _common, _text
from torchestimator.keras.datasets._safe_pickle import load_npz
from torchestimator.keras.utils._data_utils import get_file

_FILE_NAME = "imdb.npz"
_FILE_HASH = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
_WORD_INDEX_NAME = "imdb_word_index.json"
_WORD_INDEX_HASH = "bfafd718b763782e994055a2d397834f"

__all__ = ["get_word_index", "load_data"]


def load_data(
    path: str = "imdb.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Loads the IMDB dataset.

    This is a dataset of 25,000 movie reviews, labeled by sentiment (positive/negative).
    Reviews have been preprocessed, and each review is encoded as a list of word indexes
    (integers), words indexed by overall frequency in the dataset. As a convention, "0" does
    not stand for a specific word, but instead is used to encode the pad token.

    Args:
        path: where to cache the data (relative to `~/.keras/datasets`).
        num_words: integer or None. Words are ranked by how often they occur (in the training
            set) and only the `num_words` most frequent words are kept. Any less frequent word
            will appear as `oov_char` value in the sequence data. If None, all words are kept.
        skip_top: skip the top N most frequently occurring words (which may not be
            informative). These words will appear as `oov_char` value in the dataset.
        maxlen: int or None. Maximum sequence length. Any longer sequence will be dropped.
        seed: int. Seed for reproducible data shuffling.
        start_char: int. The start of a sequence will be marked with this character.
        oov_char: int. The out-of-vocabulary character. Words that were cut out because of the
            `num_words` or `skip_top` limits will be replaced with this character (dropped
            when None).
        index_from: int. Index actual words with this index and higher.
        **kwargs: only `nb_words`, the old name of `num_words`.

    Returns:
        Tuple of NumPy arrays: `(x_train, y_train), (x_test, y_test)`. `x_train`, `x_test`:
        object arrays of lists of word indices; `y_train`, `y_test`: int64 labels (1 or 0).

    Raises:
        ValueError: in case `maxlen` is so low that no input sequence could be kept.
    """
    num_words = _text.pop_num_words(num_words, kwargs, ".")
    path = get_file(path, origin=_common.ORIGIN_FOLDER + _FILE_NAME, file_hash=_FILE_HASH)
    arrays = load_npz(path)
    x_train, labels_train = _common.take(arrays, "x_train", path), _common.take(arrays, "y_train", path)
    x_test, labels_test = _common.take(arrays, "x_test", path), _common.take(arrays, "y_test", path)

    rng = np.random.RandomState(seed)
    indices = np.arange(len(x_train))
    rng.shuffle(indices)
    x_train, labels_train = x_train[indices], labels_train[indices]
    indices = np.arange(len(x_test))
    rng.shuffle(indices)
    x_test, labels_test = x_test[indices], labels_test[indices]

    x_train = _common.shift_ids(x_train, start_char, index_from)
    x_test = _common.shift_ids(x_test, start_char, index_from)
    if maxlen:
        x_train, labels_train = _common.remove_long_seq(maxlen, x_train, labels_train)
        x_test, labels_test = _common.remove_long_seq(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(
                f"After filtering for sequences shorter than maxlen={str(maxlen)}, no sequence "
                "was kept. Increase maxlen."
            )
    xs = _common.apply_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    idx = len(x_train)
    x_train, y_train = np.array(xs[:idx], dtype="object"), labels[:idx]
    x_test, y_test = np.array(xs[idx:], dtype="object"), labels[idx:]
    return (x_train, y_train), (x_test, y_test)


def get_word_index(path: str = "imdb_word_index.json") -> dict[str, int]:
    """Retrieves a dict mapping words to their index in the IMDB dataset.

    Args:
        path: where to cache the data (relative to `~/.keras/datasets`).

    Returns:
        The word index dictionary. Keys are word strings, values are their index (the ids in
        `load_data`'s sequences are these plus `index_from`).
    """
    return _text.load_word_index(path, _common.ORIGIN_FOLDER + _WORD_INDEX_NAME, _WORD_INDEX_HASH)
