"""TF's eager `tf.TensorArray`: a list of tensors of one dtype, written and read by index
(`write`, `read`, `stack`, `unstack`, `gather`, `scatter`, `concat`, `split`, `size`), with TF
2.15's eager semantics: a fixed size unless `dynamic_size=True`, unwritten elements read as
zeros of the element shape, an element cleared after its read unless `clear_after_read=False`,
and the element shape inferred from the first write (`infer_shape=True`). `TensorArraySpec` is
its `tf.TypeSpec`."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator._type_spec import TypeSpec, _dtype_repr, as_shape, type_spec_from_value
from torchestimator.errors import InvalidArgumentError, OutOfRangeError


def _index(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return int(value.item())
    return int(value)


def _indices(value: Any) -> list[int]:
    if isinstance(value, torch.Tensor):
        return [int(i) for i in value.reshape(-1).tolist()]
    return [int(i) for i in np.asarray(value).reshape(-1)]


class TensorArray:
    """Class wrapping dynamic-sized, per-time-step, Tensor arrays (TF's `tf.TensorArray(dtype,
    size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None, handle=None,
    flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
    name=None)`). Methods that change it return the TensorArray (use the returned object, as
    in TF)."""

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: bool | None = None,
                 clear_after_read: bool | None = None, tensor_array_name: str | None = None,
                 handle: Any = None, flow: Any = None, infer_shape: bool = True, element_shape: Any = None,
                 colocate_with_first_write_call: bool = True, name: str | None = None):
        if handle is not None:
            raise ValueError("TensorArray handle= is a TF1 graph resource; create the array with dtype and size.")
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dtype = _dtypes.as_dtype(dtype)
        if isinstance(self._dtype, _dtypes.ExtraDType):
            raise self._dtype.no_tensors("a TensorArray")
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._previously_read_indices: list[int] = []
        self._tensor_array: list[Any] = [None] * _index(size)
        self._element_shape = as_shape(element_shape)
        self._infer_shape = bool(infer_shape)
        self._name = name or tensor_array_name

    # -- properties -------------------------------------------------------------------------------

    @property
    def dtype(self) -> Any:
        """The data type of this TensorArray."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """Python bool; if True the TensorArray can grow dynamically."""
        return self._dynamic_size

    @property
    def element_shape(self) -> Any:
        """The `tf.TensorShape` of elements in this TensorArray."""
        return self._element_shape

    @property
    def flow(self) -> None:
        """The flow `Tensor` forcing ops leading to this TensorArray state (None eagerly)."""
        return None

    @property
    def handle(self) -> None:
        """The reference to the TensorArray (None eagerly)."""
        return None

    def identity(self) -> TensorArray:
        """Returns a TensorArray with the same content and properties (this one, eagerly)."""
        return self

    # -- reading -----------------------------------------------------------------------------

    def _maybe_zero(self, index: int) -> torch.Tensor:
        value = self._tensor_array[index]
        if value is None:
            if not self._element_shape.is_fully_defined():
                raise InvalidArgumentError(
                    None, None, f"TensorArray element {index} was never written and the element shape "
                    f"{self._element_shape} is not fully defined, so it cannot be read as zeros.")
            value = self._tensor_array[index] = torch.zeros(self._element_shape.as_list(), dtype=self._dtype)
        return value

    def read(self, index: Any, name: str | None = None) -> torch.Tensor:
        """Read the value at location `index` in the TensorArray."""
        index = _index(index)
        if index < 0:
            raise OutOfRangeError(None, None, f"Reading from negative indices (index {index}) is not allowed.")
        if index >= len(self._tensor_array):
            raise OutOfRangeError(None, None, f"Tried to read from index {index} but array size is: "
                                              f"{len(self._tensor_array)} ")
        tensor = self._tensor_array[index]
        if tensor is None:
            if index in self._previously_read_indices:
                raise InvalidArgumentError(
                    None, None, f"Could not read index {index} twice because it was cleared after a previous "
                    "read (perhaps try setting clear_after_read = false?)")
            tensor = self._maybe_zero(index)
        if self._clear_after_read:
            self._tensor_array[index] = None
            self._previously_read_indices.append(index)
        return tensor

    def stack(self, name: str | None = None) -> torch.Tensor:
        """Return the values in the TensorArray as a stacked `Tensor` (elements along axis 0)."""
        for index in range(len(self._tensor_array)):
            self._maybe_zero(index)
        if not self._tensor_array:
            if self._element_shape.is_fully_defined():
                return torch.zeros([0, *self._element_shape.as_list()], dtype=self._dtype)
            return torch.zeros([0], dtype=self._dtype)
        return torch.stack(list(self._tensor_array))

    def gather(self, indices: Any, name: str | None = None) -> torch.Tensor:
        """Return selected values in the TensorArray as a packed `Tensor`."""
        return torch.stack([self._maybe_zero(i) for i in _indices(indices)])

    def concat(self, name: str | None = None) -> torch.Tensor:
        """Return the values in the TensorArray as a concatenated `Tensor` (along axis 0)."""
        tensors = [self._maybe_zero(i) for i in range(len(self._tensor_array))]
        for index, tensor in enumerate(tensors):
            if tensor.dim() == 0:
                raise InvalidArgumentError(
                    None, None, f"Concat saw a scalar shape at index {index} but requires at least vectors.")
        if not tensors:
            return torch.zeros([0], dtype=self._dtype)
        return torch.cat(tensors, 0)

    def size(self, name: str | None = None) -> torch.Tensor:
        """Return the size of the TensorArray (an int32 scalar)."""
        return torch.tensor(len(self._tensor_array), dtype=torch.int32)

    # -- writing -----------------------------------------------------------------------------

    def _write(self, index: int, value: Any) -> None:
        if index < 0:
            raise OutOfRangeError(None, None, f"Writing to negative indices (index {index}) is not allowed.")
        size = len(self._tensor_array)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(None, None, f"Tried to write to index {index} but array is not resizeable "
                                                  f"and size is: {size} ")
            self._tensor_array.extend(None for _ in range(index - size + 1))
        if not isinstance(value, torch.Tensor):
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {dtype_name(self._dtype)} but Op is "
                                                   f"trying to write dtype {dtype_name(value.dtype)} ")
        shape = as_shape(list(value.shape))
        if not self._element_shape.is_compatible_with(shape):
            raise ValueError(f"Incompatible shape for value ({shape}), expected ({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(shape)
        self._tensor_array[index] = value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """Write `value` into index `index` of the TensorArray; returns the TensorArray."""
        self._write(_index(index), value)
        return self

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """Unstack the values of a `Tensor` (along axis 0) into the TensorArray; returns it."""
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        tensors = list(torch.unbind(value, 0))
        if len(tensors) > len(self._tensor_array) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(tensors)} tensors into a TensorArray of static size "
                             f"{len(self._tensor_array)} ")
        self._tensor_array = [None] * len(tensors)
        for index, tensor in enumerate(tensors):
            self._write(index, tensor)
        return self

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """Scatter the values of a `Tensor` (along axis 0) into the TensorArray at `indices`."""
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        for index, tensor in zip(_indices(indices), torch.unbind(value, 0)):
            self._write(index, tensor)
        return self

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """Split the values of a `Tensor` into the TensorArray (element i: the next
        `lengths[i]` rows); returns it."""
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {dtype_name(self._dtype)} but Op is "
                                                   f"trying to write dtype {dtype_name(value.dtype)} ")
        lengths_t = convert_to_tensor(lengths)
        if lengths_t.dim() != 1:
            raise InvalidArgumentError(None, None, "Expected lengths to be a vector, received shape: "
                                                   f"{list(lengths_t.shape)} ")
        if value.dim() == 0:
            raise InvalidArgumentError(None, None, "Expected value to be at least a vector, but received shape: "
                                                   f"{list(value.shape)} ")
        sizes = [int(x) for x in lengths_t.tolist()]
        if sum(sizes) != value.shape[0]:
            raise InvalidArgumentError(None, None, "Expected sum of lengths to be equal to values.shape[0], but sum "
                                                   f"of lengths is {sum(sizes)} and value's shape is: "
                                                   f"{list(value.shape)} ")
        if not self._dynamic_size and len(sizes) != len(self._tensor_array):
            raise InvalidArgumentError(
                None, None, f"TensorArray's size is not equal to the size of lengths ({len(self._tensor_array)} vs. "
                f"{len(sizes)}), and the TensorArray is not marked as dynamically resizeable.")
        self._tensor_array = list(torch.split(value, sizes, 0))
        return self

    def close(self, name: str | None = None) -> None:
        """Close the current TensorArray (drops its elements)."""
        del self._tensor_array[:]

    def grad(self, source: Any, flow: Any = None, name: str | None = None) -> Any:
        """TF1's gradient TensorArray: gradients flow through the tensors here (GradientTape)."""
        raise ValueError("TensorArray.grad is TF1 graph machinery: gradients flow through the arrays' "
                         "tensors, so take them with tf.GradientTape.")

    @property
    def _type_spec(self) -> TensorArraySpec:
        return TensorArraySpec(self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def __repr__(self) -> str:
        return (f"<TensorArray size={len(self._tensor_array)} dtype={dtype_name(self._dtype)} "
                f"element_shape={self._element_shape}>")


class TensorArraySpec(TypeSpec):
    """Type specification for a `tf.TensorArray` (TF's `tf.TensorArraySpec(element_shape=None,
    dtype=tf.float32, dynamic_size=False, infer_shape=True)`)."""

    value_type = property(lambda self: TensorArray, doc="`tf.TensorArray`.")

    def __init__(self, element_shape: Any = None, dtype: Any = torch.float32, dynamic_size: bool = False,
                 infer_shape: bool = True):
        self._element_shape = as_shape(element_shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @property
    def element_shape(self) -> Any:
        """The shape of the elements."""
        return self._element_shape

    @property
    def dtype(self) -> Any:
        """The dtype of the elements."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """Whether the array can grow."""
        return self._dynamic_size

    def _serialize(self) -> tuple:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def is_compatible_with(self, other: Any) -> bool:
        """True if `other` (a spec or a TensorArray) is a TensorArraySpec of the same dtype and
        dynamic_size and a compatible element shape (`infer_shape` is not compared, as TF)."""
        if not isinstance(other, TypeSpec):
            other = type_spec_from_value(other)
        return (isinstance(other, TensorArraySpec) and other._dtype == self._dtype
                and self._element_shape.is_compatible_with(other._element_shape)
                and self._dynamic_size == other._dynamic_size)

    @staticmethod
    def from_value(value: TensorArray) -> TensorArraySpec:
        """The spec of a TensorArray."""
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but saw: {type(value)}")
        return value._type_spec

    def __repr__(self) -> str:
        return (f"TensorArraySpec({self._element_shape!r}, {_dtype_repr(self._dtype)}, {self._dynamic_size}, "
                f"{self._infer_shape})")


__all__ = ["TensorArray", "TensorArraySpec"]
