"""Reuters newswire topic classification dataset (`tf.keras.datasets.reuters`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from torchestimator.keras.datasets import _common, _text
from torchestimator.keras.datasets._safe_pickle import load_npz
from torchestimator.keras.utils._data_utils import get_file

_FILE_NAME = "reuters.npz"
_FILE_HASH = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
_WORD_INDEX_NAME = "reuters_word_index.json"
_WORD_INDEX_HASH = "4d44cc38712099c9e383dc6e5f11a921"
_LABEL_NAMES = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply",
    "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas",
    "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin",
    "strategic-metal", "livestock", "retail", "ipi", "iron-steel", "rubber", "heat", "jobs",
    "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead",
)

__all__ = ["get_label_names", "get_word_index", "load_data"]


def load_data(
    path: str = "reuters.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    test_split: float = 0.2,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Loads the Reuters newswire classification dataset.

    This is a dataset of 11,228 newswires from Reuters, labeled over 46 topics. Each
    newswire is encoded as a list of word indexes, words indexed by overall frequency in the
    dataset; "0" is the pad token.

    Args:
        path: where to cache the data (relative to `~/.keras/datasets`).
        num_words: integer or None. Only the `num_words` most frequent words are kept; any
            less frequent word appears as `oov_char`. If None, all words are kept.
        skip_top: skip the top N most frequently occurring words; they appear as `oov_char`.
        maxlen: int or None. Maximum sequence length. Any longer sequence will be dropped.
        test_split: Float between `0.` and `1.`. Fraction of the dataset to be used as test
            data (the last ones after shuffling).
        seed: int. Seed for reproducible data shuffling.
        start_char: int. The start of a sequence will be marked with this character.
        oov_char: int. The out-of-vocabulary character (words dropped when None).
        index_from: int. Index actual words with this index and higher.
        **kwargs: only `nb_words`, the old name of `num_words`.

    Returns:
        Tuple of NumPy arrays: `(x_train, y_train), (x_test, y_test)`. `x_train`, `x_test`:
        object arrays of lists of word indices; `y_train`, `y_test`: int64 topic labels (0-45).
    """
    num_words = _text.pop_num_words(num_words, kwargs, "")
    path = get_file(path, origin=_common.ORIGIN_FOLDER + _FILE_NAME, file_hash=_FILE_HASH)
    arrays = load_npz(path)
    xs, labels = _common.take(arrays, "x", path), _common.take(arrays, "y", path)

    rng = np.random.RandomState(seed)
    indices = np.arange(len(xs))
    rng.shuffle(indices)
    xs, labels = xs[indices], labels[indices]

    xs = _common.shift_ids(xs, start_char, index_from)
    if maxlen:
        xs, labels = _common.remove_long_seq(maxlen, xs, labels)
    xs = _common.apply_vocabulary(xs, num_words, skip_top, oov_char)

    idx = int(len(xs) * (1 - test_split))
    x_train, y_train = np.array(xs[:idx], dtype="object"), np.array(labels[:idx])
    x_test, y_test = np.array(xs[idx:], dtype="object"), np.array(labels[idx:])
    return (x_train, y_train), (x_test, y_test)


def get_word_index(path: str = "reuters_word_index.json") -> dict[str, int]:
    """Retrieves a dict mapping words to their index in the Reuters dataset.

    Actual word indices start from 3, with 3 indices reserved for 0 (padding), 1 (start)
    and 2 (oov). E.g. word index of 'the' is 1, but in the actual training data the index of
    'the' will be 1 + 3 = 4.

    Args:
        path: where to cache the data (relative to `~/.keras/datasets`).

    Returns:
        The word index dictionary. Keys are word strings, values are their index.
    """
    return _text.load_word_index(path, _common.ORIGIN_FOLDER + _WORD_INDEX_NAME, _WORD_INDEX_HASH)


def get_label_names() -> tuple[str, ...]:
    """Returns labels as a tuple of strings with indices matching the training data."""
    return _LABEL_NAMES
