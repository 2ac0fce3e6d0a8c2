"""Shared parts of the IMDB and Reuters loaders: keyword checks and the word index."""

from __future__ import annotations

import json
import logging
from typing import Any

from torchestimator.keras.utils._data_utils import get_file

_log = logging.getLogger("torchestimator")


def pop_num_words(num_words: int | None, kwargs: dict[str, Any], sep: str) -> int | None:
    """Accepts the old `nb_words` keyword (with a warning) and rejects any other one."""
    if "nb_words" in kwargs:
        _log.warning("The `nb_words` argument in `load_data` has been renamed `num_words`.")
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {str(kwargs)}{sep}")
    return num_words


def load_word_index(path: str, origin: str, file_hash: str) -> dict[str, int]:
    """Downloads (once) and reads a JSON word index `{word: id}`."""
    path = get_file(path, origin=origin, file_hash=file_hash)
    with open(path, encoding="utf-8") as f:
        index = json.load(f)
    if not isinstance(index, dict):
        raise ValueError(
            f"{path} is not a word index: expected a JSON object of word -> id, found a "
            f"{type(index).__name__}. Delete it and download it again."
        )
    return index
