"""`FeatureTransformationCache`: one batch's raw features and the columns' transforms.

As TF's cache of the same name: a column used by several others (a
categorical column under both an embedding and a crossed column) is
transformed once per batch.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._engine.object_scope import current_scope
from torchestimator._torch_private import version
from torchestimator.feature_column import _inputs, _string_memo

_LAST_BATCH = threading.local()
_ABSENT = object()


class FeatureTransformationCache:
    """Holds the raw `features` of one batch and memoizes each column's transform.

    Args:
        features: a dict of feature name -> raw values (tensors, numpy arrays,
            lists, ragged lists of lists).

    Raises ValueError when `features` is not a dict.
    """

    def __init__(self, features: Mapping[str, Any]):
        if not isinstance(features, Mapping):
            raise ValueError(
                f"We expected a dictionary here. Instead we got: {type(features).__name__}. "
                "Feature columns read a dict of feature name -> values."
            )
        self._features = dict(features)
        self._cache: dict[Any, Any] = {}
        self._by_identity: dict[int, tuple[Any, Any]] = {}  # id(column) -> (column, transform)

    @classmethod
    def for_batch(cls, features: Mapping[str, Any]) -> FeatureTransformationCache:
        """The cache of this batch, shared by every layer that reads the same `features` dict
        (wide & deep's linear and DNN parts look up each categorical column once).

        Column transforms hold no layer state, so sharing them is safe; a dict whose values
        were replaced or modified in place since gets a new cache.
        """
        if not isinstance(features, Mapping):
            return cls(features)
        # The cache assumes what a step of fit/evaluate/predict or a model_fn guarantees: each
        # batch is a new dict from the input pipeline, not written in place during the step. So
        # it is shared only inside such a step (an active object scope), and only while the dict
        # holds the same value objects (kept alive here, so their ids cannot be reused) and no
        # tensor among them was modified in place (torch's version counter). A dict reused
        # outside fit/model_fn (a numpy array written in place between calls) always gets a new
        # cache.
        if current_scope() is None:
            _LAST_BATCH.entry = None
            return cls(features)
        items = tuple(features.items())
        versions = tuple([version(v) if isinstance(v, torch.Tensor) else None for v in features.values()])
        last = getattr(_LAST_BATCH, "entry", None)
        if (
            last is not None and last[0] is features and len(last[1]) == len(items)
            and all(k1 == k2 and v1 is v2 for (k1, v1), (k2, v2) in zip(last[1], items))
            and last[2] == versions
        ):
            return last[3]
        cache = cls(features)
        _LAST_BATCH.entry = (features, items, versions, cache)
        return cache

    @property
    def feature_names(self) -> list[str]:
        """The names of the raw features of this batch, sorted."""
        return sorted(str(k) for k in self._features)

    def raw(self, key: str, column: str) -> Any:
        """Returns the raw feature `key` that `column` reads.

        Raises ValueError naming the feature and the column, and listing the
        features present, when the batch lacks it.
        """
        try:
            return self._features[key]
        except KeyError:
            raise ValueError(
                f"Feature {key!r} is required by feature column {column!r}, but it is not in the "
                f"input features. Features present: {self.feature_names}."
            ) from None

    def get(self, key: Any, state_manager: Any, training: bool | None = None) -> Any:
        """Returns the raw feature for a string key, or the memoized transform of a column."""
        del training
        if isinstance(key, str):
            return self.raw(key, key)
        seen = self._by_identity.get(id(key))
        if seen is not None and seen[0] is key:  # the same column again: no need to hash it
            return seen[1]
        cache_key: Any = key  # an equal column (another object, same config) shares the transform
        try:
            value = self._cache.get(cache_key, _ABSENT)
        except TypeError:  # a column holding an unhashable object (e.g. an initializer)
            cache_key = id(key)
            value = self._cache.get(cache_key, _ABSENT)
        if value is _ABSENT:
            value = key.transform_feature(self, state_manager)
            self._cache[cache_key] = value
        self._by_identity[id(key)] = (key, value)
        return value

    def memoized(self, key: tuple, compute: Any) -> Any:
        """`compute()`, once per batch for `key` (a tuple naming what is computed)."""
        value = self._cache.get(key, _ABSENT)
        if value is _ABSENT:
            value = self._cache[key] = compute()
        return value

    def raw_sparse(
        self, key: str, column: str, want_string: bool | None, drop_missing: bool = True
    ) -> _inputs.RawSparse:
        """Returns raw feature `key` read as categorical values (`_inputs.raw_sparse`).

        The reading is done once per batch and feature, however many columns
        use the feature; each column's dtype is then checked.
        """
        full = self._cache.get(("\0raw", key, False))
        if full is None:
            full = _inputs.raw_sparse(self.raw(key, column), column, key, None, drop_missing=False)
            self._cache[("\0raw", key, False)] = full
        raw = full
        if drop_missing:
            raw = self._cache.get(("\0raw", key, True))
            if raw is None:
                raw = _inputs.drop_missing_values(full)
                self._cache[("\0raw", key, True)] = raw
        return _inputs.check_raw_kind(raw, want_string, column, key)

    def dense_strings(self, key: str, column: str) -> _string_memo.DenseStrings | None:
        """Returns raw feature `key` as `DenseStrings` when it is a dense numpy array of str, else None.

        Read once per batch and feature (see `_string_memo.dense_strings`).
        """
        cache_key = ("\0strings", key)
        if cache_key not in self._cache:
            self._cache[cache_key] = _string_memo.dense_strings(self.raw(key, column))
        return self._cache[cache_key]

    def batch_size(self, key: str, column: str) -> int | None:
        """Returns the number of examples of raw feature `key` (None for a scalar)."""
        return _inputs.batch_size_of(self.raw(key, column))
