"""`Dataset.counter` / `tf.data.experimental.Counter`: start, start + step, ... forever."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import torch

from torchestimator._dtypes import TensorSpec, as_dtype, string
from torchestimator.data.columns import Block
from torchestimator.data.constants import INFINITE_CARDINALITY
from torchestimator.data.dataset import Dataset
from torchestimator.data.streams import BlockStream

_BLOCK = 1024  # values made at once


class CounterDataset(Dataset):
    """Counts up from `start` by `step`, forever (int64 unless `dtype` says otherwise)."""

    def __init__(self, start: Any = 0, step: Any = 1, dtype: Any = torch.int64):
        super().__init__()
        self._dtype = as_dtype(dtype)
        if self._dtype is string or self._dtype == torch.bool:
            raise TypeError(f"Dataset.counter: `dtype` must be numeric; received {dtype!r}")
        self._start = _number(start, "start")
        self._step = _number(step, "step")

    def _open(self):
        return BlockStream(self._blocks())

    def _blocks(self) -> Iterator[Block]:
        offsets = torch.arange(_BLOCK, dtype=torch.float64 if self._dtype.is_floating_point
                               else torch.int64)
        for k in itertools.count():
            first = self._start + k * _BLOCK * self._step
            yield Block([(first + offsets * self._step).to(self._dtype)], _BLOCK)

    def _compute_spec(self):
        return TensorSpec((), self._dtype)

    def _compute_cardinality(self) -> int:
        return INFINITE_CARDINALITY


def _number(value: Any, name: str) -> int | float:
    if isinstance(value, torch.Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            return value.item()  # numpy scalars
        except AttributeError:
            raise TypeError(f"Dataset.counter: `{name}` must be a number; received {value!r}") \
                from None
    return value
