"""The string values a dataset hands to its user: a string tensor's `.numpy()`, as in TF.

TensorFlow's tutorials read a batch of text with `text_batch.numpy()[i]` and a line of a
`TextLineDataset` with `line.numpy()`: TF's string tensor turns into a NumPy object array of
`bytes` (a `bytes` for a scalar). Here string data stays NumPy arrays of `str` (and a scalar
a `str`) all along the pipeline; at the end, `iter(dataset)` gives its string components as

* `StringTensor`, an object array of `str` (a `numpy.ndarray` subclass) that prints,
  compares, indexes, converts and pickles as the plain array, with one addition: `.numpy()`,
  TF's reading, a plain object array of the values' UTF-8 `bytes`;
* `StringScalar`, a `str` with the same `.numpy()` (the UTF-8 `bytes`).

Arithmetic, comparisons, ufuncs and `np.asarray` give plain arrays; slicing gives a
`StringTensor`, an item a `StringScalar` (a `str`). `EncodedStrings` (a column with its dictionary codes) is a
`StringTensor` too.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _utf8(value: Any) -> Any:
    return value.encode("utf-8") if isinstance(value, str) else value


class StringTensor(np.ndarray):
    """A string tensor's value: an object array of `str` whose `numpy()` is TF's (an object
    array of `bytes`). Otherwise it behaves as a plain `numpy.ndarray`."""

    def __array_wrap__(self, obj: Any, context: Any = None, return_scalar: bool = False) -> Any:
        arr = np.asarray(obj)  # ufunc results are plain arrays
        return arr[()] if return_scalar else arr

    def __getitem__(self, key: Any) -> Any:
        item = super().__getitem__(key)
        return StringScalar(item) if type(item) is str else item  # `t[0].numpy()`, as TF

    def numpy(self) -> np.ndarray:
        """Returns the strings as TF's `Tensor.numpy()` does: a NumPy object array of the
        values' UTF-8 `bytes`, of the same shape (a new array); a 0-d one gives the `bytes`."""
        plain = self.view(np.ndarray)
        if plain.ndim == 0:  # a scalar string tensor: its bytes, as TF
            return _utf8(plain.item())
        out = np.empty(plain.shape, dtype=object)
        out.reshape(-1)[:] = [_utf8(v) for v in plain.reshape(-1).tolist()]
        return out

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))

    def __str__(self) -> str:
        return str(self.view(np.ndarray))

    def __reduce__(self) -> Any:
        return self.view(np.ndarray).__reduce__()  # pickles (and copies) as a plain array


class StringScalar(str):
    """A scalar string tensor's value: a `str` whose `numpy()` is TF's (the UTF-8 `bytes`)."""

    __slots__ = ()

    def numpy(self) -> bytes:
        """Returns the string as TF's `Tensor.numpy()` does: its UTF-8 `bytes`."""
        return self.encode("utf-8")

    def __reduce__(self) -> Any:
        return (str, (str(self),))  # pickles as a plain str


def for_user(value: Any) -> Any:
    """A string component as the user receives it: an array of strings as a `StringTensor`
    (a view, no copy), a `str` as a `StringScalar`; anything else as it is."""
    if isinstance(value, np.ndarray):
        if isinstance(value, StringTensor) or value.dtype.kind not in "OUS":
            return value
        return value.view(StringTensor)
    if type(value) is str:
        return StringScalar(value)
    return value
