"""TensorFlow dtype names mapped to torch dtypes, and `TensorSpec`.

TensorFlow had a string tensor; torch has none. `string` is a marker dtype:
values of a string column stay numpy arrays of `str` (object dtype) until a
feature column or a lookup layer turns them into ids.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch


class _StringDType:
    """The marker for string data (TF's `tf.string`); values are numpy arrays of str."""

    name = "string"
    is_floating = False
    is_integer = False

    def __repr__(self) -> str:
        return "tf.string"

    def __reduce__(self):
        return "string"


string = _StringDType()
float16 = half = torch.float16
bfloat16 = torch.bfloat16
float32 = torch.float32
float64 = double = torch.float64
int8 = torch.int8
int16 = torch.int16
int32 = torch.int32
int64 = torch.int64
uint8 = torch.uint8
bool = torch.bool  # noqa: A001 - TF's name
complex64 = torch.complex64
complex128 = torch.complex128
uint16 = torch.uint16
uint32 = torch.uint32
uint64 = torch.uint64



class ExtraDType:
    """A TF dtype with no torch tensor storage here (the quantized `qint8`..`quint16`,
    `resource`, `variant`, `int4`, `uint4`): carries TF's name, `as_datatype_enum`, `size` and
    predicates; making a tensor of it raises a `TypeError` naming the dtype."""

    def __init__(self, name: str, enum: int, size: int, *, quantized: builtins.bool = False,
                 numpy_base: str | None = None, integer_range: tuple[int, int] | None = None,
                 torch_dtype: Any = None):
        self.name = name
        self.as_datatype_enum = enum
        self.size = size
        self.is_quantized = quantized
        self.is_numeric = quantized
        self.is_integer = integer_range is not None
        self.is_unsigned = integer_range is not None and integer_range[0] == 0
        self.is_floating = self.is_bool = self.is_complex = False
        self._numpy_base = numpy_base
        self._range = integer_range
        #: the torch dtype of the same name, where torch has one (torch's quantized dtypes)
        self.torch_dtype = torch_dtype

    @property
    def base_dtype(self) -> ExtraDType:
        """The dtype itself (there are no reference dtypes eagerly)."""
        return self

    real_dtype = base_dtype

    @property
    def as_numpy_dtype(self) -> Any:
        """TF's numpy type: a one-field structured dtype for quantized types (`[('qint8', 'i1')]`)."""
        if self._numpy_base is None:
            raise TypeError(f"tf.{self.name} has no numpy dtype")
        return np.dtype([(self.name, self._numpy_base)])

    @property
    def min(self) -> int:
        """The smallest value of an integer dtype; TypeError for the others, as TF's."""
        if self._range is None:
            raise TypeError(f"Cannot find minimum value of {self!r}.")
        return self._range[0]

    @property
    def max(self) -> int:
        """The largest value of an integer dtype; TypeError for the others, as TF's."""
        if self._range is None:
            raise TypeError(f"Cannot find maximum value of {self!r}.")
        return self._range[1]

    def is_compatible_with(self, other: Any) -> builtins.bool:
        """True when `other` names the same dtype."""
        try:
            return as_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def no_tensors(self, what: str = "a tensor") -> TypeError:
        """The error raised when asked to make `what` of this dtype."""
        return TypeError(
            f"Cannot make {what} of dtype tf.{self.name}: torch has no tensor storage for it here. "
            "Use a numeric dtype (tf.int8, tf.uint8, tf.int32, tf.float32, ...) and keep the "
            "quantization scale and zero point yourself.")

    def __eq__(self, other: object) -> builtins.bool:
        if isinstance(other, str):
            return other == self.name
        return other is self

    def __hash__(self) -> int:
        return hash(("tf.dtype", self.name))

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __reduce__(self):
        return self.name


qint8 = ExtraDType("qint8", 11, 1, quantized=True, numpy_base="i1", torch_dtype=torch.qint8)
quint8 = ExtraDType("quint8", 12, 1, quantized=True, numpy_base="u1", torch_dtype=torch.quint8)
qint32 = ExtraDType("qint32", 13, 4, quantized=True, numpy_base="<i4", torch_dtype=torch.qint32)
qint16 = ExtraDType("qint16", 15, 2, quantized=True, numpy_base="<i2")
quint16 = ExtraDType("quint16", 16, 2, quantized=True, numpy_base="<u2")
resource = ExtraDType("resource", 20, 0)
variant = ExtraDType("variant", 21, 0)
int4 = ExtraDType("int4", 29, 1, integer_range=(-8, 7))
uint4 = ExtraDType("uint4", 30, 1, integer_range=(0, 15))
float8_e4m3fn = torch.float8_e4m3fn
float8_e5m2 = torch.float8_e5m2
#: TF's `tf.dtypes.QUANTIZED_DTYPES` (without the graph-only `_ref` dtypes)
QUANTIZED_DTYPES = frozenset({qint8, quint8, qint16, quint16, qint32})
_EXTRA_BY_NAME = {d.name: d for d in (qint8, quint8, qint32, qint16, quint16, resource, variant, int4, uint4)}

_BY_NAME = {
    "float16": float16, "half": float16, "bfloat16": bfloat16, "float32": float32,
    "float": float32, "float64": float64, "double": float64, "int8": int8, "int16": int16,
    "int32": int32, "int64": int64, "uint8": uint8, "bool": bool, "complex64": complex64,
    "complex128": complex128, "uint16": uint16, "uint32": uint32, "uint64": uint64,
    "string": string, "str": string, "object": string,
    "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2, **_EXTRA_BY_NAME,
}


def as_dtype(type_value: Any) -> torch.dtype | _StringDType:
    """Returns the torch dtype (or the `string` marker) named by `type_value`.

    Accepts TF/Keras names ('float32', 'int64', 'string'), torch dtypes, numpy
    dtypes and Python types (float, int, str, bool).
    """
    if type_value is None:
        raise ValueError("dtype must not be None")
    if isinstance(type_value, (torch.dtype, ExtraDType)) or type_value is string:
        return type_value
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            raise ValueError(
                f"Unknown dtype {type_value!r}; expected one of {sorted(_BY_NAME)}"
            ) from None
    if isinstance(type_value, (int, np.integer)) and not isinstance(type_value, (_pybool, np.bool_)):
        return _by_enum(int(type_value))
    if type_value is float:
        return float32
    if type_value is int:
        return int64
    if type_value is str or type_value is bytes:
        return string
    if type_value is _pybool:
        return bool
    try:
        np_dtype = np.dtype(type_value)
    except TypeError:
        raise ValueError(f"Cannot interpret {type_value!r} as a dtype") from None
    if np_dtype.kind in "OUS":
        return string
    return torch.from_numpy(np.zeros((), dtype=np_dtype)).dtype


_pybool = builtins.bool

#: TF's `DataType` enum values (types.proto) of the dtypes backed by torch ones.
_TORCH_BY_ENUM = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8",
                  7: "string", 8: "complex64", 9: "int64", 10: "bool", 14: "bfloat16",
                  17: "uint16", 18: "complex128", 19: "float16", 22: "uint32", 23: "uint64"}


def _by_enum(enum: int) -> Any:
    """The dtype whose TF `DataType` enum is `enum` (`tf.as_dtype(1)` is float32, as TF's)."""
    name = _TORCH_BY_ENUM.get(enum)
    if name is not None:
        return _BY_NAME[name]
    for value in _BY_NAME.values():
        if getattr(value, "as_datatype_enum", None) == enum:
            return value
    raise ValueError(f"Cannot interpret {enum!r} as a dtype: it is not one of TF's DataType enum "
                     "values (types.proto: 1 is float32, 9 int64, ...).")


def dtype_name(dtype: Any) -> str:
    """Returns the Keras/TF name of a dtype ('float32', 'int64', 'string')."""
    d = as_dtype(dtype)
    if d is string or isinstance(d, ExtraDType):
        return d.name
    return str(d).replace("torch.", "")


#: `tf.TensorShape`, set by `_tensor_shape` when it loads (it imports this module): the class a
#: spec's shape hands the rest of TF's shape API to.
TENSOR_SHAPE: list[type] = []


class SpecShape(tuple):
    """A `TensorSpec`'s shape: a tuple of ints and None (so it indexes, iterates, compares,
    hashes and prints as one: `(None, 2)`), with `tf.TensorShape`'s API as TF's specs have it
    (`spec.shape.as_list()`, `.rank`, `[1:].as_list()`, `.is_compatible_with(...)`, ...)."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return SpecShape(item) if isinstance(key, slice) else item

    def __add__(self, other: Any) -> SpecShape:  # type: ignore[override]
        return SpecShape(tuple(self) + tuple(other))

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return tuple.__repr__(self)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __getattr__(self, name: str) -> Any:
        # TensorShape's API (as_list, rank, num_elements, merge_with, with_rank, dims, ...)
        if name.startswith("__") or not TENSOR_SHAPE:
            raise AttributeError(name)
        return getattr(TENSOR_SHAPE[0](tuple(self)), name)

    def __reduce__(self) -> Any:
        return (SpecShape, (tuple(self),))


class TensorSpec:
    """Describes a tensor: `TensorSpec(shape, dtype=float32, name=None)`, as TF's.

    Used to declare serving inputs and `from_generator` output signatures.
    `shape` may contain None for unknown dimensions; it is a tuple with `tf.TensorShape`'s API
    (`spec.shape.as_list()`), or None for an unknown rank.
    """

    def __init__(self, shape: Any, dtype: Any = float32, name: str | None = None):
        self.shape = None if shape is None else SpecShape(None if d is None else int(d) for d in shape)
        self.dtype = as_dtype(dtype)
        self.name = name

    @classmethod
    def from_spec(cls, spec: Any, name: str | None = None) -> TensorSpec:
        """A TensorSpec with the shape and dtype of `spec` (any spec with `shape`, `dtype` and
        `name`), named `name`, or `spec.name` when `name` is None or empty (TF's rule)."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        """The TensorSpec describing `tensor`: its shape and dtype, and `name`.

        An eager tensor has no name of its own (TF's eager `from_tensor` names the spec `name`
        only). A graph placeholder, which is a TensorSpec here (`tf.compat.v1.placeholder`), is
        a symbolic tensor: its spec takes `name`, else the placeholder's name, as TF's does with
        a graph tensor. A string tensor (a numpy array of str/bytes/objects here) is a tensor
        of dtype `tf.string`.

        Raises:
            ValueError: `tensor` is not a tensor (a `tf.Variable`, a Python list, a numpy array
                of numbers, a SparseTensor, a Keras symbolic input), as TF's.
        """
        if isinstance(tensor, TensorSpec):
            return TensorSpec(tensor.shape, tensor.dtype, name or tensor.name)
        if isinstance(tensor, torch.Tensor) and not isinstance(tensor, torch.nn.Parameter):
            # a tf.Variable is a torch Parameter here
            return TensorSpec(tuple(tensor.shape), tensor.dtype, name)
        if isinstance(tensor, np.ndarray) and tensor.dtype.kind in "OSU":
            return TensorSpec(tensor.shape, string, name)
        raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")

    def is_compatible_with(self, spec_or_tensor: Any) -> bool:
        """True when `spec_or_tensor` is a TensorSpec or a tensor with this spec's dtype and a
        compatible shape (an unknown dimension or rank matches any), as TF's. A numpy array of
        numbers or a Python list is not a tensor and is never compatible; a string tensor (a
        numpy array of str/bytes/objects) is."""
        other = spec_or_tensor
        if isinstance(other, np.ndarray):
            if other.dtype.kind not in "OSU":
                return False
        elif not isinstance(other, (TensorSpec, torch.Tensor)):
            return False
        try:
            dtype = as_dtype(other.dtype)
        except (TypeError, ValueError):
            return False
        return dtype == self.dtype and _shapes_compatible(self.shape, other.shape)

    def is_subtype_of(self, other: Any) -> bool:
        """True when every tensor this spec describes is one `other` describes: same dtype, a
        shape at least as specific, and this spec unnamed or named as `other` (TF 2.15's
        rule: a named spec is not a subtype of an unnamed one)."""
        if not isinstance(other, TensorSpec) or other.dtype != self.dtype:
            return False
        if self.name and self.name != other.name:
            return False
        if other.shape is None:
            return True
        if self.shape is None or len(self.shape) != len(other.shape):
            return False
        return all(b is None or a == b for a, b in zip(self.shape, other.shape))

    def most_specific_common_supertype(self, others: Any) -> TensorSpec | None:
        """The most specific TensorSpec that this spec and every one of `others` are subtypes
        of: dimensions that differ become None, a rank that differs makes the shape unknown.
        None when a dtype or a name differs, or one of `others` is not a TensorSpec (TF's)."""
        shape = self.shape
        for other in others:
            if (not isinstance(other, TensorSpec) or other.dtype != self.dtype
                    or other.name != self.name):
                return None
            shape = _common_shape(shape, other.shape)
        return TensorSpec(shape, self.dtype, self.name)

    def most_specific_compatible_type(self, other: Any) -> TensorSpec:
        """TF1's name for the common spec of this one and `other` (deprecated in TF 2.15 for
        `most_specific_common_supertype`); a name that differs is dropped. Raises ValueError
        when the dtypes differ or `other` is not a TensorSpec."""
        if not isinstance(other, TensorSpec) or other.dtype != self.dtype:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        name = self.name if self.name == other.name else None
        return TensorSpec(_common_shape(self.shape, other.shape), self.dtype, name)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorSpec)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.name == other.name
        )

    def __hash__(self) -> int:
        return hash((self.shape, str(self.dtype), self.name))

    def __repr__(self) -> str:
        shape = "<unknown>" if self.shape is None else str(self.shape)
        return f"TensorSpec(shape={shape}, dtype=tf.{dtype_name(self.dtype)}, name={self.name!r})"


def _shapes_compatible(a: Any, b: Any) -> bool:
    """True when shapes `a` and `b` (None: unknown rank) could describe the same tensor."""
    if a is None or b is None:
        return True
    a, b = tuple(a), tuple(b)
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def _common_shape(a: Any, b: Any) -> tuple | None:
    """The most specific shape both `a` and `b` fit: None (unknown) for ranks that differ."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))
