"""Per-value memos of string lookups, for dense string features in small batches.

A batch of a few hundred strings spends most of its time in the fixed cost of
each vectorized call (numpy -> Arrow, cast, `index_in`, FarmHash), not in the
strings themselves. A string's vocabulary id, hash bucket or Fingerprint64 is
a pure function of the string, so each column remembers the answers it has
computed: after the first batches, a batch of a dense string feature (a numpy
array of Python `str`, shape (batch,) or (batch, k), as `tf.data` and pandas
give) costs one dict lookup per value. New strings are computed with the
vectorized path, a batch at a time. A memo stops learning at `capacity`
distinct strings (features with more distinct values, such as ids, then take
the vectorized path for the strings it has not seen).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from torchestimator import _hashing
from torchestimator.data.encoded_strings import dictionary_codes

#: The id a memo gives '' (a missing value, dropped as TF drops it from dense string input).
MISSING = int(np.iinfo(np.int64).min)

#: The most distinct strings one memo remembers.
DEFAULT_CAPACITY = 1 << 18

#: The most dictionaries (of dictionary-encoded input columns) one memo remembers the answers of.
_DICTIONARIES_REMEMBERED = 64


@dataclasses.dataclass
class DenseStrings:
    """A dense string feature, row-major: `array` (a numpy array of str) of `batch_size` x
    `width`; with `codes` (row-major int32) into `dictionary` when the input pipeline
    dictionary-encoded the column (`data.encoded_strings.dictionary_codes`)."""

    array: np.ndarray
    batch_size: int
    width: int
    codes: np.ndarray | None = None
    dictionary: np.ndarray | None = None

    @functools.cached_property
    def values(self) -> list:
        """The values as a flat list of str (made when first read: encoded input needs none)."""
        return self.array.reshape(-1).tolist()


def dense_strings(value: Any) -> DenseStrings | None:
    """Returns `value` as `DenseStrings` when it is a numpy array of `str` of rank 1 or 2, else None.

    Only the first value's type is checked here; a memo falls back (returns
    None) when it meets a value that is not a `str`.
    """
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "OU" or value.ndim not in (1, 2):
        return None
    if value.size == 0:
        return None
    if value.dtype.kind == "O" and type(value.flat[0]) is not str:  # a 'U' array holds str only
        return None
    width = 1 if value.ndim == 1 else int(value.shape[1])
    encoding = dictionary_codes(value)  # `data/`'s one accessor for dictionary-encoded columns
    if encoding is not None:
        return DenseStrings(value, int(value.shape[0]), width, encoding.codes.reshape(-1),
                            encoding.dictionary)
    return DenseStrings(value, int(value.shape[0]), width)


@dataclasses.dataclass(frozen=True)
class DictionaryAnswers:
    """A memo's answers for the values of one input dictionary, in dictionary order; `all_valid`:
    every answer is a valid id (no missing value, none negative), so the ids of a batch's codes
    need no checks."""

    values: np.ndarray
    all_valid: bool


class StringMemo:
    """Remembers `compute`'s answer for each string it has seen.

    Args:
        compute: maps a large_string Arrow array of distinct, non-missing
            strings to one integer per string (a numpy array).
        dtype: the numpy dtype of the answers (int64 ids, uint64 fingerprints).
        missing: the answer for '' without calling `compute` (None: computed
            like any other string).
        capacity: the most strings remembered.
    """

    def __init__(
        self,
        compute: Callable[[pa.Array], np.ndarray],
        dtype: Any = np.int64,
        missing: int | None = MISSING,
        capacity: int = DEFAULT_CAPACITY,
    ) -> None:
        self._compute = compute
        self._dtype = np.dtype(dtype)
        self._table: dict[str, int] = {} if missing is None else {"": missing}
        self._capacity = capacity
        # id(dictionary) -> (dictionary, the answers of its values), for dictionary-encoded input
        self._by_dictionary: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self._table)

    def lookup_dense(self, strings: DenseStrings) -> np.ndarray | None:
        """Returns the answer of every value of `strings` (see `lookup`). With codes, the
        dictionary is looked up once (remembered by identity) and the values are its answers
        gathered by code."""
        if strings.codes is None or strings.dictionary is None:
            return self.lookup(strings.values)
        answers = self.dictionary_answers(strings.dictionary)
        return None if answers is None else answers.values[strings.codes]

    def dictionary_answers(self, dictionary: np.ndarray) -> DictionaryAnswers | None:
        """The answers of every value of an input column's `dictionary` (an object array of str),
        computed once per dictionary (remembered by identity); None when a value is not a `str`."""
        seen = self._by_dictionary.get(id(dictionary))
        if seen is None or seen[0] is not dictionary:
            values = self.lookup(dictionary.tolist())
            if values is None:
                return None
            if len(self._by_dictionary) >= _DICTIONARIES_REMEMBERED:
                self._by_dictionary.clear()
            answers = DictionaryAnswers(values, bool(values.size == 0 or (
                self._dtype.kind == "i" and values.min() >= 0)))
            seen = self._by_dictionary[id(dictionary)] = (dictionary, answers)
        return seen[1]

    def lookup(self, strings: list) -> np.ndarray | None:
        """Returns the answer of every string in `strings`, or None when one is not a `str`."""
        table = self._table
        try:
            return np.fromiter(map(table.__getitem__, strings), self._dtype, count=len(strings))
        except KeyError:
            pass
        new = [s for s in dict.fromkeys(strings) if s not in table]
        if any(type(s) is not str for s in new):
            return None
        answers = self._compute(pa.array(new, type=pa.large_string())).tolist()
        if len(table) + len(new) <= self._capacity:
            table.update(zip(new, answers))
            return np.fromiter(map(table.__getitem__, strings), self._dtype, count=len(strings))
        known = dict(zip(new, answers))
        return np.fromiter(
            (table[s] if s in table else known[s] for s in strings), self._dtype, count=len(strings)
        )


#: Fingerprint64 of the strings seen by crosses (a pure function of the string, shared by all columns).
FINGERPRINTS = StringMemo(_hashing.fingerprint64, dtype=np.uint64, missing=None)
