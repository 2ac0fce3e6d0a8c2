"""`EncodedStrings`: a string column that also carries each value's code in a shared dictionary.

A categorical feature column turns every batch's strings into ids (a vocabulary
lookup, a hash bucket, a cross's fingerprint). Even memoized per distinct string
(`feature_column/_string_memo.py`) that is one dict lookup per value per column
per step: about 40 us for a batch of 256, most of a small wide & deep model's
input cost. `from_tensor_slices` data is all known up front, so a string column
with few distinct values is dictionary-encoded once (PyArrow's hash-based
`dictionary_encode`): each value's code (int32) travels with it through shuffle,
batch, take and skip, and a feature column maps the dictionary once and then a
batch's codes with one numpy gather.

The values stay what they were: an object array of `str` (this subclass prints,
compares, converts and pickles as a plain `numpy.ndarray`; arithmetic, comparisons,
`concatenate` and `asarray` give plain arrays). The codes are an addition that is
trusted only while it is known to match:

* indexing (`a[i:j]`, `a[idx]`, `a[mask]`) gives the codes of the selected values
  (views for views, so a view's codes follow its values);
* any array derived otherwise (`reshape`, `astype`, a ufunc, `copy()` aside) has
  no codes, and the consumers fall back to the strings themselves;
* assigning into an array keeps its codes only when the assigned value is an
  `EncodedStrings` over the same dictionary (the shuffle buffer's exchanges);
  anything else drops them;
* the column `from_tensor_slices` keeps is its own copy, read-only (tensors are
  immutable in TF), and every view of an encoded array is read-only: a batch that
  views the source or a cached block cannot be written into, so no array's codes go
  stale behind it. Fresh arrays (a gather, a concatenation, `copy()`: the shuffle
  buffer) stay writable, their codes following the writes as above.

The interface consumers outside `data/` use is `dictionary_codes(value)`: it returns a
`DictionaryCodes` (the codes and the dictionary, frozen together) for an `EncodedStrings` whose
codes are known to match, and None for anything else (a plain array, a derived array, a list).
Nothing outside this module reads the `codes`/`dictionary` attributes of an array: a consumer
asks this one function, so a change here cannot silently switch a consumer's path off.
Invariant the consumers rely on: `dictionary_codes(v).to_numpy()` equals `v` element for element.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from torchestimator.data.string_tensor import StringTensor

#: Columns shorter than this are left as they are (the encoding pays off over many batches).
MIN_ROWS = 1024

#: Encode only when the distinct values are at most this fraction of the values.
MAX_DISTINCT_FRACTION = 0.25


class EncodedStrings(StringTensor):
    """An object array of `str` with `codes` (int32, same shape) indexing `dictionary`.

    `codes` is None when the codes are not known to match the values (see the module doc).
    """

    codes: np.ndarray | None
    dictionary: np.ndarray | None

    def __new__(cls, values: np.ndarray, codes: np.ndarray, dictionary: np.ndarray) -> EncodedStrings:
        out = np.asarray(values).view(cls)
        out.codes = codes
        out.dictionary = dictionary
        return out

    def __array_finalize__(self, obj: Any) -> None:
        self.codes = None  # a derived array knows no codes unless the deriving method sets them
        self.dictionary = None

    def __array_wrap__(self, obj: Any, context: Any = None, return_scalar: bool = False) -> Any:
        arr = np.asarray(obj)  # ufunc results are plain arrays
        return arr[()] if return_scalar else arr

    def __getitem__(self, index: Any) -> Any:
        codes = self.codes
        if codes is not None and type(index) is np.ndarray and index.dtype.kind == "i" and index.ndim:
            # A gather of rows: the values are the dictionary's entries at the gathered codes.
            # The same objects as the column's own, read from the small dictionary instead of
            # from all over the long column (a batch of a shuffled pass: 256 scattered rows).
            selected = codes[index]
            out = self.dictionary[selected].view(EncodedStrings)
            out.codes, out.dictionary = selected, self.dictionary
            return out
        out = super().__getitem__(index)
        if codes is not None and type(out) is EncodedStrings:
            selected = codes[index]
            if selected.shape == out.shape:
                out.codes, out.dictionary = selected, self.dictionary
                if out.base is not None:  # a view: a write through it would leave stale codes
                    out.flags.writeable = False  # in the array it views (a cached block, say)
        return out

    def __setitem__(self, index: Any, value: Any) -> None:
        # through a plain view: numpy's own assignment would take the (read-only) view that
        # `__getitem__` makes of the selected part
        self.view(np.ndarray)[index] = value
        codes = self.codes
        if codes is None:
            return
        if (type(value) is EncodedStrings and value.codes is not None
                and value.dictionary is self.dictionary):
            try:
                codes[index] = value.codes
            except (ValueError, IndexError):  # codes that do not line up: forget them
                self.codes = self.dictionary = None
            return
        self.codes = self.dictionary = None

    def copy(self, order: str = "C") -> EncodedStrings:  # type: ignore[override]
        """A copy of the values and of their codes."""
        out = super().copy(order)
        if self.codes is not None:
            out.codes, out.dictionary = self.codes.copy(order), self.dictionary
        return out

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))

    def __str__(self) -> str:
        return str(self.view(np.ndarray))

    def __reduce__(self) -> Any:
        return self.view(np.ndarray).__reduce__()  # pickles (and copies) as a plain array


class DictionaryCodes(NamedTuple):
    """A dictionary-encoded string column: `codes` (int32, the column's shape) index `dictionary`
    (a 1-D object array of distinct `str`). What `dictionary_codes` returns.

    The dictionary is shared by every batch of one `from_tensor_slices` column, so a consumer may
    remember what it computed for a dictionary by the dictionary's identity.
    """

    codes: np.ndarray
    dictionary: np.ndarray

    def to_numpy(self) -> np.ndarray:
        """Returns the column's values: a new object array of `str` of the codes' shape."""
        return self.dictionary[self.codes]


def dictionary_codes(value: Any) -> DictionaryCodes | None:
    """Returns the dictionary encoding of `value` when it is an `EncodedStrings` whose codes are
    known to match its values (see the module doc); None for anything else, which then takes the
    general path (the strings themselves)."""
    if type(value) is not EncodedStrings:
        return None
    codes = value.codes
    if codes is None or value.dictionary is None:
        return None
    return DictionaryCodes(codes, value.dictionary)


def estimated_distinct(seen: int, sample_size: int, size: int) -> float:
    """The number of distinct values a column of `size` values likely holds, when a sample of
    `sample_size` of them (spread evenly) holds `seen` distinct ones.

    The estimate is the N for which `sample_size` draws from N equally likely values are expected
    to show `seen` distinct ones: N * (1 - exp(-sample_size / N)) = seen, solved by bisection.
    A skewed column (a few frequent values, a long tail) holds more than that, which the encoder's
    final check of the real dictionary catches; what the estimate must not do is turn down a
    column whose sample merely shows a long tail (1,000 Zipf-distributed values show about 600 in
    a sample of 2,048: 30% of the sample, 0.6% of 160,000 rows). `inf` when every sampled value
    is distinct and the sample is not the whole column.
    """
    if sample_size >= size:
        return float(seen)
    if seen >= sample_size:
        return math.inf
    low, high = float(seen), float(seen)
    while high * -math.expm1(-sample_size / high) < seen:  # grow until the expectation passes it
        high *= 2.0
    for _ in range(40):
        mid = (low + high) / 2.0
        if mid * -math.expm1(-sample_size / mid) < seen:
            low = mid
        else:
            high = mid
    return high


def encode(values: np.ndarray) -> EncodedStrings | None:
    """Returns `values` (a numpy array of str, `U` or object dtype, rank 1 or 2) as a read-only
    `EncodedStrings` of Python `str` when it has at least `MIN_ROWS` rows and few distinct values;
    None otherwise (too short, too many distinct values, or not all `str`).

    A `U` array is encoded as it is and its object array is made from the dictionary (cheaper
    than converting it value by value); a sample decides first whether encoding can pay off.
    """
    if (not isinstance(values, np.ndarray) or values.dtype.kind not in "UO"
            or values.ndim not in (1, 2) or values.shape[0] < MIN_ROWS):
        return None
    flat = values.reshape(-1)
    sample = flat[:: max(1, flat.size // 2048)].tolist()
    if values.dtype.kind == "O" and not all(type(v) is str for v in sample):
        return None  # bytes, None or other objects: the general conversion (and its errors)
    if estimated_distinct(len(set(sample)), len(sample), flat.size) > MAX_DISTINCT_FRACTION * flat.size:
        return None
    # imported here: an in-memory pipeline of numbers never loads PyArrow (~0.1 s)
    import pyarrow as pa  # lazy: heavy (pyarrow, 100 ms)
    import pyarrow.compute as pc  # lazy: heavy (pyarrow.compute, 126 ms)

    if flat.dtype.kind == "U" and flat.dtype.itemsize:
        # The fixed-width values as Arrow binary, without a copy: equal strings have equal
        # (zero-padded UCS-4) bytes, and hashing them skips the UTF-8 conversion of every
        # value (~3 ms instead of ~14 for 160,000 short strings).
        flat = np.ascontiguousarray(flat)
        width = flat.dtype.itemsize
        encoded = pc.dictionary_encode(pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(width), flat.size, [None, pa.py_buffer(flat)]))
        entries = encoded.dictionary
        values_of_dictionary = np.frombuffer(entries.buffers()[1], dtype=flat.dtype, count=len(entries),
                                             offset=entries.offset * width).tolist()
    else:
        try:
            encoded = pc.dictionary_encode(pa.array(flat, type=pa.large_string()))
        except (pa.ArrowException, TypeError, ValueError):  # not all str (bytes, None, numbers)
            return None
        values_of_dictionary = None
    if encoded.null_count or len(encoded.dictionary) > MAX_DISTINCT_FRACTION * flat.size:
        return None
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    dictionary = np.empty(len(encoded.dictionary), dtype=object)
    dictionary[:] = encoded.dictionary.to_pylist() if values_of_dictionary is None else values_of_dictionary
    strings = dictionary[codes].reshape(values.shape)  # Python str, shared with the dictionary
    codes = codes.reshape(values.shape)
    out = EncodedStrings(strings, codes, dictionary)
    out.flags.writeable = False
    codes.flags.writeable = False
    return out


def concatenate(columns: Sequence[np.ndarray]) -> np.ndarray:
    """`np.concatenate(columns)`, keeping the codes when every column has them over one dictionary."""
    values = np.concatenate(columns)
    first = columns[0]
    if type(first) is EncodedStrings and first.codes is not None and all(
            type(c) is EncodedStrings and c.codes is not None and c.dictionary is first.dictionary
            for c in columns):
        return EncodedStrings(values, np.concatenate([c.codes for c in columns]), first.dictionary)
    return values
