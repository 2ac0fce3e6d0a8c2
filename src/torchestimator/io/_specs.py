"""Checked parsing specs: what `parse_example` reads for each feature key.

Turns the user's `{key: FixedLenFeature | VarLenFeature | FixedLenSequenceFeature}`
into `ParseSpec`s with the list kind to expect in the Example, the value
count, and the default as a flat numpy array. Errors name the key.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from torchestimator import _dtypes
from torchestimator.io._parse_spec import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
)

# dtype name -> (the Example list that holds it, TF's name of the type, numpy dtype)
LIST_KINDS = {
    "float32": ("float_list", "float", np.float32),
    "int64": ("int64_list", "int64", np.int64),
    "string": ("bytes_list", "string", object),
}
TF_TYPE_OF_LIST = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


@dataclasses.dataclass(frozen=True)
class ParseSpec:
    """One feature to parse: `kind` is 'fixed', 'var' or 'seq'."""

    key: str
    kind: str
    dtype: str  # 'float32' | 'int64' | 'string'
    list_kind: str  # 'float_list' | 'int64_list' | 'bytes_list'
    shape: tuple[int, ...] = ()
    size: int = 1
    default: np.ndarray | None = None  # flat, `size` values ('fixed'); one value ('seq')

    @property
    def np_dtype(self) -> Any:
        """The numpy dtype of the parsed values (object for strings)."""
        return LIST_KINDS[self.dtype][2]

    @property
    def tf_type(self) -> str:
        """TF's name of the value type ('float', 'int64', 'string'), as its errors say."""
        return LIST_KINDS[self.dtype][1]


def _dtype_name(key: str, dtype: Any) -> str:
    try:
        name = _dtypes.dtype_name(dtype)
    except (ValueError, TypeError):
        name = repr(dtype)
    if name not in LIST_KINDS:
        raise ValueError(
            f"Feature {key!r} has dtype {name}, but an Example holds only float32 (float_list), "
            "int64 (int64_list) or string (bytes_list) values; parse it as one of those and cast "
            "afterwards.")
    return name


def _shape(key: str, shape: Any) -> tuple[int, ...]:
    if shape is None:
        raise ValueError(f"Feature {key!r}: FixedLenFeature needs a shape (use [] for a scalar)")
    if isinstance(shape, int):
        shape = (shape,)
    try:
        dims = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise ValueError(f"Feature {key!r}: shape must be a list of ints; received {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"Feature {key!r}: shape {list(dims)} has a negative dimension")
    return dims


def _default(key: str, value: Any, dtype: str, size: int, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "string":
        arr = np.asarray(value, dtype=object).reshape(-1)
        arr = np.array([v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in arr],
                       dtype=object)
    else:
        try:
            arr = np.asarray(value, dtype=LIST_KINDS[dtype][2]).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"Feature {key!r}: default_value {value!r} is not a {dtype} "
                             "value") from None
    if arr.size == 1 and size != 1:
        arr = np.repeat(arr, size)
    if arr.size != size:
        raise ValueError(
            f"Feature {key!r}: default_value has {arr.size} values but shape {list(shape)} "
            f"holds {size}; give a scalar or {size} values")
    return arr


_CACHE: dict[Any, list[ParseSpec]] = {}


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


_CACHE_SIZE = 64


def check_specs(features: Any) -> list[ParseSpec]:
    """Returns the checked specs of `features`; ValueError naming a key whose spec is wrong.

    The result is remembered for hashable specs (a server parses with the same
    spec on every request).
    """
    try:
        cache_key = tuple(features.items())
        hash(cache_key)
    except AttributeError:
        return _check_specs(features)
    except TypeError:  # a list in a spec (shape=[4]): compare by value
        try:
            cache_key = tuple((k, type(v), _freeze(v)) for k, v in features.items())
            hash(cache_key)
        except TypeError:
            return _check_specs(features)
    specs = _CACHE.get(cache_key)
    if specs is None:
        specs = _check_specs(features)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[cache_key] = specs
    return specs


def _check_specs(features: Any) -> list[ParseSpec]:
    if not isinstance(features, Mapping):
        raise TypeError(
            "features must be a dict from feature key to tf.io.FixedLenFeature / VarLenFeature / "
            f"FixedLenSequenceFeature; received {type(features).__name__}")
    specs = []
    for key, feature in features.items():
        if not isinstance(key, str):
            raise TypeError(f"feature keys must be str; received {key!r}")
        if isinstance(feature, VarLenFeature):
            dtype = _dtype_name(key, feature.dtype)
            specs.append(ParseSpec(key, "var", dtype, LIST_KINDS[dtype][0]))
        elif isinstance(feature, FixedLenSequenceFeature):
            dtype = _dtype_name(key, feature.dtype)
            if not feature.allow_missing:
                raise ValueError(
                    f"Unsupported: FixedLenSequenceFeature requires allow_missing to be True "
                    f"(feature {key!r}) when parsing Examples.")
            shape = _shape(key, feature.shape)
            default = (None if feature.default_value is None
                       else _default(key, feature.default_value, dtype, 1, ()))
            specs.append(ParseSpec(key, "seq", dtype, LIST_KINDS[dtype][0], shape,
                                   math.prod(shape), default))
        elif isinstance(feature, FixedLenFeature):
            dtype = _dtype_name(key, feature.dtype)
            shape = _shape(key, feature.shape)
            size = math.prod(shape)
            default = (None if feature.default_value is None
                       else _default(key, feature.default_value, dtype, size, shape))
            specs.append(ParseSpec(key, "fixed", dtype, LIST_KINDS[dtype][0], shape, size,
                                   default))
        else:
            raise ValueError(
                f"Feature {key!r}: unsupported parsing spec {feature!r}; give "
                "tf.io.FixedLenFeature, VarLenFeature or FixedLenSequenceFeature")
    return specs
