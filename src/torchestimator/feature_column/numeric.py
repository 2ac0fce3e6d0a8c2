"""`numeric_column`, `bucketized_column`, and the serializable `ZScoreNormalizer`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator.feature_column import _inputs, serialization
from torchestimator.feature_column._base import (
    CategoricalColumn,
    DenseColumn,
    IdWeightPair,
    SparseIds,
    check_key,
    dense_layout,
)
from torchestimator.io._parse_spec import FixedLenFeature


@serialization.register_object
class ZScoreNormalizer:
    """A serializable `normalizer_fn`: returns `(x - mean) / std`.

    Our addition to TF's API. A `numeric_column` whose `normalizer_fn` is a
    Python lambda cannot be saved as data (an export could not rebuild it);
    `numeric_column('x', normalizer_fn=ZScoreNormalizer(mean=3.0, std=2.0))`
    can. `mean` and `std` may be numbers or lists (one per element of the
    column's shape).
    """

    def __init__(self, mean: Any = 0.0, std: Any = 1.0):
        std_arr = np.asarray(std, dtype=np.float64)
        if np.any(std_arr <= 0) or not np.all(np.isfinite(std_arr)):
            raise ValueError(f"ZScoreNormalizer: std must be finite and > 0, got {std!r}")
        mean_arr = np.asarray(mean, dtype=np.float64)
        if not np.all(np.isfinite(mean_arr)):
            raise ValueError(f"ZScoreNormalizer: mean must be finite, got {mean!r}")
        self.mean = mean_arr.tolist()
        self.std = std_arr.tolist()

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """Returns `(x - mean) / std` as float32."""
        x = x.to(torch.float32)
        mean = torch.as_tensor(self.mean, dtype=torch.float32, device=x.device)
        std = torch.as_tensor(self.std, dtype=torch.float32, device=x.device)
        return (x - mean) / std

    def get_config(self) -> dict[str, Any]:
        """Returns `{"mean", "std"}`."""
        return {"mean": self.mean, "std": self.std}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> ZScoreNormalizer:
        """Creates the normalizer from `get_config()`'s output."""
        return cls(**config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZScoreNormalizer) and self.get_config() == other.get_config()

    def __hash__(self) -> int:
        return hash(repr(self.get_config()))

    def __repr__(self) -> str:
        return f"ZScoreNormalizer(mean={self.mean}, std={self.std})"


def _normalize_shape(shape: Any, key: str) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        dims = tuple(shape)
    except TypeError:
        raise ValueError(f"shape must be an int or a tuple of ints. shape: {shape!r}, key: {key}") from None
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"shape dimensions must be integer. shape: {shape!r}, key: {key}")
        if d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape!r}, key: {key}")
    return tuple(int(d) for d in dims)


def _to_nested_tuple(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_to_nested_tuple(v) for v in value)
    return value


def _check_default_value(shape: tuple[int, ...], default_value: Any, dtype: Any, key: str) -> Any:
    """TF's `_check_default_value`: a scalar fills the shape; a nested list must match it."""
    if default_value is None:
        return None
    is_int = dtype.is_floating_point is False
    if isinstance(default_value, (int, float, np.integer, np.floating)) and not isinstance(default_value, bool):
        if is_int and float(default_value) != int(default_value):
            raise ValueError(
                f"default_value must be compatible with dtype. default_value: {default_value}, "
                f"dtype: {_dtypes.dtype_name(dtype)}, key: {key}"
            )
        cast = int if is_int else float
        return _to_nested_tuple(np.full(shape, cast(default_value)).tolist())
    try:
        arr = np.asarray(default_value)
    except ValueError:
        arr = None
    if arr is None or arr.dtype.kind not in "iuf":
        raise ValueError(
            f"default_value must be compatible with dtype. default_value: {default_value!r}, "
            f"dtype: {_dtypes.dtype_name(dtype)}, key: {key}"
        )
    if tuple(arr.shape) != shape:
        raise ValueError(
            f"The shape of default_value must be equal to given shape. default_value: "
            f"{default_value!r}, shape: {shape}, key: {key}"
        )
    return _to_nested_tuple(arr.astype(np.int64 if is_int else np.float64).tolist())


def _numeric_dtype(dtype: Any, key: str) -> torch.dtype:
    d = _dtypes.as_dtype(dtype)
    if d is _dtypes.string or d == torch.bool or d.is_complex:
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype!r}, key: {key}")
    return d


def _shaped(t: torch.Tensor, shape: tuple[int, ...], column: str, key: str) -> torch.Tensor:
    want = math.prod(shape)
    if t.ndim == 0:
        raise ValueError(
            f"numeric_column {column!r}: feature {key!r} is a scalar; give one value per example "
            "(shape (batch,) or (batch, ...))."
        )
    have = math.prod(t.shape[1:]) if t.ndim > 1 else 1
    if have != want:
        raise ValueError(
            f"numeric_column {column!r} has shape {shape} ({want} value(s) per example), but "
            f"feature {key!r} has shape {tuple(t.shape)} ({have} per example). Set shape= to match "
            "the data."
        )
    return t.reshape((t.shape[0],) + shape)


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class NumericColumn(DenseColumn):
    """A real-valued column: the feature as a float32 tensor [batch, *shape] (TF's NumericColumn)."""

    key: str
    shape: tuple = (1,)
    default_value: Any = None
    dtype: Any = dataclasses.field(default=torch.float32, metadata={"kind": serialization.DTYPE})
    normalizer_fn: Callable | None = dataclasses.field(
        default=None, metadata={"kind": serialization.OBJECT}, compare=True
    )

    def __post_init__(self) -> None:
        check_key(self.key)
        shape = _normalize_shape(self.shape, self.key)
        dtype = _numeric_dtype(self.dtype, self.key)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(
            self, "default_value", _check_default_value(shape, self.default_value, dtype, self.key)
        )
        if self.normalizer_fn is not None and not callable(self.normalizer_fn):
            raise TypeError(
                f"normalizer_fn must be a callable. Given: {self.normalizer_fn!r} (key: {self.key})"
            )

    @property
    def name(self) -> str:
        """The feature key."""
        return self.key

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """`{key: FixedLenFeature(shape, dtype, default_value)}`."""
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self) -> tuple[int, ...]:
        """The column's shape."""
        return self.shape

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> torch.Tensor:
        """Reads the feature, applies `normalizer_fn`, and returns float32 [batch, *shape]."""
        raw = transformation_cache.raw(self.key, self.name)
        t = _inputs.dense_numeric(raw, self.name, self.key)
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
            if not isinstance(t, torch.Tensor):
                t = torch.as_tensor(np.asarray(t))
        return _shaped(t.to(torch.float32), self.shape, self.name, self.key)

    def get_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> torch.Tensor:
        """Returns the normalized float32 tensor [batch, *shape]."""
        return transformation_cache.get(self, state_manager)


def numeric_column(
    key: str,
    shape: Any = (1,),
    default_value: Any = None,
    dtype: Any = torch.float32,
    normalizer_fn: Callable | None = None,
) -> NumericColumn:
    """Represents real valued or numerical features.

    Args:
        key: the feature name.
        shape: an int or tuple of ints, the shape of one example's value.
        default_value: a number or nested list of the column's shape, used
            when parsing `tf.train.Example`s that lack the feature (None: the
            feature is required).
        dtype: a float or integer dtype; the column's output is float32.
        normalizer_fn: applied to the raw tensor (e.g. `lambda x: (x - 3.0) / 4.2`).
            Note that a lambda cannot be serialized; `ZScoreNormalizer` can.

    Returns:
        A `NumericColumn`.
    """
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


@serialization.register_column
@dataclasses.dataclass(frozen=True)
class BucketizedColumn(DenseColumn, CategoricalColumn):
    """A numeric column discretized by boundaries (TF's BucketizedColumn).

    Buckets are left-closed: `(-inf, b0)`, `[b0, b1)`, ..., `[bn, +inf)`. As a
    dense column it is the one-hot [batch, *source_shape, len(boundaries)+1];
    as a categorical column the id of element i is `bucket + i * (len(boundaries)+1)`.
    """

    source_column: NumericColumn = dataclasses.field(metadata={"kind": serialization.COLUMN})
    boundaries: tuple = ()

    def __post_init__(self) -> None:
        if not isinstance(self.source_column, NumericColumn):
            raise ValueError(
                f"source_column must be a column generated with numeric_column(). Given: "
                f"{self.source_column!r}"
            )
        if len(self.source_column.shape) > 1:
            raise ValueError(
                f"source_column must be one-dimensional column. Given: {self.source_column!r}"
            )
        if not isinstance(self.boundaries, (list, tuple, np.ndarray)) or len(self.boundaries) == 0:
            if isinstance(self.boundaries, (list, tuple, np.ndarray)):
                raise ValueError("boundaries must not be empty.")
            raise ValueError(f"boundaries must be a sorted list. Given: {self.boundaries!r}")
        bounds = tuple(float(b) for b in self.boundaries)
        for a, b in zip(bounds, bounds[1:]):
            if a >= b:
                raise ValueError(f"boundaries must be a sorted list. Given: {list(self.boundaries)}")
        object.__setattr__(self, "boundaries", bounds)

    @property
    def name(self) -> str:
        """`<source>_bucketized`."""
        return f"{self.source_column.name}_bucketized"

    @property
    def parents(self) -> list[Any]:
        """The source numeric column."""
        return [self.source_column]

    @property
    def parse_example_spec(self) -> dict[str, Any]:
        """The source column's spec."""
        return self.source_column.parse_example_spec

    @property
    def variable_shape(self) -> tuple[int, ...]:
        """`source_shape + (len(boundaries) + 1,)`."""
        return tuple(self.source_column.shape) + (len(self.boundaries) + 1,)

    @property
    def num_buckets(self) -> int:
        """`(len(boundaries) + 1) * source dimension`."""
        return (len(self.boundaries) + 1) * math.prod(self.source_column.shape)

    def transform_feature(self, transformation_cache: Any, state_manager: Any) -> torch.Tensor:
        """Returns the bucket index (int64) of every element, [batch, *source_shape]."""
        source = transformation_cache.get(self.source_column, state_manager)
        # TF compares float32 inputs with float32 boundaries; so do we.
        bounds = self._boundaries_on(source.device)
        return torch.bucketize(source.to(torch.float32).contiguous(), bounds, right=True)

    def _boundaries_on(self, device: torch.device) -> torch.Tensor:
        """The boundaries, a float32 tensor on `device`, copied there once: a copy each step to a
        GPU, from pageable host memory, would block the host until the GPU caught up."""
        by_device = self.__dict__.setdefault("_boundaries_by_device", {})  # (a frozen dataclass)
        bounds = by_device.get(device)
        if bounds is None:
            bounds = by_device[device] = torch.tensor(self.boundaries, dtype=torch.float32).to(device)
        return bounds

    def get_dense_tensor(self, transformation_cache: Any, state_manager: Any) -> torch.Tensor:
        """Returns the one-hot float32 [batch, *source_shape, len(boundaries)+1]."""
        buckets = transformation_cache.get(self, state_manager)
        return torch.nn.functional.one_hot(buckets, len(self.boundaries) + 1).to(torch.float32)

    def get_sparse_tensors(self, transformation_cache: Any, state_manager: Any) -> IdWeightPair:
        """Returns one id per source element: `bucket + element_index * (len(boundaries)+1)`."""
        buckets = transformation_cache.get(self, state_manager)
        batch = buckets.shape[0]
        dim = math.prod(self.source_column.shape)
        flat = buckets.reshape(batch, dim)
        if dim == 1:
            ids = flat.reshape(-1)
        else:
            offsets = torch.arange(dim, device=flat.device) * (len(self.boundaries) + 1)
            ids = (flat + offsets).reshape(-1)
        if flat.device.type == "cpu":
            rows, cols = dense_layout(batch, dim)
        else:
            rows = torch.arange(batch, device=flat.device).repeat_interleave(dim)
            cols = torch.arange(dim, device=flat.device).repeat(batch)
        return IdWeightPair(SparseIds(ids, rows, cols, batch, dim, self.num_buckets), None)


def bucketized_column(source_column: NumericColumn, boundaries: Iterable[float]) -> BucketizedColumn:
    """Represents discretized dense input bucketed by `boundaries`.

    Buckets include the left boundary and exclude the right: with
    `boundaries=[0., 1., 2.]` the buckets are `(-inf, 0.)`, `[0., 1.)`,
    `[1., 2.)` and `[2., +inf)`.

    Returns:
        A `BucketizedColumn`. Raises ValueError when `source_column` is not a
        one-dimensional `numeric_column`, or `boundaries` is empty or unsorted.
    """
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError(f"boundaries must be a sorted list. Given: {boundaries!r}")
    return BucketizedColumn(source_column, tuple(boundaries))
