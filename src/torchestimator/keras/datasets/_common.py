"""Helpers shared by the dataset loaders: the Keras download folder and array look-up."""

from __future__ import annotations

from typing import Any

import numpy as np

# Where Keras 2.15 downloads its small datasets from.
ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def take(arrays: dict[str, np.ndarray], key: str, path: str) -> np.ndarray:
    """Returns `arrays[key]`, or raises ValueError naming the file and the arrays it has."""
    if key not in arrays:
        raise ValueError(
            f"The dataset file {path} has no array named {key!r} (it has {sorted(arrays)}). "
            "It is not the file Keras expects: delete it and download it again."
        )
    return arrays[key]


def remove_long_seq(maxlen: int, seq: list, label: Any) -> tuple[list, list]:
    """Keeps the sequences shorter than `maxlen` (strictly) and their labels."""
    new_seq, new_label = [], []
    for x, y in zip(seq, label):
        if len(x) < maxlen:
            new_seq.append(x)
            new_label.append(y)
    return new_seq, new_label


def apply_vocabulary(
    xs: list, num_words: int | None, skip_top: int, oov_char: int | None
) -> list[list[int]]:
    """Replaces (or, when `oov_char` is None, drops) the word ids outside
    `[skip_top, num_words)`; `num_words` defaults to the largest id."""
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def shift_ids(xs: Any, start_char: int | None, index_from: int) -> list[list[int]]:
    """Adds `index_from` to every word id and prepends `start_char` (when not None)."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    if index_from:
        return [[w + index_from for w in x] for x in xs]
    return list(xs)
