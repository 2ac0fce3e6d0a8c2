"""Row indexing of a `tf.RaggedTensor`: `rt[i]`, `rt[a:b]`, `rt[i, j]`, `rt[:, a:b]`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from torchestimator._ragged import _values as V

if TYPE_CHECKING:
    from torchestimator._ragged._tensor import RaggedTensor

class RaggedIndexing:
    """The indexing methods of `RaggedTensor` (a mixin: `_values`, `_row_splits`)."""

    __slots__ = ()
    def _gather_rows(self, idx: torch.Tensor) -> RaggedTensor:
        idx = idx.to(torch.int64)
        splits = self._row_splits.to(torch.int64)
        starts, lengths = splits[:-1][idx], (splits[1:] - splits[:-1])[idx]
        vals = V.gather(self._values, V.ranges(starts, lengths))
        new = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
        return type(self)(vals, new.to(self._row_splits.dtype), internal=True,
                          uniform_row_length=self._uniform_row_length)

    def _row(self, i: int) -> Any:
        n = self._nrows()
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError(f"RaggedTensor index {i} is out of bounds for {n} rows")
        a, b = int(self._row_splits[j]), int(self._row_splits[j + 1])
        if isinstance(self._values, RaggedIndexing):
            return self._values._gather_rows(torch.arange(a, b))
        return self._values[a:b]

    def __getitem__(self, key: Any) -> Any:
        """Indexes rows (`rt[i]`, `rt[a:b]`), then inner dimensions (`rt[i, j]`, `rt[:, a:b]`).
        Indexing an inner ragged dimension with an integer raises ValueError, as TF."""
        if not isinstance(key, tuple):
            key = (key,)
        if not key:
            return self
        if key[0] is Ellipsis:
            if len(key) == 1:
                return self
            raise ValueError("RaggedTensor indexing with Ellipsis is supported only alone")
        first, rest = key[0], key[1:]
        if isinstance(first, (int, np.integer)) or (
                isinstance(first, torch.Tensor) and first.ndim == 0):
            row = self._row(int(first))
            return row[rest] if rest else row
        if isinstance(first, slice):
            idx = torch.arange(self._nrows())[first]
            rows = self if first == slice(None) else self._gather_rows(idx)
            if not rest:
                return rows
            return rows._index_inner(rest)
        raise TypeError(f"RaggedTensor indices must be ints or slices; received "
                        f"{type(first).__name__}")

    def _index_inner(self, key: tuple) -> RaggedTensor:
        first, rest = key[0], key[1:]
        if isinstance(first, slice):
            if first.step not in (None, 1):
                raise ValueError("RaggedTensor: slicing a ragged dimension with a step other "
                                 f"than 1 is not supported; received {first}")
            splits = self._row_splits.to(torch.int64)
            lengths = splits[1:] - splits[:-1]

            def norm(v: Any, default: torch.Tensor) -> torch.Tensor:
                if v is None:
                    return default
                t = torch.full_like(lengths, int(v))
                return torch.where(t < 0, t + lengths, t).clamp(min=0)

            lo = torch.minimum(norm(first.start, torch.zeros_like(lengths)), lengths)
            hi = torch.minimum(norm(first.stop, lengths), lengths)
            new_len = (hi - lo).clamp(min=0)
            vals = V.gather(self._values, V.ranges(splits[:-1] + lo, new_len))
            if rest:
                if isinstance(vals, RaggedIndexing):
                    vals = vals._index_inner(rest)
                else:
                    vals = vals[(slice(None), *rest)]
            new = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(new_len, 0)])
            return type(self)(vals, new.to(self._row_splits.dtype), internal=True)
        if first is Ellipsis and not rest:
            return self
        raise ValueError("Cannot index into an inner ragged dimension.")

    def __iter__(self) -> Iterator[Any]:
        for i in range(self._nrows()):
            yield self._row(i)
