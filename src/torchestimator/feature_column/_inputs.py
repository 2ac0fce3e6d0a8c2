"""Raw feature values -> the arrays the columns compute on.

A raw feature in the `features` dict may be:
  * a torch tensor or numpy array of shape (batch,) or (batch, k) — numbers,
    or numpy `str`/`bytes`/object arrays for strings;
  * a Python list of scalars (one value per example), or a ragged list of
    lists (several values per example: a multivalent feature);
  * a PyArrow array or list array, or a pandas Series.

Categorical features become `RawSparse`: only the present values, in
row-major order, with their row and position. As in TensorFlow's dense
inputs, `''` (strings) and `-1` (integers) mark a missing value and are
dropped; None in a list is missing too. All of this is vectorized with numpy
and PyArrow: no Python loop runs per value (a ragged Python list is turned
into Arrow once, in C).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import torch

from torchestimator import _hashing
from torchestimator._sparse_tensor import SparseTensor


@dataclasses.dataclass
class RawSparse:
    """The present values of a categorical feature with their (row, position).

    `values` is a PyArrow large_string array (strings) or an int64 numpy array.
    """

    values: Any
    rows: np.ndarray
    cols: np.ndarray
    batch_size: int
    width: int
    is_string: bool
    dense: bool = True
    parent: RawSparse | None = None
    parent_index: np.ndarray | None = None
    fingerprints: np.ndarray | None = dataclasses.field(default=None, repr=False)


HOST_READ = "_torchestimator_read_on_host"  # set on a device tensor a categorical column read


def mark_read_on_host(value: torch.Tensor) -> None:
    """Marks a device tensor that a categorical column had to read back to the host (its ids,
    vocabulary lookups and hashing run there): the Estimator then keeps that feature on the
    host in later steps, so only the ids cross to the device, once."""
    try:
        setattr(value, HOST_READ, True)
    except (AttributeError, TypeError):  # a tensor subclass that takes no attributes
        pass


def fingerprints(raw: RawSparse) -> np.ndarray:
    """Returns (and remembers) FarmHash Fingerprint64 of each of `raw`'s values.

    Values read from the same feature share the work: a subset (missing values
    dropped) takes its fingerprints from its parent's.
    """
    if raw.fingerprints is None:
        if raw.parent is not None:
            raw.fingerprints = fingerprints(raw.parent)[raw.parent_index]
        else:
            raw.fingerprints = _hashing.fingerprint64(raw.values)
    return raw.fingerprints


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, torch.Tensor):
        return f"a torch tensor of dtype {str(value.dtype).replace('torch.', '')} and shape {tuple(value.shape)}"
    if isinstance(value, np.ndarray):
        return f"a numpy array of dtype {value.dtype} and shape {value.shape}"
    return f"a {type(value).__name__}"


def batch_size_of(value: Any) -> int | None:
    """Returns the number of examples (first dimension) of a raw feature, or None."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        return int(value.shape[0]) if value.ndim else None
    if isinstance(value, SparseTensor):
        return int(value.dense_shape[0]) if len(value.dense_shape) else None
    try:
        return len(value)
    except TypeError:
        return None


def _is_ragged_list(value: Any) -> bool:
    """True for a list (or 1-D object array) whose examples are lists (checks the first few)."""
    if isinstance(value, np.ndarray):
        if value.dtype != object or value.ndim != 1 or not len(value):
            return False
        head = value[:8].tolist()
    elif isinstance(value, (list, tuple)):
        head = value[:8]
    else:
        return False
    return any(isinstance(v, (list, tuple, np.ndarray, torch.Tensor)) for v in head)


def _ragged_to_arrow(value: Any, column: str, key: str) -> pa.Array:
    rows = list(value)
    if any(isinstance(v, torch.Tensor) for v in rows[:8]):
        # Keras' __call__ turns a list of numpy arrays into a list of tensors.
        rows = [v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v for v in rows]
    try:
        arr = pa.array(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # Mixed scalars and lists: a scalar is a one-value example.
        fixed = [
            None if v is None else (list(v) if isinstance(v, (list, tuple, np.ndarray, torch.Tensor)) else [v])
            for v in rows
        ]
        try:
            arr = pa.array(fixed)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise ValueError(
                f"Feature {key!r} (column {column!r}) is a ragged list whose values cannot be read "
                f"as one type: {e}. Give every example a list of strings or of integers."
            ) from None
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
        raise ValueError(
            f"Feature {key!r} (column {column!r}) could not be read as a list per example "
            f"(got Arrow type {arr.type})."
        )
    return arr


def _list_array_to_sparse(arr: Any, column: str, key: str) -> tuple[pa.Array, np.ndarray, np.ndarray, int, int]:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    n = len(arr)
    lengths = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = arr.flatten()
    if pa.types.is_list(flat.type) or pa.types.is_large_list(flat.type):
        raise ValueError(
            f"Feature {key!r} (column {column!r}) is nested more than one level deep; give each "
            "example a flat list of values."
        )
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    cols = np.arange(len(rows), dtype=np.int64) - np.repeat(starts, lengths)
    width = int(lengths.max()) if n else 0
    return flat, rows, cols, n, width


def _arrow_values_kind(values: pa.Array) -> str:
    t = values.type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return "string"
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        return "int"
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_floating(t):
        return "float"
    return str(t)


def raw_sparse(
    value: Any, column: str, key: str, want_string: bool | None, drop_missing: bool = True
) -> RawSparse:
    """Reads a categorical feature as `RawSparse`, dropping missing values ('' or -1).

    `want_string` is the column's dtype: True for string columns, False for
    integer ones, None for either. `drop_missing=False` keeps '' and -1 (as
    TF's crossing of a raw feature does). `RawSparse.dense` tells whether the
    input was a dense array (False for ragged lists). Raises ValueError naming
    the column and feature when the values are of the other kind, floats, or
    of rank other than 1 or 2.
    """
    dense = True
    if hasattr(value, "to_numpy") and not isinstance(value, (pa.Array, pa.ChunkedArray, torch.Tensor)):
        value = value.to_numpy()  # pandas Series
    if isinstance(value, SparseTensor):  # tf.io.parse_example's VarLenFeature
        flat, rows, cols, n, width = _sparse_tensor_parts(value, column, key)
        dense = False
    elif isinstance(value, (pa.ChunkedArray, pa.Array)) and (
        pa.types.is_list(value.type) or pa.types.is_large_list(value.type)
    ):
        flat, rows, cols, n, width = _list_array_to_sparse(value, column, key)
        dense = False
    elif _is_ragged_list(value):
        flat, rows, cols, n, width = _list_array_to_sparse(_ragged_to_arrow(value, column, key), column, key)
        dense = False
    else:
        if isinstance(value, torch.Tensor):
            if value.device.type != "cpu":
                mark_read_on_host(value)
            arr = value.detach().cpu().numpy()
        elif isinstance(value, (pa.Array, pa.ChunkedArray)):
            arr = value.to_numpy(zero_copy_only=False)
        else:
            arr = np.asarray(value)
        if arr.ndim == 0 or arr.ndim > 2:
            raise ValueError(
                f"Feature {key!r} (column {column!r}) must have shape (batch,) or (batch, k), or be "
                f"a ragged list of lists; received {_describe(value)}."
            )
        n = int(arr.shape[0])
        width = 1 if arr.ndim == 1 else int(arr.shape[1])
        flat_np = arr.reshape(-1)
        if flat_np.dtype.kind in "iub":
            ints = flat_np.astype(np.int64, copy=False)
            _check_kind("int", want_string, column, key, value)
            present = np.arange(len(ints), dtype=np.int64)
            w = max(width, 1)
            raw = RawSparse(ints, present // w, present % w, n, width, False, True)
            return drop_missing_values(raw) if drop_missing else raw
        if flat_np.dtype.kind == "f":
            _check_kind("float", want_string, column, key, value)
        rows_all = np.arange(len(flat_np), dtype=np.int64)
        flat = _object_to_arrow(flat_np, column, key)
        rows, cols = rows_all // max(width, 1), rows_all % max(width, 1)
    kind = _arrow_values_kind(flat)
    if kind == "null":
        return _empty(n, width, bool(want_string), dense)
    _check_kind(kind, want_string, column, key, value)
    flat = pc.cast(flat, pa.large_string() if kind == "string" else pa.int64())
    if flat.null_count:  # None in a list is missing
        keep = pc.is_valid(flat)
        keep_np = keep.to_numpy(zero_copy_only=False)
        flat = flat.filter(keep)
        rows, cols = rows[keep_np], cols[keep_np]
    values = flat if kind == "string" else flat.to_numpy(zero_copy_only=False).astype(np.int64)
    raw = RawSparse(values, rows, cols, n, width, kind == "string", dense)
    return drop_missing_values(raw) if drop_missing else raw


def _sparse_tensor_parts(value: SparseTensor, column: str, key: str
                         ) -> tuple[pa.Array, np.ndarray, np.ndarray, int, int]:
    """(values as Arrow, rows, cols, batch size, width) of a 2-D `SparseTensor` feature."""
    if len(value.dense_shape) != 2:
        raise ValueError(
            f"Feature {key!r} (column {column!r}) is a SparseTensor of rank "
            f"{len(value.dense_shape)}; categorical columns take rank 2 ([batch, values]).")
    n, width = (int(d) for d in value.dense_shape.tolist())
    indices = value.indices.numpy()
    if isinstance(value.values, np.ndarray):
        flat = _object_to_arrow(value.values, column, key)
    else:
        flat = pa.array(value.values.detach().cpu().numpy())
    return flat, indices[:, 0].copy(), indices[:, 1].copy(), n, width


def drop_missing_values(raw: RawSparse) -> RawSparse:
    """Returns `raw` without its missing values: '' for strings, -1 for integers."""
    if raw.is_string:
        keep_np = pc.greater(pc.binary_length(raw.values), 0).to_numpy(zero_copy_only=False)
    else:
        keep_np = raw.values != -1
    if keep_np.all():
        return raw
    values = raw.values.filter(pa.array(keep_np)) if raw.is_string else raw.values[keep_np]
    return RawSparse(
        values, raw.rows[keep_np], raw.cols[keep_np], raw.batch_size, raw.width, raw.is_string,
        raw.dense, raw, np.nonzero(keep_np)[0],
    )


def _empty(n: int, width: int, is_string: bool, dense: bool) -> RawSparse:
    values = pa.array([], type=pa.large_string()) if is_string else np.zeros(0, np.int64)
    return RawSparse(values, np.zeros(0, np.int64), np.zeros(0, np.int64), n, width, is_string, dense)


def check_raw_kind(raw: RawSparse, want_string: bool | None, column: str, key: str) -> RawSparse:
    """Returns `raw` after checking its kind against a column's dtype (see `raw_sparse`).

    An empty feature (no values at all) fits either kind.
    """
    if want_string is None or raw.is_string == want_string:
        return raw
    if len(raw.values) == 0:
        return _empty(raw.batch_size, raw.width, want_string, raw.dense)
    kind = "string" if raw.is_string else "int"
    _check_kind(kind, want_string, column, key, f"values of {kind} type")
    return raw


def _object_to_arrow(flat: np.ndarray, column: str, key: str) -> pa.Array:
    if flat.dtype.kind == "S":
        return pa.array(flat, type=pa.large_binary())
    try:
        return pa.array(flat, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise ValueError(
            f"Feature {key!r} (column {column!r}) mixes value types ({e}); give strings or "
            "integers, one type per feature."
        ) from None


def _check_kind(kind: str, want_string: bool | None, column: str, key: str, value: Any) -> None:
    if kind in ("string", "int") and want_string is None:
        return
    if kind == "string" and not want_string:
        raise ValueError(
            f"Categorical column {column!r} has an integer dtype, but feature {key!r} holds "
            f"strings ({_describe(value)}). Give integer ids, or declare the column with "
            "dtype=tf.string."
        )
    if kind == "int" and want_string:
        raise ValueError(
            f"Categorical column {column!r} has dtype string, but feature {key!r} holds integers "
            f"({_describe(value)}). Give strings, or declare the column with dtype=tf.int64."
        )
    if kind not in ("string", "int"):
        raise ValueError(
            f"Categorical column {column!r} takes strings or integers, but feature {key!r} holds "
            f"{kind} values ({_describe(value)}). Bucketize floats with bucketized_column, or cast "
            "them to int."
        )


def dense_numeric(value: Any, column: str, key: str) -> torch.Tensor:
    """Reads a numeric feature as a torch tensor of its own numeric dtype.

    Raises ValueError naming the column when the feature holds strings, is
    ragged, or is not numeric.
    """
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bool:
            return value.to(torch.float32)
        return value
    if isinstance(value, SparseTensor):
        raise ValueError(
            f"numeric_column {column!r} needs a dense feature, but feature {key!r} is a "
            "SparseTensor (a VarLenFeature). Parse it with tf.io.FixedLenFeature(shape, dtype, "
            "default_value) or convert it with tf.sparse.to_dense.")
    if hasattr(value, "to_numpy") and not isinstance(value, (pa.Array, pa.ChunkedArray)):
        value = value.to_numpy()
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        value = value.to_numpy(zero_copy_only=False)
    if _is_ragged_list(value):
        arr = _try_regular(value)
        if arr is None:
            raise ValueError(
                f"numeric_column {column!r} needs the same number of values in every example, but "
                f"feature {key!r} is a ragged list. Pad it to a fixed shape, or use "
                "sequence_numeric_column for variable-length sequences."
            )
    else:
        arr = np.asarray(value)
    if arr.dtype.kind in "OUS":
        sample = arr.reshape(-1)[:1].tolist()
        raise ValueError(
            f"numeric_column {column!r} expects numbers, but feature {key!r} holds strings "
            f"(dtype {arr.dtype}, e.g. {sample}). Convert the feature to numbers, or use a "
            "categorical column (categorical_column_with_vocabulary_list / _hash_bucket) for it."
        )
    if arr.dtype.kind not in "iufb":
        raise ValueError(
            f"numeric_column {column!r} expects numbers, but feature {key!r} has dtype {arr.dtype}."
        )
    if arr.dtype.kind == "b":
        arr = arr.astype(np.float32)
    return torch.from_numpy(np.ascontiguousarray(arr))


def _try_regular(value: Any) -> np.ndarray | None:
    lengths = {len(v) if isinstance(v, (list, tuple, np.ndarray)) else -1 for v in value}
    if len(lengths) != 1 or -1 in lengths:
        return None
    return np.asarray([np.asarray(v) for v in value])


def raw_dense_or_ragged_float(value: Any, column: str, key: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads a float feature that may be ragged, padded with zeros.

    Returns (values [batch, width] float32, lengths [batch] int64): a dense
    feature has every position present; a ragged list has its own lengths.
    """
    if isinstance(value, SparseTensor) or (
            isinstance(value, (list, tuple, np.ndarray)) and _is_ragged_list(value)):
        if isinstance(value, SparseTensor):
            flat, rows, cols, n, width = _sparse_tensor_parts(value, column, key)
        else:
            arr = _ragged_to_arrow(value, column, key)
            flat, rows, cols, n, width = _list_array_to_sparse(arr, column, key)
        kind = _arrow_values_kind(flat)
        if kind not in ("int", "float", "null"):
            raise ValueError(
                f"Column {column!r} expects numbers in feature {key!r}, but it holds {kind} values."
            )
        vals = pc.fill_null(pc.cast(flat, pa.float32()), 0.0).to_numpy(zero_copy_only=False)
        out = torch.zeros(n, width, dtype=torch.float32)
        out[torch.from_numpy(rows), torch.from_numpy(cols)] = torch.tensor(vals, dtype=torch.float32)
        lengths = torch.from_numpy(np.bincount(rows, minlength=n).astype(np.int64))
        return out, lengths
    t = dense_numeric(value, column, key).to(torch.float32)
    if t.ndim == 1:
        t = t.reshape(-1, 1)
    elif t.ndim > 2:
        t = t.reshape(t.shape[0], -1)
    lengths = torch.full((t.shape[0],), t.shape[1], dtype=torch.int64)
    return t, lengths
