"""Keras 2.15's `TimeseriesGenerator`, `make_sampling_table` and `skipgrams`
(`tf.keras.preprocessing.sequence`). Randomness is Keras's: NumPy's global generator for a
shuffled `TimeseriesGenerator`, Python's `random` for `skipgrams`."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from torchestimator.keras.utils._data_utils import Sequence


class TimeseriesGenerator(Sequence):
    """Utility class for generating batches of temporal data.

    Takes a sequence of data points gathered at equal intervals, along with time series
    parameters such as stride, length of history, etc., to produce batches for
    training/validation. Batch `i` is `(samples, targets)`: `samples[k]` is
    `data[row - length:row:sampling_rate]` (reversed with `reverse=True`) and `targets[k]` is
    `targets[row]`, for rows from `start_index + length` to `end_index` every `stride` steps
    (or `batch_size` random rows drawn with NumPy's global generator when `shuffle=True`).
    """

    def __init__(self, data: Any, targets: Any, length: int, sampling_rate: int = 1,
                 stride: int = 1, start_index: int = 0, end_index: int | None = None,
                 shuffle: bool = False, reverse: bool = False, batch_size: int = 128) -> None:
        if len(data) != len(targets):
            raise ValueError(f"Data and targets have to be of same length. Data length is "
                             f"{len(data)} while target length is {len(targets)}")
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        if end_index is None:
            end_index = len(data) - 1
        self.end_index = end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > "
                             f"end_index={self.end_index}` is disallowed, as no part of the "
                             "sequence would be left to be used as current step.")

    def __len__(self) -> int:
        """Number of batches."""
        return ((self.end_index - self.start_index + self.batch_size * self.stride)
                // (self.batch_size * self.stride))

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """Batch `index`: a `(samples, targets)` tuple of arrays."""
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            i = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(i, min(i + self.batch_size * self.stride, self.end_index + 1),
                             self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate]
                            for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def get_config(self) -> dict:
        """Returns the TimeseriesGenerator configuration as a Python dict (`data` and
        `targets` as JSON strings)."""
        def as_json(value: Any, what: str) -> str:
            if type(value).__module__ == np.__name__:
                value = value.tolist()
            try:
                return json.dumps(value)
            except TypeError as e:
                raise TypeError(f"{what} not JSON Serializable:", value) from e

        return {"data": as_json(self.data, "Data"),
                "targets": as_json(self.targets, "Targets"),
                "length": self.length, "sampling_rate": self.sampling_rate,
                "stride": self.stride, "start_index": self.start_index,
                "end_index": self.end_index, "shuffle": self.shuffle, "reverse": self.reverse,
                "batch_size": self.batch_size}

    def to_json(self, **kwargs: Any) -> str:
        """Returns a JSON string `{"class_name": ..., "config": get_config()}`; `kwargs` go to
        `json.dumps`."""
        return json.dumps({"class_name": self.__class__.__name__, "config": self.get_config()},
                          **kwargs)


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> np.ndarray:
    """Generates a word rank-based probabilistic sampling table.

    `sampling_table[i]` is the probability of sampling the i-th most common word of a dataset
    (Zipf's law with the word2vec sampling formula `p = min(1, sqrt(f / sampling_factor) /
    (f / sampling_factor))`). Returns a 1-D float array of length `size`.
    """
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(sequence: Any, vocabulary_size: int, window_size: int = 4,
              negative_samples: float = 1.0, shuffle: bool = True, categorical: bool = False,
              sampling_table: Any = None, seed: int | None = None) -> tuple[list, list]:
    """Generates skipgram word pairs.

    Takes a sequence of word indexes (0 is a non-word and skipped) and returns `couples,
    labels`: `couples` are `[word, context]` pairs, labelled 1 when `context` lies within
    `window_size` of `word` and 0 for `negative_samples` times as many random pairs (contexts
    drawn from `[1, vocabulary_size - 1]` with Python's `random`); labels are `[0, 1]` /
    `[1, 0]` when `categorical`. With `shuffle`, both lists are shuffled the same way with
    `seed`.
    """
    couples: list = []
    labels: list = []
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < random.random():
            continue
        window_start = max(0, i - window_size)
        window_end = min(len(sequence), i + window_size + 1)
        for j in range(window_start, window_end):
            if j != i:
                wj = sequence[j]
                if not wj:
                    continue
                couples.append([wi, wj])
                labels.append([0, 1] if categorical else 1)
    if negative_samples > 0:
        num_negative_samples = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [[words[i % len(words)], random.randint(1, vocabulary_size - 1)]
                    for i in range(num_negative_samples)]
        labels += ([[1, 0]] if categorical else [0]) * num_negative_samples
    if shuffle:
        if seed is None:
            seed = random.randint(0, 10e6)
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels
