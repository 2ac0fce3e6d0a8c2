"""Keras 2.15's legacy text utilities (`keras/preprocessing/text.py`): `Tokenizer`,
`tokenizer_from_json`, `text_to_word_sequence`, `one_hot` and `hashing_trick`.

Pure Python and numpy, with Keras's exact rules: words are split after lower-casing and
replacing every `filters` character by `split`; the word index ranks words by decreasing
count (ties keep first-seen order, Python's stable sort), starting at 1 (the `oov_token`,
when given, is 1); `num_words` keeps indices below `num_words`.
"""

from __future__ import annotations

import collections
import hashlib
import json
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence",
           "tokenizer_from_json"]

DEFAULT_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'
_MODES = ("binary", "count", "tfidf", "freq")


def text_to_word_sequence(input_text: str, filters: str = DEFAULT_FILTERS, lower: bool = True,
                          split: str = " ") -> list[str]:
    """Converts a text to a sequence of words (or tokens).

    Args:
        input_text: Input text (string).
        filters: list (or concatenation) of characters to filter out, such as punctuation.
            Default includes basic punctuation, tabs, and newlines.
        lower: whether to convert the input to lowercase.
        split: str. Separator for word splitting.

    Returns:
        A list of words (or tokens); empty tokens are dropped.
    """
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in input_text.split(split) if word]


def hashing_trick(text: str, n: int, hash_function: Any = None,
                  filters: str = DEFAULT_FILTERS, lower: bool = True, split: str = " ",
                  analyzer: Callable[[str], list[str]] | None = None) -> list[int]:
    """Converts a text to a sequence of indexes in a fixed-size hashing space.

    Args:
        text: Input text (string).
        n: Dimension of the hashing space.
        hash_function: `None` (Python's `hash`, salted per process unless
            `PYTHONHASHSEED` is set), `'md5'` (stable), or any function taking a string
            and returning an int.
        filters: characters to filter out of the text, such as punctuation.
        lower: Whether to set the text to lowercase.
        split: str. Separator for word splitting.
        analyzer: function used to split the text into words instead of the above.

    Returns:
        A list of integer word indices in `[1, n - 1]` (unicity non-guaranteed).
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(word: str) -> int:
            return int(hashlib.md5(word.encode()).hexdigest(), 16)
    words = analyzer(text) if analyzer is not None else text_to_word_sequence(
        text, filters=filters, lower=lower, split=split)
    return [hash_function(word) % (n - 1) + 1 for word in words]


def one_hot(input_text: str, n: int, filters: str = DEFAULT_FILTERS, lower: bool = True,
            split: str = " ", analyzer: Callable[[str], list[str]] | None = None) -> list[int]:
    """One-hot encodes a text into a list of word indexes of size `n`: a wrapper of
    `hashing_trick` using `hash` as the hashing function (unicity of word to index mapping
    non-guaranteed).

    Returns:
        A list of integers in `[1, n - 1]`, one per word.
    """
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower,
                         split=split, analyzer=analyzer)


class Tokenizer:
    """Text tokenization utility class.

    This class allows to vectorize a text corpus, by turning each text into either a
    sequence of integers (each integer being the index of a token in a dictionary) or into
    a vector where the coefficient for each token could be binary, based on word count,
    based on tf-idf...

    Args:
        num_words: the maximum number of words to keep, based on word frequency. Only the
            most common `num_words - 1` words will be kept.
        filters: a string where each element is a character that will be filtered from the
            texts. The default is all punctuation, plus tabs and line breaks, minus the `'`
            character.
        lower: boolean. Whether to convert the texts to lowercase.
        split: str. Separator for word splitting.
        char_level: if True, every character will be treated as a token.
        oov_token: if given, it will be added to word_index and used to replace
            out-of-vocabulary words during text_to_sequence calls.
        analyzer: function used to split a text into words (instead of `filters`,
            `lower` and `split`).

    By default, all punctuation is removed, turning the texts into space-separated
    sequences of words (words maybe include the `'` character). These sequences are then
    split into lists of tokens. They will then be indexed or vectorized. `0` is a reserved
    index that won't be assigned to any word.
    """

    def __init__(self, num_words: int | None = None, filters: str = DEFAULT_FILTERS,
                 lower: bool = True, split: str = " ", char_level: bool = False,
                 oov_token: str | None = None,
                 analyzer: Callable[[str], list[str]] | None = None, **kwargs: Any):
        if "nb_words" in kwargs:
            warnings.warn("The `nb_words` argument in `Tokenizer` has been renamed `num_words`.",
                          stacklevel=2)
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts: dict = collections.OrderedDict()
        self.word_docs: dict = collections.defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs: dict = collections.defaultdict(int)
        self.word_index: dict = {}
        self.index_word: dict = {}
        self.analyzer = analyzer

    def _tokens(self, text: Any) -> Any:
        """The tokens of one text: its characters (char_level) or the items of a list as
        they are (lower-cased when `lower`), else its words."""
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower,
                                     split=self.split)

    def fit_on_texts(self, texts: Iterable[Any]) -> None:
        """Updates internal vocabulary based on a list of texts (strings, or lists of
        tokens). Required before using `texts_to_sequences` or `texts_to_matrix`."""
        for text in texts:
            self.document_count += 1
            tokens = self._tokens(text)
            for w in tokens:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(tokens):
                self.word_docs[w] += 1
        counts = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = ([] if self.oov_token is None else [self.oov_token]) + [w for w, _ in counts]
        self.word_index = dict(zip(vocabulary, range(1, len(vocabulary) + 1)))
        self.index_word = {i: w for w, i in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences: list[list[int]]) -> None:
        """Updates internal vocabulary based on a list of sequences (required before
        `sequences_to_matrix` when `fit_on_texts` was never called)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts: Iterable[Any]) -> list[list[int]]:
        """Transforms each text in texts to a sequence of integers. Only the top
        `num_words - 1` most frequent words are taken into account; only words known by
        the tokenizer are taken into account. Returns a list of sequences."""
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts: Iterable[Any]) -> Iterator[list[int]]:
        """Transforms each text in `texts` to a sequence of integers; yields one sequence
        per text."""
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._tokens(text):
                i = self.word_index.get(w)
                if i is not None:
                    if num_words and i >= num_words:
                        if oov_index is not None:
                            vect.append(oov_index)
                    else:
                        vect.append(i)
                elif self.oov_token is not None:
                    vect.append(oov_index)
            yield vect

    def sequences_to_texts(self, sequences: Iterable[Iterable[int]]) -> list[str]:
        """Transforms each sequence into a text (words joined by spaces). Only the top
        `num_words - 1` most frequent words are taken into account. Returns a list of
        texts."""
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences: Iterable[Iterable[int]]) -> Iterator[str]:
        """Transforms each sequence in `sequences` to a text; yields one string per
        sequence."""
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is not None:
                    if num_words and num >= num_words:
                        if oov_index is not None:
                            vect.append(self.index_word[oov_index])
                    else:
                        vect.append(word)
                elif self.oov_token is not None:
                    vect.append(self.index_word[oov_index])
            yield " ".join(vect)

    def texts_to_matrix(self, texts: Iterable[Any], mode: str = "binary") -> np.ndarray:
        """Converts a list of texts to a Numpy matrix of shape `(len(texts), num_words)`
        (float64), in `mode` one of "binary", "count", "tfidf", "freq"."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences: list[list[int]], mode: str = "binary") -> np.ndarray:
        """Converts a list of sequences into a Numpy matrix of shape
        `(len(sequences), num_words)` (float64), in `mode` one of "binary", "count",
        "tfidf", "freq"."""
        if not self.num_words:
            if not self.word_index:
                raise ValueError(
                    "Specify a dimension (`num_words` argument), or fit on some text data "
                    "first."
                )
            num_words = len(self.word_index) + 1
        else:
            num_words = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts: dict = collections.defaultdict(int)
            for j in seq:
                if j < num_words:
                    counts[j] += 1
            for j, c in list(counts.items()):
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = (1 + np.log(c)) * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def get_config(self) -> dict[str, Any]:
        """Returns the tokenizer configuration as a Python dictionary (the word counts and
        indices as JSON strings, as Keras)."""
        return {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs: Any) -> str:
        """Returns a JSON string containing the tokenizer configuration (`kwargs` go to
        `json.dumps`); load it with `tokenizer_from_json`."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """Parses a JSON tokenizer configuration (from `Tokenizer.to_json()`) and returns a
    `Tokenizer` instance. Only data is read: no code from the string runs."""
    config = dict(json.loads(json_string).get("config"))
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = word_counts
    tokenizer.word_docs = word_docs
    tokenizer.index_docs = index_docs
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer
