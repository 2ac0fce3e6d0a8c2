"""`tf.lookup`'s tables: key-value initializers and the static and mutable hash tables.

Keys are strings (numpy arrays of `str`; bytes are decoded as UTF-8) or integers (int64);
values are torch tensors (or numpy `str` arrays for string values). A lookup keeps the
shape of its keys. A static table is filled once from its initializer (two different values
for one key raise `FailedPreconditionError`, as TF); `StaticVocabularyTable` maps a key
outside the vocabulary to `vocab_size + Fingerprint64(key) % num_oov_buckets` (integers
hashed through their decimal string), bit-identical to TF.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes, errors


class TextFileIndex:
    """The special column indices of `TextFileInitializer`: the whole line, or the line number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


def _is_string_dtype(dtype: Any) -> bool:
    return dtype is _dtypes.string


def _key_array(keys: Any, dtype: Any, where: str) -> np.ndarray:
    """`keys` as a numpy array of `str` (string dtype) or int64."""
    if isinstance(keys, torch.Tensor):
        keys = keys.detach().cpu().numpy()
    array = np.asarray(keys, dtype=object if _is_string_dtype(dtype) else None)
    if _is_string_dtype(dtype):
        flat = [k.decode("utf-8") if isinstance(k, bytes) else k for k in array.reshape(-1).tolist()]
        if not all(isinstance(k, str) for k in flat):
            bad = next(k for k in flat if not isinstance(k, str))
            raise TypeError(f"{where}: keys must be strings for a table of string keys; received {bad!r}.")
        return np.array(flat, dtype=object).reshape(array.shape)
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"{where}: keys must be integers for a table of {_dtypes.as_dtype(dtype)} keys; received "
            f"dtype {array.dtype}."
        )
    return array.astype(np.int64)


def _value_array(values: Any, dtype: Any) -> Any:
    if _is_string_dtype(dtype):
        array = np.asarray(values.detach().cpu().numpy() if isinstance(values, torch.Tensor) else values, dtype=object)
        return np.array([v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in array.reshape(-1)],
                        dtype=object).reshape(array.shape)
    return torch.as_tensor(np.asarray(values) if not isinstance(values, torch.Tensor) else values,
                           dtype=_dtypes.as_dtype(dtype))


def _infer_dtype(values: Any) -> Any:
    if isinstance(values, torch.Tensor):
        return values.dtype
    array = np.asarray(values)
    if array.dtype.kind in "USO":
        return _dtypes.string
    if array.dtype.kind in "iu":
        return torch.int64
    if array.dtype.kind == "f":
        return torch.float32
    if array.dtype.kind == "b":
        return torch.bool
    raise TypeError(f"Cannot infer a table dtype from values of numpy dtype {array.dtype}.")


def _arrow(keys: np.ndarray) -> Any:
    import pyarrow as pa  # loaded on first lookup: importing tf.data must not load pyarrow.compute  # lazy: heavy (pyarrow, 1557 ms)

    flat = keys.reshape(-1)
    return pa.array(flat.tolist(), type=pa.string()) if flat.dtype == object else pa.array(flat, type=pa.int64())


def vocabulary_ids(values: Any, vocab: Any, num_oov_buckets: int, default_value: int) -> np.ndarray:
    """The vocabulary index of each of `values` (Arrow strings or int64), or its out-of-vocabulary
    id: `len(vocab) + Fingerprint64(value) % num_oov_buckets` when there are OOV buckets, else
    `default_value` (TF's vocabulary lookup)."""
    import pyarrow as pa  # lazy: heavy (pyarrow, 1557 ms)
    import pyarrow.compute as pc  # lazy: heavy (pyarrow.compute, 839 ms)

    from torchestimator import _hashing  # lazy: heavy (torchestimator._hashing, 743 ms)

    if not isinstance(values, pa.Array):
        values = pa.array(values, type=pa.int64())
    found = pc.index_in(values, value_set=vocab)
    ids = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    oov = ids < 0
    if oov.any():
        if num_oov_buckets:
            oov_idx = np.nonzero(oov)[0]
            missing = values.take(pa.array(oov_idx))
            ids[oov_idx] = len(vocab) + _hashing.hash_bucket(missing, num_oov_buckets)
        else:
            ids[oov] = default_value
    return ids


# ---------------------------------------------------------------------------------------------
# Initializers
# ---------------------------------------------------------------------------------------------


class KeyValueTensorInitializer:
    """Table initializer given `keys` and `values` tensors (`tf.lookup.KeyValueTensorInitializer`)."""

    def __init__(self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None,
                 name: str | None = None):
        self._key_dtype = _dtypes.as_dtype(key_dtype) if key_dtype is not None else _infer_dtype(keys)
        self._value_dtype = _dtypes.as_dtype(value_dtype) if value_dtype is not None else _infer_dtype(values)
        self._keys = _key_array(keys, self._key_dtype, "KeyValueTensorInitializer")
        self._values = _value_array(values, self._value_dtype)
        if self._keys.shape[:1] != tuple(self._values.shape[:1]) or self._keys.ndim != 1:
            raise ValueError(
                f"KeyValueTensorInitializer: keys and values must be 1-D of one length; got keys of shape "
                f"{self._keys.shape} and values of shape {tuple(self._values.shape)}."
            )
        self._name = name or "key_value_init"

    @property
    def key_dtype(self) -> Any:
        """The expected table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self) -> Any:
        """The expected table value dtype."""
        return self._value_dtype

    def _pairs(self) -> tuple[np.ndarray, Any]:
        return self._keys, self._values


class TextFileInitializer:
    """Table initializer from a text file, one entry per line (`tf.lookup.TextFileInitializer`).

    `key_index` and `value_index` are the 0-based column of the line split at `delimiter`,
    or `TextFileIndex.WHOLE_LINE` (-2) or `TextFileIndex.LINE_NUMBER` (-1, plus
    `value_index_offset` for values). `vocab_size` reads only the first lines (an error when
    the file has fewer).
    """

    def __init__(self, filename: Any, key_dtype: Any, key_index: int, value_dtype: Any, value_index: int,
                 vocab_size: int | None = None, delimiter: str = "\t", name: str | None = None,
                 value_index_offset: int = 0):
        if not isinstance(filename, (str, bytes, os.PathLike)) or not os.fsdecode(filename):
            raise ValueError(f"TextFileInitializer: filename must be a non-empty path; received {filename!r}.")
        for argument, index in (("key_index", key_index), ("value_index", value_index)):
            if isinstance(index, bool) or not isinstance(index, int) or index < TextFileIndex.WHOLE_LINE:
                raise ValueError(f"TextFileInitializer: invalid {argument} {index!r}; give a column >= 0, "
                                 "TextFileIndex.WHOLE_LINE (-2) or TextFileIndex.LINE_NUMBER (-1).")
        if vocab_size is not None and (isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 0):
            raise ValueError(f"TextFileInitializer: invalid vocab_size {vocab_size!r}; give an int > 0.")
        self._filename = os.fsdecode(filename)
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        if key_index == TextFileIndex.LINE_NUMBER and self._key_dtype is not torch.int64:
            raise ValueError("TextFileInitializer: key_dtype must be int64 when key_index is LINE_NUMBER; "
                             f"received {self._key_dtype}.")
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._offset = int(value_index_offset)
        self._name = name or "text_file_init"

    key_dtype = KeyValueTensorInitializer.key_dtype
    value_dtype = KeyValueTensorInitializer.value_dtype

    def _pairs(self) -> tuple[np.ndarray, Any]:
        from torchestimator._engine import gfile  # lazy: heavy (fsspec, 330 ms)

        with gfile.GFile(self._filename, "r") as f:
            lines = f.read().splitlines()
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise errors.InvalidArgumentError(
                    None, None, f"Invalid vocab_size in {self._filename}: expected {self._vocab_size} lines, "
                    f"the file has {len(lines)}.")
            lines = lines[: self._vocab_size]
        keys = [self._column(line, n, self._key_index, 0, "key") for n, line in enumerate(lines)]
        values = [self._column(line, n, self._value_index, self._offset, "value") for n, line in enumerate(lines)]
        return (_key_array([self._cast(k, self._key_dtype) for k in keys], self._key_dtype, self._filename),
                _value_array([self._cast(v, self._value_dtype) for v in values], self._value_dtype))

    def _column(self, line: str, number: int, index: int, offset: int, what: str) -> Any:
        if index == TextFileIndex.LINE_NUMBER:
            return number + offset
        if index == TextFileIndex.WHOLE_LINE:
            return line
        parts = line.split(self._delimiter)
        if index >= len(parts):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {self._filename} line {number} ({line!r}): "
                f"the {what} column {index} does not exist (the line has {len(parts)}).")
        return parts[index]

    def _cast(self, value: Any, dtype: Any) -> Any:
        if _is_string_dtype(dtype) or not isinstance(value, str):
            return value
        try:
            return float(value) if torch.empty((), dtype=dtype).is_floating_point() else int(value)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Field {value!r} in {self._filename} is not a valid {dtype}.") from None


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------


class _Table:
    """What every table has: dtypes, name, size, lookup by exact key."""

    _name: str

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, name: str | None):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        if not (_is_string_dtype(self._key_dtype) or self._key_dtype in (torch.int64, torch.int32)):
            raise TypeError(f"{type(self).__name__}: keys must be strings or integers; key_dtype is {self._key_dtype}.")
        self._default = _value_array(default_value, self._value_dtype)
        self._name = name or type(self).__name__
        self._index: dict[Any, int] = {}
        self._keys: list[Any] = []
        self._values: list[Any] = []

    @property
    def key_dtype(self) -> Any:
        """The table's key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self) -> Any:
        """The table's value dtype."""
        return self._value_dtype

    @property
    def name(self) -> str:
        """The table's name."""
        return self._name

    @property
    def default_value(self) -> Any:
        """The value a missing key maps to."""
        return self._default

    def size(self, name: str | None = None) -> torch.Tensor:
        """The number of elements in the table (int64 scalar)."""
        return torch.tensor(len(self._index), dtype=torch.int64)

    def _live(self) -> tuple[list, list]:
        pairs = [(k, self._values[i]) for k, i in self._index.items()]
        return [k for k, _ in pairs], [v for _, v in pairs]

    def export(self, name: str | None = None) -> tuple[Any, Any]:
        """`(keys, values)` of every entry (string keys as a numpy object array of bytes, as TF)."""
        keys, values = self._live()
        key_out = (np.array([k.encode("utf-8") for k in keys], dtype=object) if _is_string_dtype(self._key_dtype)
                   else torch.tensor(keys, dtype=self._key_dtype).reshape(-1))
        if _is_string_dtype(self._value_dtype):
            value_out = np.array(values, dtype=object)
        elif values:
            value_out = torch.stack([torch.as_tensor(v, dtype=self._value_dtype) for v in values])
        else:
            value_out = torch.empty((0, *tuple(np.shape(self._default))), dtype=self._value_dtype)
        return key_out, value_out

    def _check_keys(self, keys: Any, where: str) -> np.ndarray:
        if isinstance(keys, torch.Tensor) and not _is_string_dtype(self._key_dtype) and keys.is_floating_point():
            raise TypeError(f"{where}: keys must be {self._key_dtype}; received {keys.dtype}.")
        return _key_array(keys, self._key_dtype, f"{type(self).__name__}.{where}")

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """Looks up `keys` in the table; returns the values, in the keys' shape, the default value
        where a key is missing."""
        keys = self._check_keys(keys, "lookup")
        flat = keys.reshape(-1).tolist()
        positions = [self._index.get(k, -1) for k in flat]
        return self._gather(positions, keys.shape, self._default)

    def _gather(self, positions: list[int], shape: tuple, default: Any, defaults: Any = None) -> Any:
        if _is_string_dtype(self._value_dtype):
            fill = [self._values[p] if p >= 0 else (defaults[i] if defaults is not None else str(default))
                    for i, p in enumerate(positions)]
            return np.array(fill, dtype=object).reshape(shape)
        value_shape = tuple(self._default.shape)
        out = torch.empty((len(positions), *value_shape), dtype=self._value_dtype)
        for i, p in enumerate(positions):
            out[i] = self._values[p] if p >= 0 else (defaults[i] if defaults is not None else default)
        return out.reshape(tuple(shape) + value_shape)

    def _fill(self, keys: np.ndarray, values: Any, replace: bool) -> None:
        flat_values = list(values.reshape(-1)) if isinstance(values, np.ndarray) else list(
            values.reshape((len(keys),) + tuple(values.shape[keys.ndim:])))
        for k, v in zip(keys.reshape(-1).tolist(), flat_values):
            if k in self._index:
                i = self._index[k]
                if not replace:
                    old = self._values[i]
                    same = old == v if isinstance(old, str) else bool(torch.equal(torch.as_tensor(old), torch.as_tensor(v)))
                    if not same:
                        raise errors.FailedPreconditionError(
                            None, None, f"HashTable has different value for same key. Key {k} has {_show(old)} "
                            f"and trying to add value {_show(v)}")
                    continue
                self._values[i] = v
            else:
                self._index[k] = len(self._values)
                self._keys.append(k)
                self._values.append(v)


def _show(value: Any) -> str:
    return str(value.item()) if isinstance(value, torch.Tensor) and value.numel() == 1 else str(value)


class StaticHashTable(_Table):
    """A generic hash table that is immutable once initialized (`tf.lookup.StaticHashTable`).

    Example:

        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), default_value=-1)
        table.lookup(tf.constant(["a", "c"]))  # [1, -1]
    """

    def __init__(self, initializer: Any, default_value: Any, name: str | None = None,
                 experimental_is_anonymous: bool = False):
        if not isinstance(initializer, (KeyValueTensorInitializer, TextFileInitializer)):
            raise TypeError(f"StaticHashTable: initializer must be a KeyValueTensorInitializer or "
                            f"TextFileInitializer; received {initializer!r}.")
        super().__init__(initializer.key_dtype, initializer.value_dtype, default_value, name)
        self._initializer = initializer
        keys, values = initializer._pairs()
        self._fill(keys, values, replace=False)

    @property
    def initializer(self) -> Any:
        """The table's initializer."""
        return self._initializer


class StaticVocabularyTable(_Table):
    """String or integer keys to int64 ids, with out-of-vocabulary buckets
    (`tf.lookup.StaticVocabularyTable`): a key of the vocabulary gets its value, any other
    `vocab_size + Fingerprint64(key) % num_oov_buckets`."""

    def __init__(self, initializer: Any, num_oov_buckets: int, lookup_key_dtype: Any = None,
                 name: str | None = None, experimental_is_anonymous: bool = False):
        if isinstance(num_oov_buckets, bool) or not isinstance(num_oov_buckets, (int, np.integer)) or num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer is None:
            raise ValueError("StaticVocabularyTable: initializer must not be None.")
        if initializer.value_dtype is not torch.int64:
            raise TypeError(f"StaticVocabularyTable: the initializer's values must be int64 ids; received "
                            f"{initializer.value_dtype}.")
        key_dtype = initializer.key_dtype
        if lookup_key_dtype is not None and not _is_string_dtype(key_dtype):
            key_dtype = _dtypes.as_dtype(lookup_key_dtype)
        super().__init__(key_dtype, torch.int64, -1, name)
        self._num_oov_buckets = int(num_oov_buckets)
        keys, values = initializer._pairs()
        self._fill(keys, values, replace=False)
        ids = torch.tensor([int(v) for v in self._values], dtype=torch.int64)
        self._vocab = _arrow(np.asarray(self._keys, dtype=object if _is_string_dtype(key_dtype) else np.int64))
        self._ids = ids
        self._dense_ids = bool(torch.equal(ids, torch.arange(len(ids))))  # the ids are the positions

    def size(self, name: str | None = None) -> torch.Tensor:
        """The vocabulary size plus the number of OOV buckets (int64 scalar)."""
        return torch.tensor(len(self._index) + self._num_oov_buckets, dtype=torch.int64)

    def lookup(self, keys: Any, name: str | None = None) -> torch.Tensor:
        """The id of every key (int64, in the keys' shape)."""
        keys = self._check_keys(keys, "lookup")
        positions = vocabulary_ids(_arrow(keys), self._vocab, self._num_oov_buckets, -1)
        size = len(self._index)
        known = positions < size
        out = positions.copy()
        if not self._dense_ids:  # the ids are the initializer's values, not positions
            out[known] = self._ids.numpy()[positions[known]]
        return torch.from_numpy(out).reshape(keys.shape)


class MutableHashTable(_Table):
    """A generic mutable hash table (`tf.lookup.experimental.MutableHashTable`): `insert`
    adds or replaces entries, `remove` deletes them."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, name: str = "MutableHashTable",
                 checkpoint: bool = True, experimental_is_anonymous: bool = False):
        super().__init__(key_dtype, value_dtype, default_value, name)
        self._checkpoint = bool(checkpoint)

    def insert(self, keys: Any, values: Any, name: str | None = None) -> None:
        """Associates `keys` with `values` (replacing earlier values)."""
        keys = self._check_keys(keys, "insert")
        self._fill(keys, _value_array(values, self._value_dtype), replace=True)

    def remove(self, keys: Any, name: str | None = None) -> None:
        """Removes `keys` and their values; keys not in the table are ignored."""
        for k in self._check_keys(keys, "remove").reshape(-1).tolist():
            self._index.pop(k, None)

    def lookup(self, keys: Any, dynamic_default_values: Any = None, name: str | None = None) -> Any:
        """The values of `keys`; a missing key gets `dynamic_default_values` at its position
        when given, else the table's default value."""
        keys = self._check_keys(keys, "lookup")
        positions = [self._index.get(k, -1) for k in keys.reshape(-1).tolist()]
        defaults = None
        if dynamic_default_values is not None:
            dyn = _value_array(dynamic_default_values, self._value_dtype)
            defaults = list(dyn.reshape(-1)) if isinstance(dyn, np.ndarray) else list(
                dyn.reshape((len(positions),) + tuple(self._default.shape)))
        return self._gather(positions, keys.shape, self._default, defaults)


class DenseHashTable(MutableHashTable):
    """A mutable hash table with open addressing in TF (`tf.lookup.experimental.DenseHashTable`):
    `empty_key` and `deleted_key` are reserved and may not be inserted. `export` returns the
    entries (this table does not expose its buckets)."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, empty_key: Any, deleted_key: Any,
                 initial_num_buckets: int | None = None, name: str = "MutableDenseHashTable",
                 checkpoint: bool = True, experimental_is_anonymous: bool = False):
        super().__init__(key_dtype, value_dtype, default_value, name, checkpoint)
        self._reserved = set(_key_array([empty_key, deleted_key], self._key_dtype, "DenseHashTable").tolist())
        if len(self._reserved) != 2:
            raise errors.InvalidArgumentError(None, None, "DenseHashTable: empty_key and deleted_key must differ.")

    def _check_keys(self, keys: Any, where: str) -> np.ndarray:
        array = super()._check_keys(keys, where)
        if where != "lookup":
            bad = self._reserved.intersection(array.reshape(-1).tolist())
            if bad:
                raise errors.InvalidArgumentError(
                    None, None, f"DenseHashTable.{where}: key {sorted(bad)[0]!r} is the table's empty_key or "
                    "deleted_key, which may not be used.")
        return array

    def insert_or_assign(self, keys: Any, values: Any, name: str | None = None) -> None:
        """Associates `keys` with `values` (as `insert`)."""
        self.insert(keys, values)

    def erase(self, keys: Any, name: str | None = None) -> None:
        """Removes `keys` (as `remove`)."""
        self.remove(keys)
