"""`tf.SparseTensor`: a batch of values at given positions of a dense shape.

TensorFlow's sparse representation: `indices` (an int64 tensor [N, rank],
row-major order), `values` ([N]: a torch tensor for numbers, a numpy object
array of bytes/str for strings) and `dense_shape` (int64 [rank]).
`tf.io.parse_example` returns one for each `VarLenFeature`, and the feature
columns accept it as a raw feature.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._tensor_shape import TensorShape

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = "TF1's numpy-side value of a SparseTensor (indices, values, dense_shape)."


def _int64_tensor(value: Any, name: str) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        t = value
    else:
        arr = np.asarray(value)
        if arr.dtype.kind not in "iu" and arr.size:
            raise TypeError(f"SparseTensor {name} must be integers; received dtype {arr.dtype}")
        t = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.int64))
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
        raise TypeError(f"SparseTensor {name} must be integers; received dtype {t.dtype}")
    return t.to(torch.int64)


class SparseTensor:
    """A sparse tensor (TF's `tf.sparse.SparseTensor(indices, values, dense_shape)`).

    `indices` is [N, rank] int64, `values` [N] (torch tensor, or numpy object
    array for strings), `dense_shape` [rank] int64. Raises ValueError when the
    three do not agree in size.
    """

    __slots__ = ("indices", "values", "dense_shape")

    def __init__(self, indices: Any, values: Any, dense_shape: Any):
        self.indices = _int64_tensor(indices, "indices")
        self.dense_shape = _int64_tensor(dense_shape, "dense_shape").reshape(-1)
        if isinstance(values, torch.Tensor):
            self.values = values
        else:
            arr = np.asarray(values)
            if arr.dtype.kind in "OUS":
                arr = arr.astype(object) if arr.dtype.kind != "O" else arr
                self.values = arr.reshape(-1)
            else:
                if isinstance(values, (list, tuple)) and arr.dtype in (np.float64, np.int64):
                    arr = arr.astype(np.float32 if arr.dtype == np.float64 else np.int32)
                self.values = torch.from_numpy(np.ascontiguousarray(arr)).reshape(-1)
        if self.indices.numel() == 0:
            self.indices = self.indices.reshape(0, len(self.dense_shape))
        if self.indices.ndim != 2 or self.indices.shape[1] != len(self.dense_shape):
            raise ValueError(
                f"SparseTensor indices must have shape [N, {len(self.dense_shape)}] (the rank of "
                f"dense_shape {self.dense_shape.tolist()}); received {tuple(self.indices.shape)}")
        if self.indices.shape[0] != len(self.values):
            raise ValueError(
                f"SparseTensor has {self.indices.shape[0]} indices but {len(self.values)} values; "
                "give one value per index")

    @classmethod
    def _from_parts(cls, indices: torch.Tensor, values: Any, dense_shape: torch.Tensor
                    ) -> SparseTensor:
        """A SparseTensor of parts already checked (int64 [N, rank], [N], int64 [rank])."""
        out = cls.__new__(cls)
        out.indices, out.values, out.dense_shape = indices, values, dense_shape
        return out

    @classmethod
    def from_value(cls, sparse_tensor_value: Any) -> SparseTensor:
        """A SparseTensor of the parts of `sparse_tensor_value`, a SparseTensor or TF1's
        `tf.compat.v1.SparseTensorValue` (TF's `SparseTensor.from_value`).

        Raises:
            TypeError: `sparse_tensor_value` is neither.
        """
        if not isinstance(sparse_tensor_value, (SparseTensor, SparseTensorValue)):
            raise TypeError(f"Argument sparse_tensor_value={sparse_tensor_value} "
                            "is neither a SparseTensor nor SparseTensorValue.")
        return SparseTensor(indices=sparse_tensor_value.indices,
                            values=sparse_tensor_value.values,
                            dense_shape=sparse_tensor_value.dense_shape)

    def get_shape(self) -> TensorShape:
        """The dense shape as a `tf.TensorShape` (TF's `SparseTensor.get_shape()`)."""
        return TensorShape(self.shape)

    def set_shape(self, shape: Any) -> None:
        """TF's eager `SparseTensor.set_shape(shape)`: a shape assertion. Raises ValueError
        unless the dense shape is compatible with `shape` (a list, tuple or TensorShape whose
        None entries match any size; None for any shape); changes nothing, since an eager
        SparseTensor's dense shape is always fully known."""
        self.get_shape().merge_with(TensorShape(shape))

    def with_values(self, new_values: Any) -> SparseTensor:
        """A SparseTensor with the same `indices` and `dense_shape` and `new_values` as values
        (which may have another dtype, but as many elements: ValueError otherwise)."""
        return SparseTensor(self.indices, new_values, self.dense_shape)

    @property
    def shape(self) -> tuple[int, ...]:
        """The dense shape as a tuple of ints."""
        return tuple(int(d) for d in self.dense_shape.tolist())

    @property
    def dtype(self) -> Any:
        """The dtype of `values` (`tf.string` for strings)."""
        if isinstance(self.values, np.ndarray):
            return _dtypes.string
        return self.values.dtype

    def to_dense(self, default_value: Any = None) -> Any:
        """Returns the dense form (see `tf.sparse.to_dense`)."""
        return to_dense(self, default_value)

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")


def to_dense(sp_input: SparseTensor, default_value: Any = None, validate_indices: bool = True,
             name: str | None = None) -> Any:
    """Converts a `SparseTensor` into a dense tensor (TF's `tf.sparse.to_dense`).

    Positions without a value get `default_value` (0, or b'' for strings).
    Returns a torch tensor, or a numpy object array for strings. Raises
    ValueError when an index lies outside `dense_shape` (`validate_indices`). The dense tensor
    is on the values' device (`tf.sparse.to_dense` also places a host result as TF places ops:
    `sparse/_ops.to_dense`).
    """
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"sp_input must be a SparseTensor; received {type(sp_input).__name__}")
    shape = sp_input.shape
    idx = sp_input.indices
    if validate_indices and idx.numel():
        bad = (idx < 0) | (idx >= sp_input.dense_shape.to(idx.device))
        if bool(bad.any()):
            row = int(bad.any(dim=1).nonzero()[0, 0])
            raise ValueError(f"SparseTensor index {idx[row].tolist()} (entry {row}) is out of "
                             f"bounds for dense_shape {list(shape)}")
    cols = tuple(idx[:, d] for d in range(idx.shape[1]))
    if isinstance(sp_input.values, np.ndarray):
        out = np.empty(shape, dtype=object)
        out[...] = b"" if default_value is None else default_value
        if len(sp_input.values):
            out[tuple(c.numpy() for c in cols)] = sp_input.values
        return out
    fill = 0 if default_value is None else default_value
    out = torch.full(shape, fill, dtype=sp_input.values.dtype, device=sp_input.values.device)
    if idx.numel():
        out[cols] = sp_input.values
    return out


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """Converts a dense tensor into a `SparseTensor` of its non-zero (non-empty) entries."""
    if isinstance(tensor, torch.Tensor):
        idx = torch.nonzero(tensor != 0)
        return SparseTensor(idx, tensor[tuple(idx.T)], list(tensor.shape))
    arr = np.asarray(tensor)
    if arr.dtype.kind in "OUS":
        mask = np.vectorize(lambda v: len(v) > 0, otypes=[bool])(arr) if arr.size else arr != ""
        idx = np.argwhere(mask)
        return SparseTensor(idx, arr[mask].astype(object), list(arr.shape))
    return from_dense(torch.from_numpy(np.ascontiguousarray(arr)))
