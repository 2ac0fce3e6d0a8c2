"""Tensor creation, shapes and dtypes: tf.zeros, tf.range, tf.shape, tf.cast, TensorShape, ... (TF names over torch).

Creation ops follow TF 2.15's dtype defaults: `tf.zeros`/`tf.ones`/`tf.eye`
make float32; `tf.fill` and `tf.range` infer from their values (int32 for
Python ints, float32 for Python floats); `tf.shape`/`tf.size`/`tf.rank`
return int32 tensors (on the host, as TF's shape tensors). A "tensor" is a
`torch.Tensor`; string values are numpy object arrays of `str`.
"""

from __future__ import annotations

import builtins
import operator
import sys
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    _INT32_MAX,
    _INT32_MIN,
    convert_to_tensor,
    dtype_name,
    shapes_error,
)
from torchestimator.errors import InvalidArgumentError, UnimplementedError

__all__ = [
    "DType",
    "TensorShape",
    "broadcast_dynamic_shape",
    "broadcast_static_shape",
    "cast",
    "complex",
    "ensure_shape",
    "eye",
    "fill",
    "get_static_value",
    "identity",
    "identity_n",
    "is_tensor",
    "linspace",
    "ones",
    "ones_like",
    "range",
    "rank",
    "saturate_cast",
    "shape",
    "shape_n",
    "size",
    "stop_gradient",
    "zeros",
    "zeros_like",
]

Tensor = torch.Tensor
_STRING = _dtypes.string
_SHAPE_TYPES = (torch.int32, torch.int64)


# --------------------------------------------------------------------------------------------
# DType
# --------------------------------------------------------------------------------------------
class _DTypeMeta(type):
    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, torch.dtype) or obj is _STRING


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


def _to_tensor(value: Any) -> Any:
    """A tensor (or a numpy string array) from a tensor-like value."""
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _int_dtype(out_type: Any, op: str, arg: str = "out_type") -> torch.dtype:
    dtype = torch.int32 if out_type is None else _dtypes.as_dtype(out_type)
    if dtype not in _SHAPE_TYPES:
        raise InvalidArgumentError(
            None, None,
            f"{op}: Value for attr '{arg}' of {dtype_name(dtype)} is not in the list of allowed "
            "values: int32, int64",
        )
    return dtype  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# creation
# --------------------------------------------------------------------------------------------
def zeros(shape: Any, dtype: Any = torch.float32, name: str | None = None,
          layout: Any = None) -> Any:
    """Creates a tensor with all elements set to zero (TF's `tf.zeros`); float32 by default.

    Returns:
        A tensor of `shape` and `dtype` (a numpy array of '' for `tf.string`).
    """
    dims = _shape_arg(shape, "zeros")
    dtype = _dtypes.as_dtype(dtype)
    if dtype is _STRING:
        return np.full(dims, "", dtype=object)
    return torch.zeros(dims, dtype=dtype)


def ones(shape: Any, dtype: Any = torch.float32, name: str | None = None,
         layout: Any = None) -> Tensor:
    """Creates a tensor with all elements set to one (TF's `tf.ones`); float32 by default.

    Returns:
        A tensor of `shape` and `dtype`.
    """
    dims = _shape_arg(shape, "ones")
    dtype = _dtypes.as_dtype(dtype)
    if dtype is _STRING:
        raise TypeError("ones: Cannot convert 1 to a tensor of dtype string.")
    return torch.ones(dims, dtype=dtype)


def fill(dims: Any, value: Any, name: str | None = None, layout: Any = None) -> Any:
    """Creates a tensor of shape `dims` filled with the scalar `value` (TF's `tf.fill`).

    Returns:
        A tensor with `value`'s dtype (int32 for a Python int, float32 for a float).
    """
    shape = _shape_arg(dims, "fill")
    value = _to_tensor(value)
    if value.ndim != 0:
        raise InvalidArgumentError(
            None, None, f"fill: value must represent a scalar, got shape {list(value.shape)}"
        )
    if isinstance(value, np.ndarray):
        return np.full(shape, value.item(), dtype=object)
    return value.expand(shape).clone()


def eye(num_rows: int, num_columns: int | None = None, batch_shape: Any = None,
        dtype: Any = torch.float32, name: str | None = None) -> Tensor:
    """Constructs an identity matrix, or a batch of them (TF's `tf.eye`).

    Returns:
        A tensor of shape `batch_shape + [num_rows, num_columns]`.
    """
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    if rows < 0 or cols < 0:
        raise InvalidArgumentError(
            None, None, f"eye: num_rows and num_columns must be >= 0, got {rows} and {cols}."
        )
    matrix = torch.eye(rows, cols, dtype=_dtypes.as_dtype(dtype))
    if batch_shape is None:
        return matrix
    batch = _shape_arg(batch_shape, "eye")
    return matrix.expand(*batch, rows, cols).contiguous()


def zeros_like(input: Any, dtype: Any = None, name: str | None = None, layout: Any = None) -> Any:
    """Creates a tensor of zeros with the shape of `input` (TF's `tf.zeros_like`).

    Returns:
        A tensor with `input`'s shape and `dtype` (default: `input`'s dtype).
    """
    x = _to_tensor(input)
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(x, np.ndarray) or want is _STRING:
        if want is not None and want is not _STRING:
            return torch.zeros(x.shape, dtype=want)
        return np.full(x.shape, "", dtype=object)
    return torch.zeros_like(x, dtype=want)


def ones_like(input: Any, dtype: Any = None, name: str | None = None, layout: Any = None) -> Tensor:
    """Creates a tensor of ones with the shape of `input` (TF's `tf.ones_like`).

    Returns:
        A tensor with `input`'s shape and `dtype` (default: `input`'s dtype).
    """
    x = _to_tensor(input)
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if want is _STRING or (isinstance(x, np.ndarray) and want is None):
        raise TypeError("ones_like: Cannot convert 1 to a tensor of dtype string.")
    if isinstance(x, np.ndarray):
        return torch.ones(x.shape, dtype=want)
    return torch.ones_like(x, dtype=want)


_RANGE_ORDER = {torch.int32: 0, torch.int64: 1, torch.float32: 2, torch.float64: 3}
_NP_OF = {torch.int32: np.int32, torch.int64: np.int64, torch.float32: np.float32,
          torch.float64: np.float64, torch.int16: np.int16, torch.int8: np.int8,
          torch.uint8: np.uint8, torch.float16: np.float16}


def _range_arg(value: Any, dtype: Any, arg: str) -> Any:
    """(python number, inferred dtype) of one `tf.range` argument."""
    if isinstance(value, Tensor):
        if value.numel() != 1 or value.dim() != 0:
            raise InvalidArgumentError(
                None, None, f"range: {arg} must be a scalar, got shape {list(value.shape)}"
            )
        return value.item(), value.dtype
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.ndim != 0:
            raise InvalidArgumentError(
                None, None, f"range: {arg} must be a scalar, got shape {list(array.shape)}"
            )
        return array.item(), torch.from_numpy(array.reshape(1)).dtype
    if isinstance(value, builtins.bool) or not isinstance(value, (int, float)):
        raise TypeError(f"range: {arg} must be a number, got {value!r}.")
    if dtype is not None and not (dtype.is_floating_point or isinstance(value, int) or
                                  float(value).is_integer()):
        raise TypeError(f"range: Cannot convert {arg}={value!r} to a tensor of dtype "
                        f"{dtype_name(dtype)}.")
    if isinstance(value, float):
        return value, torch.float32
    return value, torch.int32 if _INT32_MIN <= value <= _INT32_MAX else torch.int64


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> Tensor:
    """Creates a sequence of numbers from `start` up to (not including) `limit` by `delta`,
    as TF's `tf.range` (`tf.range(n)` counts from 0).

    The dtype is `dtype`, or else the widest of the arguments' dtypes in TF's
    order int32 < int64 < float32 < float64 (int32 for Python ints, float32
    for Python floats).

    Returns:
        A 1-D tensor.
    """
    want = None if dtype is None else _dtypes.as_dtype(dtype)
    if limit is None:
        start, limit = 0, start
    values, dtypes = [], []
    for value, arg in ((start, "start"), (limit, "limit"), (delta, "delta")):
        number, inferred = _range_arg(value, want, arg)
        values.append(number)
        dtypes.append(inferred)
    if want is None:
        want = max(dtypes, key=lambda d: _RANGE_ORDER.get(d, -1))
    first, last, step = values
    if step == 0:
        raise InvalidArgumentError(None, None, f"range: Requires delta != 0: {step}")
    if step > 0 and first > last:
        raise InvalidArgumentError(
            None, None, f"range: Requires start <= limit when delta > 0: {first}/{last}"
        )
    if step < 0 and first < last:
        raise InvalidArgumentError(
            None, None, f"range: Requires start >= limit when delta < 0: {first}/{last}"
        )
    if not want.is_floating_point:
        return torch.arange(int(first), int(last), int(step), dtype=want)
    # Floating sequences are computed in the dtype itself (start + i * delta), as TF does.
    np_type = _NP_OF.get(want, np.float64)
    a, b, d = np_type(first), np_type(last), np_type(step)
    with np.errstate(all="ignore"):
        count = int(np.ceil(np.abs((b - a) / d)))
    index = torch.arange(count, dtype=want)
    return index * torch.tensor(d.item(), dtype=want) + torch.tensor(a.item(), dtype=want)


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """Generates `num` evenly spaced values from `start` to `stop` inclusive (TF's `tf.linspace`).

    `start` and `stop` may be tensors of one shape (batched sequences); `axis`
    is where the new dimension goes. Integer inputs give float64, as TF.

    Returns:
        A tensor of `start`'s (floating) dtype with the sequences along `axis`.
    """
    lo = _to_tensor(start)
    hi = _to_tensor(stop) if isinstance(stop, Tensor) else convert_to_tensor(
        stop, dtype_hint=lo.dtype)
    if not lo.is_floating_point():
        lo = lo.to(torch.float64)
    if hi.dtype is not lo.dtype:
        if not hi.is_floating_point() or isinstance(stop, (int, float)):
            hi = hi.to(lo.dtype)
        else:
            raise InvalidArgumentError(
                None, None, f"linspace: start and stop have different dtypes, "
                f"{dtype_name(lo.dtype)} and {dtype_name(hi.dtype)}."
            )
    count = int(num)
    if count < 0:
        raise InvalidArgumentError(None, None, f"linspace: Requires num >= 0, got {count}")
    try:
        batch = torch.broadcast_shapes(lo.shape, hi.shape)
    except RuntimeError:
        raise shapes_error("linspace", lo.shape, hi.shape) from None
    lo, hi = lo.expand(batch).unsqueeze(-1), hi.expand(batch).unsqueeze(-1)
    delta = (hi - lo) / max(count - 1, 1)
    values = lo + torch.arange(count, dtype=lo.dtype, device=lo.device) * delta
    if count > 1:
        values = torch.cat([values[..., :-1], hi], dim=-1)
    rank = len(batch) + 1
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            None, None, f"linspace: axis {axis} is out of range for a result of rank {rank}."
        )
    return values.movedim(-1, axis % rank)


# --------------------------------------------------------------------------------------------
# shapes
# --------------------------------------------------------------------------------------------
def is_tensor(x: Any) -> builtins.bool:
    """Checks whether `x` is a tensor (TF's `tf.is_tensor`): a `torch.Tensor` (a `tf.Variable`
    included) or a Keras symbolic tensor; numpy arrays and Python values are not."""
    if isinstance(x, Tensor):
        return True
    keras_tensor = sys.modules.get("torchestimator.keras.engine.keras_tensor")
    return keras_tensor is not None and isinstance(x, keras_tensor.KerasTensor)


def _shape_of(value: Any) -> tuple[int, ...]:
    if isinstance(value, (Tensor, np.ndarray)):
        return tuple(value.shape)
    return tuple(np.shape(_to_tensor(value)))


def shape(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    """Returns a 1-D tensor holding the shape of `input` (TF's `tf.shape`).

    Returns:
        An int32 tensor (or `out_type`: int32 or int64) on the host.
    """
    return torch.tensor(_shape_of(input), dtype=_int_dtype(out_type, "shape"))


def shape_n(input: Any, out_type: Any = torch.int32, name: str | None = None) -> list[Tensor]:
    """Returns the shapes of a list of tensors (TF's `tf.shape_n`).

    Returns:
        A list of 1-D int32 (or `out_type`) tensors.
    """
    dtype = _int_dtype(out_type, "shape_n")
    return [torch.tensor(_shape_of(x), dtype=dtype) for x in input]


def rank(input: Any, name: str | None = None) -> Tensor:
    """Returns the number of dimensions of `input` (TF's `tf.rank`).

    Returns:
        A scalar int32 tensor.
    """
    return torch.tensor(len(_shape_of(input)), dtype=torch.int32)


def size(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    """Returns the number of elements of `input` (TF's `tf.size`).

    Returns:
        A scalar int32 (or `out_type`) tensor.
    """
    count = 1
    for d in _shape_of(input):
        count *= d
    return torch.tensor(count, dtype=_int_dtype(out_type, "size"))


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Any:
    """Checks that `x` has a shape compatible with `shape` (None dims match anything), as TF's
    `tf.ensure_shape`.

    Returns:
        `x` itself; raises `InvalidArgumentError` naming both shapes otherwise.
    """
    x = _to_tensor(x)
    expected = as_shape(shape)
    if not expected.is_compatible_with(tuple(x.shape)):
        shown = "unknown" if expected.rank is None else \
            "[" + ",".join("?" if d is None else str(d) for d in expected) + "]"
        raise InvalidArgumentError(
            None, None,
            f"Shape of tensor input {list(x.shape)} is not compatible with expected shape {shown}.",
        )
    return x


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """Computes the shape of a broadcast from two static shapes (TF's `tf.broadcast_static_shape`).

    Returns:
        A `TensorShape`; raises ValueError if the shapes do not broadcast.
    """
    a, b = as_shape(shape_x), as_shape(shape_y)
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = list(a), list(b)
    n = max(len(da), len(db))
    da, db = [1] * (n - len(da)) + da, [1] * (n - len(db)) + db
    out: list[int | None] = []
    for p, q in zip(da, db):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None or q is None:
            out.append(p if q is None else q)
        elif p == q:
            out.append(p)
        else:
            raise ValueError(
                "Incompatible shapes for broadcasting. Two shapes are compatible if for each "
                "dimension pair they are either equal or one of them is 1. "
                f"Received: {shape_x} and {shape_y}."
            )
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """Computes the shape of a broadcast from two shape tensors (TF's
    `tf.broadcast_dynamic_shape`).

    Returns:
        A 1-D int tensor (the inputs' dtype, int32 for lists).
    """
    x, y = _to_tensor(shape_x), _to_tensor(shape_y)
    try:
        out = torch.broadcast_shapes(tuple(x.tolist()), tuple(y.tolist()))
    except RuntimeError:
        raise shapes_error("broadcast_dynamic_shape", x.tolist(), y.tolist()) from None
    return torch.tensor(tuple(out), dtype=x.dtype)


def get_static_value(tensor: Any, partial: builtins.bool = False) -> Any:
    """Returns the constant value of `tensor` as a numpy array (TF's `tf.get_static_value`):
    every eager tensor has one."""
    if isinstance(tensor, Tensor):
        return tensor.detach().cpu().numpy()
    if isinstance(tensor, np.ndarray):
        return tensor
    value = convert_to_tensor(tensor)
    return value if isinstance(value, np.ndarray) else value.numpy()


# --------------------------------------------------------------------------------------------
# dtypes and identities
# --------------------------------------------------------------------------------------------
def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Casts a tensor to a new type (TF's `tf.cast`).

    Floats to integers truncate toward zero; to bool, nonzero is True;
    complex to real keeps the real part. Python values and numpy arrays are
    converted first (a Python float becomes float32).

    Returns:
        A tensor of `dtype` with `x`'s shape; gradients flow through float casts.
    """
    if isinstance(x, Tensor):
        want = dtype if isinstance(dtype, torch.dtype) else _dtypes.as_dtype(dtype)
        if want is x.dtype:
            return x
        if want is _STRING:
            raise UnimplementedError(
                None, None, f"Cast {dtype_name(x.dtype)} to string is not supported; "
                "use tf.strings.as_string.",
            )
        if x.is_complex() and not want.is_complex:
            x = x.real
        return x.to(want)
    value = convert_to_tensor(x)
    want = _dtypes.as_dtype(dtype)
    if isinstance(value, np.ndarray):
        if want is _STRING:
            return value
        raise UnimplementedError(
            None, None, f"Cast string to {dtype_name(want)} is not supported; "
            "use tf.strings.to_number.",
        )
    return cast(value, want)


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """Converts two real tensors to a complex tensor, real + imag * 1j (TF's `tf.complex`).

    Returns:
        complex64 for float32 parts, complex128 for float64 parts.
    """
    re, im = _to_tensor(real), _to_tensor(imag)
    if isinstance(re, np.ndarray) or isinstance(im, np.ndarray) or re.dtype is not im.dtype or \
            re.dtype not in (torch.float32, torch.float64):
        shown = [dtype_name(v.dtype) if isinstance(v, Tensor) else "string" for v in (re, im)]
        raise TypeError(
            f"complex: real and imag must both be float32 or both float64, got {shown[0]} and "
            f"{shown[1]}."
        )
    try:
        return torch.complex(re, im)
    except RuntimeError:
        raise shapes_error("complex", re.shape, im.shape) from None


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Casts `value` to `dtype`, clamping values to the range of `dtype` first (TF's
    `tf.saturate_cast`).

    Returns:
        A tensor of `dtype`.
    """
    x = _to_tensor(value)
    want = _dtypes.as_dtype(dtype)
    if isinstance(x, np.ndarray) or want is _STRING:
        return cast(x, want)
    if x.is_complex() and not want.is_complex:
        x = x.real
    if want is not torch.bool and not want.is_complex and x.dtype is not torch.bool:
        info = torch.finfo(want) if want.is_floating_point else torch.iinfo(want)
        src = torch.finfo(x.dtype) if x.is_floating_point() or x.is_complex() else \
            torch.iinfo(x.dtype)
        lo = info.min if info.min > src.min else None
        hi = info.max if info.max < src.max else None
        if lo is not None or hi is not None:
            x = x.clamp(lo, hi)
    return x.to(want)


def identity(input: Any, name: str | None = None) -> Any:
    """Returns a tensor with the same shape and contents as `input` (TF's `tf.identity`).

    A `tf.Variable` gives a snapshot of its current value (gradients flow back
    to it); a tensor is returned as it is.
    """
    if isinstance(input, torch.nn.Parameter):
        value = getattr(input, "value", None)
        return value() if callable(value) else input.clone()
    return _to_tensor(input)


def identity_n(input: Any, name: str | None = None) -> list[Any]:
    """Returns a list of tensors with the same shapes and contents as the inputs (TF's
    `tf.identity_n`)."""
    return [identity(x) for x in input]


def stop_gradient(input: Any, name: str | None = None) -> Any:
    """Stops gradient computation (TF's `tf.stop_gradient`).

    Returns:
        `input`'s value, detached from the autograd graph.
    """
    x = _to_tensor(input)
    return x if isinstance(x, np.ndarray) else x.detach()
