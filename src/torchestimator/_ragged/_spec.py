"""`tf.RaggedTensorSpec`: the type specification of a `tf.RaggedTensor`."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ragged import _tensor
from torchestimator._ragged import _values as V
from torchestimator._tensor_shape import TensorShape, as_shape
from torchestimator._type_spec import TypeSpec


class RaggedTensorSpec(TypeSpec):
    """Type specification for a `tf.RaggedTensor` (TF's `tf.RaggedTensorSpec`).

    `RaggedTensorSpec(shape=None, dtype=tf.float32, ragged_rank=None,
    row_splits_dtype=tf.int64, flat_values_spec=None)`; `ragged_rank` defaults to
    rank - 1.
    """

    def __init__(self, shape: Any = None, dtype: Any = torch.float32, ragged_rank: int | None = None,
                 row_splits_dtype: Any = torch.int64, flat_values_spec: Any = None):
        if flat_values_spec is not None:
            dtype = flat_values_spec.dtype
        self._shape = TensorShape(None) if shape is None else as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._row_splits_dtype = V.splits_dtype(row_splits_dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if rank is not None and not 0 <= ragged_rank < max(rank, 1):
            raise ValueError(f"ragged_rank must be non-negative and less than rank ({rank}); "
                             f"received ragged_rank={ragged_rank}")
        self._ragged_rank = int(ragged_rank)
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape, doc="The shape (a TensorShape).")
    dtype = property(lambda self: self._dtype, doc="The dtype of the values.")
    ragged_rank = property(lambda self: self._ragged_rank, doc="The number of ragged dimensions.")
    row_splits_dtype = property(lambda self: self._row_splits_dtype,
                                doc="The dtype of the row partitions.")
    flat_values_spec = property(lambda self: self._flat_values_spec,
                                doc="The TensorSpec of flat_values, if given.")

    @property
    def value_type(self) -> type:
        """`tf.RaggedTensor` (or a dense tensor when ragged_rank is 0)."""
        return _tensor.RaggedTensor if self._ragged_rank > 0 else torch.Tensor

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    @classmethod
    def from_value(cls, value: _tensor.RaggedTensor) -> RaggedTensorSpec:
        """The spec of a RaggedTensor value."""
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True when a RaggedTensor (or spec) has a compatible shape, dtype and ragged_rank."""
        other = spec_or_value
        if isinstance(other, _tensor.RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (self._dtype == other._dtype and self._ragged_rank == other._ragged_rank
                and self._shape.is_compatible_with(other._shape))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, RaggedTensorSpec) and repr(self) == repr(other))

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({self._shape!r}, tf.{_dtypes.dtype_name(self._dtype)}, "
                f"{self._ragged_rank}, tf.{_dtypes.dtype_name(self._row_splits_dtype)})")
