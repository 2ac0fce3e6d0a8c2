"""TF's tf.DType, tf.compat.v1.Dimension, tf.TensorShape, as_shape, and the fully defined shape
arguments of the creation ops (`_shape_arg`).

A low-level type: it sits just above `_dtypes` in the import order (it imports nothing from
`_type_spec`, `_ragged` or `_ops`), so `TypeSpec`s and `RaggedTensor` can build shapes;
`_ops.creation._tensor_shape` re-exports every name here."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor
_STRING = _dtypes.string


# --------------------------------------------------------------------------------------------
# DType
# --------------------------------------------------------------------------------------------
class _DTypeMeta(type):
    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, (torch.dtype, _dtypes.ExtraDType)) or obj is _STRING


class DType(metaclass=_DTypeMeta):
    """TF's dtype class, for `isinstance(x.dtype, tf.DType)`: dtypes here are `torch.dtype`s
    (and the `tf.string` marker). `tf.DType(value)` returns `tf.as_dtype(value)`."""

    def __new__(cls, type_value: Any) -> Any:  # type: ignore[misc]
        return _dtypes.as_dtype(type_value)


# --------------------------------------------------------------------------------------------
# TensorShape
# --------------------------------------------------------------------------------------------
class Dimension:
    """One dimension of a `TensorShape` (TF's `tf.compat.v1.Dimension`): `value` is an int or
    None (unknown). Compares equal to the int it holds."""

    __slots__ = ("_value",)

    def __init__(self, value: Any):
        self._value = _dim_value(value)

    @property
    def value(self) -> int | None:
        """The dimension as a Python int, or None when unknown."""
        return self._value

    def is_compatible_with(self, other: Any) -> builtins.bool:
        """True when `other` (a Dimension, an int or None) could be the same dimension: two
        known values are equal, or one of them is unknown."""
        other_value = _dim_value(other)
        return self._value is None or other_value is None or self._value == other_value

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises ValueError unless `is_compatible_with(other)`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {Dimension(other)} are not compatible")

    def merge_with(self, other: Any) -> Dimension:
        """The Dimension that combines this one and `other`: the known value of either
        (`Dimension(None).merge_with(3)` is `Dimension(3)`); ValueError if they are
        incompatible."""
        other = other if isinstance(other, Dimension) else Dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(other.value if self._value is None else self._value)

    def __int__(self) -> int:
        if self._value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int.")
        return self._value

    __index__ = __int__

    def __eq__(self, other: object) -> Any:
        try:
            other_value = _dim_value(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other_value is None:
            return None
        return self._value == other_value

    def __ne__(self, other: object) -> Any:
        equal = self.__eq__(other)
        return equal if equal is None or equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return f"Dimension({self._value})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)


def _dim_value(d: Any) -> int | None:
    """A dimension as an int or None; raises TypeError/ValueError as TF's `Dimension(...)`."""
    if d is None:
        return None
    if isinstance(d, Dimension):
        return d.value
    if isinstance(d, (str, bytes, float)):
        raise TypeError(f"{d!r} could not be converted to a dimension.")
    try:
        value = operator.index(d)
    except TypeError:
        if isinstance(d, (Tensor, np.ndarray, np.generic)) and np.ndim(d) == 0 and \
                not np.asarray(d).dtype.kind == "f":
            value = int(d)
        else:
            raise TypeError(f"{d!r} could not be converted to a dimension.") from None
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0")
    return value


class TensorShape:
    """The (possibly partially known) shape of a tensor, as TF's `tf.TensorShape(dims)`.

    `dims` is None (unknown rank), an int (one dimension), or an iterable of
    ints / None (unknown dimensions). Compares equal to lists, tuples and
    `torch.Size`s of the same dimensions. Indexing gives an int (or None);
    slicing gives a `TensorShape`.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Any):
        if dims is None:
            self._dims: tuple[int | None, ...] | None = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (str, bytes)):
            raise TypeError(
                f"Failed to convert {dims!r} to a shape. A shape should either be a single "
                "dimension (e.g. 10), or an iterable of dimensions (e.g. [1, 10, None])."
            )
        else:
            try:
                items = iter(dims)
            except TypeError:
                self._dims = (_dim_value(dims),)
                return
            try:
                self._dims = tuple(_dim_value(d) for d in items)
            except TypeError as e:
                raise TypeError(
                    f"Failed to convert {dims!r} to a shape: {e} A shape should either be a single "
                    "dimension (e.g. 10), or an iterable of dimensions (e.g. [1, 10, None])."
                ) from None

    # --- properties ----------------------------------------------------------------------
    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None if the rank is unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> int | None:
        """The number of dimensions, or None if the rank is unknown (alias of `rank`)."""
        return self.rank

    @property
    def dims(self) -> list[Dimension] | None:
        """The dimensions as a list of `Dimension`s (as TF 2.15), or None if the rank is unknown."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    # --- conversions ---------------------------------------------------------------------
    def as_list(self) -> list[int | None]:
        """The dimensions as a list of ints (None for unknown ones)."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self) -> int | None:
        """The total number of elements, or None if the shape is not fully defined."""
        if not self.is_fully_defined():
            return None
        count = 1
        for d in self._dims:  # type: ignore[union-attr]
            count *= d  # type: ignore[operator]
        return count

    def is_fully_defined(self) -> builtins.bool:
        """True when the rank and every dimension are known."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        """Raises ValueError if the shape is not fully defined."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # --- compatibility -------------------------------------------------------------------
    def is_compatible_with(self, other: Any) -> builtins.bool:
        """True when the two shapes could describe the same tensor (unknowns match anything)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises ValueError unless `is_compatible_with(other)`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both; ValueError if they are incompatible."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def is_subtype_of(self, other: Any) -> builtins.bool:
        """True when `other` (a TensorShape) can represent this shape: `other` has an unknown
        rank, or the same rank with each dimension equal or unknown (None) in `other`. Not
        symmetric: `TensorShape([32, 784])` is a subtype of `TensorShape([None, 784])`, not the
        reverse. Anything but a TensorShape gives False."""
        if not isinstance(other, TensorShape):
            return False
        if other._dims is None:
            return True
        if self.rank != other.rank:
            return False
        return all(o is None or s == o for s, o in zip(self._dims, other._dims))  # type: ignore[arg-type]

    def most_specific_common_supertype(self, others: Any) -> TensorShape | None:
        """The most specific TensorShape that this shape and each of `others` (a sequence of
        TensorShapes) are subtypes of: dimensions that differ become None, ranks that differ
        (or an unknown rank) give `TensorShape(None)`. None when one of `others` is not a
        TensorShape."""
        if any(not isinstance(other, TensorShape) for other in others):
            return None
        if self._dims is None or any(other._dims is None or self.rank != other.rank
                                     for other in others):
            return TensorShape(None)
        return TensorShape([d if all(d == other._dims[i] for other in others) else None
                            for i, d in enumerate(self._dims)])

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The most specific shape that both shapes are compatible with."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other: Any) -> TensorShape:
        """The shape of this shape's dimensions followed by `other`'s."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def assert_same_rank(self, other: Any) -> None:
        """Raises ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank: int) -> None:
        """Raises ValueError if the rank is known and not `rank`."""
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        """This shape with rank `rank` (unknown dims if the rank was unknown); ValueError otherwise."""
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """This shape, checked to have at least `rank` dimensions."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        """This shape, checked to have at most `rank` dimensions."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    # --- container protocol --------------------------------------------------------------
    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self) -> builtins.bool:
        return self._dims is not None

    def __eq__(self, other: object) -> builtins.bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other: object) -> builtins.bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._dims)

    def __add__(self, other: Any) -> TensorShape:
        return self.concatenate(other)

    def __radd__(self, other: Any) -> TensorShape:
        return as_shape(other).concatenate(self)

    def __reduce__(self):
        return (TensorShape, (None if self._dims is None else list(self._dims),))

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


_dtypes.TENSOR_SHAPE[:] = [TensorShape]  # a TensorSpec's shape hands TF's shape API to it


def as_shape(shape: Any) -> TensorShape:
    """`shape` as a `TensorShape` (TF's `tf.compat.v1.TensorShape` conversion helper)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _shape_arg(shape: Any, op: str) -> tuple[int, ...]:
    """A fully defined shape argument (list, tuple, int, TensorShape, 1-D int tensor) as ints."""
    if isinstance(shape, (Tensor, np.ndarray)):
        if shape.dtype in (torch.float16, torch.float32, torch.float64) or \
                (isinstance(shape, np.ndarray) and shape.dtype.kind not in "iu"):
            raise TypeError(f"{op}: shape must be integers, got a tensor of dtype {shape.dtype}.")
        dims = [int(d) for d in shape.reshape(-1).tolist()]
    elif isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"{op}: shape {shape} is not fully defined.")
        dims = list(shape)  # type: ignore[arg-type]
    elif isinstance(shape, (list, tuple, torch.Size)):
        dims = []
        for d in shape:
            if d is None:
                raise ValueError(f"{op}: shape {list(shape)} has an unknown (None) dimension.")
            dims.append(int(d) if isinstance(d, Tensor) else operator.index(d))
    else:
        try:
            dims = [operator.index(shape)]
        except TypeError:
            raise TypeError(f"{op}: cannot interpret {shape!r} as a shape.") from None
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(None, None, f"{op}: Dimension {d} must be >= 0")
    return tuple(dims)
