"""TF's `tf.IndexedSlices(values, indices, dense_shape=None)`: a sparse set of slices of a dense
tensor (the rows `indices` of a tensor of shape `dense_shape` hold `values`), as TF's
gradients of `tf.gather`. `tf.convert_to_tensor` of one gives the dense tensor (rows at a
repeated index are summed, as TF's), and `IndexedSlicesSpec` is its `tf.TypeSpec`."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops import convert as _convert
from torchestimator._type_spec import TypeSpec, _dtype_repr, as_shape


class IndexedSlices:
    """A sparse representation of a set of tensor slices at given indices (TF's
    `tf.IndexedSlices(values, indices, dense_shape=None)`): `dense[indices[i], ...] = values[i, ...]`."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None):
        self._values = _convert.convert_to_tensor(values)
        self._indices = _convert.convert_to_tensor(indices)
        if not isinstance(self._indices, torch.Tensor) or self._indices.is_floating_point():
            raise TypeError(f"IndexedSlices indices must be an integer tensor; got {indices!r:.80}.")
        if self._indices.dim() != 1:
            raise ValueError(f"IndexedSlices indices must be a vector; got shape {list(self._indices.shape)}.")
        if isinstance(self._values, torch.Tensor) and self._values.dim() and \
                self._values.shape[0] != self._indices.shape[0]:
            raise ValueError(f"IndexedSlices values have {self._values.shape[0]} rows but there are "
                             f"{self._indices.shape[0]} indices; they must match.")
        self._dense_shape = None if dense_shape is None else _convert.convert_to_tensor(dense_shape)

    @property
    def values(self) -> Any:
        """A `Tensor` containing the values of the slices."""
        return self._values

    @property
    def indices(self) -> torch.Tensor:
        """A 1-D `Tensor` containing the indices of the slices."""
        return self._indices

    @property
    def dense_shape(self) -> torch.Tensor | None:
        """A 1-D `Tensor` containing the shape of the corresponding dense tensor (or None)."""
        return self._dense_shape

    @property
    def shape(self) -> Any:
        """The `tf.TensorShape` of the dense tensor (from `dense_shape`, else unknown first
        dimension and the values' other dimensions)."""
        if self._dense_shape is not None:
            return as_shape([int(d) for d in self._dense_shape.tolist()])
        return as_shape([None, *self._values.shape[1:]])

    @property
    def dtype(self) -> Any:
        """The dtype of elements in this tensor."""
        return self._values.dtype

    @property
    def device(self) -> str:
        """The name of the device on which `values` will be produced."""
        return str(self._values.device)

    @property
    def name(self) -> None:
        """The name of this `IndexedSlices` (None eagerly)."""
        return None

    @property
    def op(self) -> Any:
        """TF's producing graph op: there is none eagerly."""
        raise AttributeError("IndexedSlices.op is not available: ops run eagerly (there is no graph op).")

    graph = op

    def consumers(self) -> list:
        """TF's consuming graph ops: none eagerly."""
        return []

    @property
    def _type_spec(self) -> IndexedSlicesSpec:
        dense = None if self._dense_shape is None else self._dense_shape.tolist()
        return IndexedSlicesSpec(dense if dense is not None else [None, *self._values.shape[1:]],
                                 self._values.dtype, self._indices.dtype,
                                 None if self._dense_shape is None else self._dense_shape.dtype,
                                 list(self._indices.shape))

    def to_dense(self) -> torch.Tensor:
        """The dense tensor (rows of repeated indices summed); ValueError without dense_shape."""
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices for argument `value` without "
                             f"dense_shape: {self!r}")
        shape = [int(d) for d in self._dense_shape.tolist()]
        dense = torch.zeros(shape, dtype=self._values.dtype, device=self._values.device)
        return dense.index_add(0, self._indices.to(torch.int64).to(dense.device), self._values)

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        array = self.to_dense().detach().cpu().numpy()
        return array if dtype is None else array.astype(dtype)

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!r}"
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"

    __str__ = __repr__


class IndexedSlicesSpec(TypeSpec):
    """Type specification for a `tf.IndexedSlices` (TF's `tf.IndexedSlicesSpec(shape=None,
    dtype=tf.float32, indices_dtype=tf.int64, dense_shape_dtype=None, indices_shape=None)`)."""

    value_type = property(lambda self: IndexedSlices, doc="`tf.IndexedSlices`.")

    def __init__(self, shape: Any = None, dtype: Any = torch.float32, indices_dtype: Any = torch.int64,
                 dense_shape_dtype: Any = None, indices_shape: Any = None):
        self._shape = as_shape(shape)
        self._values_dtype = _dtypes.as_dtype(dtype)
        self._indices_dtype = _dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else _dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = as_shape(indices_shape).with_rank(1) if indices_shape is not None \
            else as_shape([None])

    @property
    def shape(self) -> Any:
        """The `TensorShape` of the dense form."""
        return self._shape

    @property
    def dtype(self) -> Any:
        """The dtype of the values."""
        return self._values_dtype

    def _serialize(self) -> tuple:
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    def __repr__(self) -> str:
        dense = "None" if self._dense_shape_dtype is None else _dtype_repr(self._dense_shape_dtype)
        return (f"IndexedSlicesSpec({self._shape!r}, {_dtype_repr(self._values_dtype)}, "
                f"{_dtype_repr(self._indices_dtype)}, {dense}, {self._indices_shape!r})")


def _convert_indexed_slices(value: IndexedSlices, dtype: Any = None, name: Any = None,
                            as_ref: bool = False) -> torch.Tensor:
    dense = value.to_dense()
    if dtype is not None and dense.dtype != dtype:
        raise ValueError(f"Tensor conversion requested dtype {dtype} for IndexedSlices with dtype {dense.dtype}")
    return dense


_convert._CONVERSION_FUNCTIONS.append((100, IndexedSlices, _convert_indexed_slices))
_convert._CONVERSION_FUNCTIONS.sort(key=lambda entry: entry[0])

__all__ = ["IndexedSlices", "IndexedSlicesSpec"]
