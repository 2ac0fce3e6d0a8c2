"""TF's `tf.TypeSpec` family: `TypeSpec` (the abstract base; `tf.TensorSpec` counts as one),
`SparseTensorSpec`, `OptionalSpec`, and `tf.type_spec_from_value` (`RaggedTensorSpec`, a
`TypeSpec` too, is in `_ragged/_spec.py`). `IndexedSlicesSpec` and
`TensorArraySpec` are in `_indexed_slices.py` and `_tensor_array.py`."""

from __future__ import annotations

import abc
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._dtypes import TensorSpec
from torchestimator._sparse_tensor import SparseTensor
from torchestimator._tensor_conversion import convert_to_tensor
from torchestimator._tensor_shape import TensorShape, as_shape

#: The value class of each spec class whose value type lives in an upper layer, registered by
#: that layer when it loads (`register_value_type`); e.g. `torchestimator.data.optional`
#: registers `OptionalSpec -> tf.experimental.Optional`.
_VALUE_TYPES: dict[type, type] = {}


def register_value_type(spec_type: type, value_type: type) -> None:
    """Records `value_type` as the `value_type` of `spec_type` (for spec classes defined here
    whose values are defined in an upper layer, which calls this when its module loads).
    Values tell `type_spec_from_value` their spec through their own `_type_spec` property."""
    _VALUE_TYPES[spec_type] = value_type


def _dtype_repr(dtype: Any) -> str:
    return f"tf.{_dtypes.dtype_name(dtype)}"


class TypeSpec(abc.ABC):
    """Specifies a TensorFlow value type (TF's `tf.TypeSpec`): the abstract base of
    `TensorSpec`, `SparseTensorSpec`, `IndexedSlicesSpec`, `TensorArraySpec`, `OptionalSpec`.
    Subclasses define `value_type` and `_serialize()` (the fields that identify the spec)."""

    @property
    @abc.abstractmethod
    def value_type(self) -> type:
        """The Python type of values this spec describes."""

    @abc.abstractmethod
    def _serialize(self) -> tuple:
        """The fields identifying this spec (used for equality, hashing and repr)."""

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True if `spec_or_value` (a spec or a value) is compatible with this spec: same type and
        compatible fields (an unknown dimension matches any)."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else type_spec_from_value(spec_or_value)
        if type(self) is not type(other):
            return False
        return all(_fields_compatible(a, b) for a, b in zip(self._serialize(), other._serialize()))

    def is_subtype_of(self, other: TypeSpec) -> bool:
        """True if every value of this spec is a value of `other` (`other` at least as general)."""
        if type(self) is not type(other):
            return False
        return all(_field_subtype(a, b) for a, b in zip(self._serialize(), other._serialize()))

    def most_specific_common_supertype(self, others: list[TypeSpec]) -> TypeSpec | None:
        """The most specific spec that this and all `others` are subtypes of, or None."""
        result = self
        for other in others:
            result = result._common(other)
            if result is None:
                return None
        return result

    def most_specific_compatible_type(self, other: TypeSpec) -> TypeSpec:
        """The most specific spec compatible with both (TF1's name); ValueError if none."""
        common = self._common(other)
        if common is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return common

    def _common(self, other: TypeSpec) -> TypeSpec | None:
        if type(self) is not type(other):
            return None
        fields = []
        for a, b in zip(self._serialize(), other._serialize()):
            merged = _field_common(a, b)
            if merged is _NO_COMMON:
                return None
            fields.append(merged)
        return type(self)(*fields)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._serialize() == other._serialize()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self._serialize())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._serialize()!r}"


TypeSpec.register(TensorSpec)
_NO_COMMON = object()


def _is_shape(value: Any) -> bool:
    return isinstance(value, TensorShape)


def _fields_compatible(a: Any, b: Any) -> bool:
    if _is_shape(a) and _is_shape(b):
        return a.is_compatible_with(b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_compatible_with(b)
    return a == b


def _field_subtype(a: Any, b: Any) -> bool:
    if _is_shape(a) and _is_shape(b):
        if b.rank is None:
            return True
        if a.rank != b.rank:
            return False
        return all(y is None or x == y for x, y in zip(a.as_list(), b.as_list()))
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_subtype_of(b)
    return a == b


def _field_common(a: Any, b: Any) -> Any:
    if _is_shape(a) and _is_shape(b):
        if a.rank is None or b.rank is None or a.rank != b.rank:
            return as_shape(None)
        return as_shape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        common = a.most_specific_common_supertype([b])
        return _NO_COMMON if common is None else common
    return a if a == b else _NO_COMMON


class SparseTensorSpec(TypeSpec):
    """Type specification for a `tf.sparse.SparseTensor` (TF's `tf.SparseTensorSpec(shape=None,
    dtype=tf.float32)`)."""

    def __init__(self, shape: Any = None, dtype: Any = torch.float32):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)

    @property
    def value_type(self) -> type:
        """`tf.sparse.SparseTensor`."""

        return SparseTensor

    @property
    def shape(self) -> Any:
        """The `TensorShape` of the dense form."""
        return self._shape

    @property
    def dtype(self) -> Any:
        """The dtype of the values."""
        return self._dtype

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype)

    @classmethod
    def from_value(cls, value: Any) -> SparseTensorSpec:
        """The spec of a SparseTensor value."""
        return cls([int(d) for d in value.dense_shape], _value_dtype(value.values))

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, {_dtype_repr(self._dtype)})"


class OptionalSpec(TypeSpec):
    """Type specification for a `tf.experimental.Optional` (TF's `tf.OptionalSpec(element_spec)`)."""

    def __init__(self, element_spec: Any):
        self._element_spec = element_spec

    @property
    def value_type(self) -> type:
        """`tf.experimental.Optional` (registered by `torchestimator.data.optional` when it loads)."""
        value_type = _VALUE_TYPES.get(OptionalSpec)
        if value_type is None:
            raise RuntimeError(
                "OptionalSpec.value_type is tf.experimental.Optional, which is not loaded yet: "
                "use tf.experimental.Optional (or import torchestimator.data) first.")
        return value_type

    @property
    def element_spec(self) -> Any:
        """The spec of the optional's value."""
        return self._element_spec

    def _serialize(self) -> tuple:
        return (self._element_spec,)

    @staticmethod
    def from_value(value: Any) -> OptionalSpec:
        """The spec of an Optional value."""
        return OptionalSpec(value.element_spec)


def _value_dtype(values: Any) -> Any:
    if isinstance(values, torch.Tensor):
        return values.dtype
    return _dtypes.string if isinstance(values, np.ndarray) and values.dtype.kind in "OUS" else \
        _dtypes.as_dtype(np.asarray(values).dtype)


#: (value class, spec maker) pairs for specs whose classes live above this module
#: (`tf.data.DatasetSpec`, `IteratorSpec`: `data/dataset_spec.py` adds them when it loads).
VALUE_SPECS: list[tuple[type, Any]] = []


def type_spec_from_value(value: Any) -> TypeSpec:
    """Returns a `tf.TypeSpec` that represents the given `value` (TF's
    `tf.type_spec_from_value`): a `TensorSpec` for a tensor or anything convertible to one, a
    `SparseTensorSpec`, `RaggedTensorSpec`, `IndexedSlicesSpec`, `TensorArraySpec`,
    `OptionalSpec` (the last four from the value's own `_type_spec`), a `tf.data.DatasetSpec`
    for a dataset and an `IteratorSpec` for its iterator."""
    if isinstance(value, TypeSpec):
        raise TypeError(f"type_spec_from_value expects a value, got the spec {value!r}.")
    if isinstance(value, torch.Tensor):
        return TensorSpec(tuple(value.shape), value.dtype)
    if isinstance(value, SparseTensor):
        return SparseTensorSpec.from_value(value)
    spec = getattr(value, "_type_spec", None)
    if isinstance(spec, TypeSpec):
        return spec
    for value_class, make_spec in VALUE_SPECS:
        if isinstance(value, value_class):
            return make_spec(value)
    try:
        tensor = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r:.100} of unsupported type "
                        f"{type(value)}.") from None
    if isinstance(tensor, np.ndarray):  # strings
        return TensorSpec(tensor.shape, _dtypes.string)
    return TensorSpec(tuple(tensor.shape), tensor.dtype)


__all__ = ["OptionalSpec", "SparseTensorSpec", "TypeSpec", "type_spec_from_value"]
