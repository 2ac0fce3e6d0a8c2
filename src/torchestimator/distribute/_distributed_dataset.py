"""Datasets split across the replicas of a strategy (`experimental_distribute_dataset`,
`distribute_datasets_from_function`).

One process is one replica here, so a distributed dataset is what this
replica reads:

* `DistributedDataset`: a dataset of **global** batches; each replica takes its
  contiguous part of every batch (batch size B over N replicas: the first
  `B % N` replicas get one more row), as TF's rebatching gives each replica
  `B / N` rows. Every replica reads the whole input (TF's `AutoShardPolicy.DATA`),
  so the union of the replicas' batches is exactly the global batch.
* `DistributedDatasetsFromFunction`: the dataset `dataset_fn(input_context)`
  made for this replica; the function shards it and picks the per-replica batch
  size itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator.distribute._input_context import InputContext


def _as_state(value: Any) -> Any:
    """A reduce state's leaves as tensors, as TF's while_loop makes its loop variables."""
    if isinstance(value, dict):
        return type(value)((k, _as_state(v)) for k, v in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_as_state(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_as_state(v) for v in value)
    return value if isinstance(value, torch.Tensor) else convert_to_tensor(value)


def _signature(state: Any) -> Any:
    """The structure and dtypes of a reduce state (what must not change between steps)."""
    if isinstance(state, dict):
        return (type(state), tuple((k, _signature(v)) for k, v in state.items()))
    if isinstance(state, (list, tuple)):
        return (type(state), tuple(_signature(v) for v in state))
    return getattr(state, "dtype", type(state))


def reduce_elements(dataset: Any, initial_state: Any, reduce_func: Callable[[Any, Any], Any]) -> Any:
    """TF's `DistributedDataset.reduce`: `state = reduce_func(state, element)` over this
    replica's elements, from `initial_state` (its leaves made tensors, as TF's loop
    variables); the state must keep its structure and dtypes (TypeError otherwise, as TF's
    while_loop)."""
    if not callable(reduce_func):
        raise TypeError(f"reduce_func must be callable (state, element) -> state; received {reduce_func!r}.")
    state = _as_state(initial_state)
    expected = _signature(state)
    for element in dataset:
        state = _as_state(reduce_func(state, element))
        got = _signature(state)
        if got != expected:
            raise TypeError(
                "reduce_func must return a state with the structure and dtypes of initial_state: it "
                f"entered the loop as {expected!r} and became {got!r}.")
    return state


def replica_slice(n: int, rank: int, world: int) -> slice:
    """The rows of replica `rank` of `world` in a batch of `n` rows."""
    base, extra = divmod(n, world)
    start = rank * base + min(rank, extra)
    return slice(start, start + base + (1 if rank < extra else 0))


def _batch_rows(value: Any) -> int | None:
    if isinstance(value, (torch.Tensor, np.ndarray)):
        return int(value.shape[0]) if value.ndim else None
    if isinstance(value, dict):
        for v in value.values():
            rows = _batch_rows(v)
            if rows is not None:
                return rows
        return None
    if isinstance(value, (list, tuple)):
        for v in value:
            rows = _batch_rows(v)
            if rows is not None:
                return rows
    return None


def split_batch(batch: Any, rank: int, world: int) -> Any:
    """This replica's part of a global `batch` (a nested structure of tensors/arrays whose first
    dimension is the batch); values without a batch dimension are kept whole."""
    rows = _batch_rows(batch)
    if rows is None or world <= 1:
        return batch
    part = replica_slice(rows, rank, world)

    def cut(value: Any) -> Any:
        if isinstance(value, (torch.Tensor, np.ndarray)):
            return value[part] if value.ndim and value.shape[0] == rows else value
        if isinstance(value, dict):
            return type(value)((k, cut(v)) for k, v in value.items())
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*(cut(v) for v in value))
        if isinstance(value, (list, tuple)):
            return type(value)(cut(v) for v in value)
        return value

    return cut(batch)


class DistributedDataset:
    """A dataset whose elements are this replica's part of each global batch of `dataset`
    (what `strategy.experimental_distribute_dataset` returns). Iterable; `element_spec`
    and `cardinality` as the source's."""

    def __init__(self, dataset: Any, rank: int, world: int) -> None:
        self._dataset = dataset
        self._rank = rank
        self._world = world

    def __iter__(self) -> Iterator:
        rank, world = self._rank, self._world
        for batch in self._dataset:
            yield split_batch(batch, rank, world)

    @property
    def element_spec(self) -> Any:
        """The element spec of the source dataset (global batch shapes)."""
        return getattr(self._dataset, "element_spec", None)

    def cardinality(self) -> Any:
        """The number of batches (each replica gets a part of every global batch)."""
        return self._dataset.cardinality()

    def reduce(self, initial_state: Any, reduce_func: Callable[[Any, Any], Any]) -> Any:
        """Executes `reduce_func(state, element)` over every element this replica reads, from
        `initial_state`; returns the final state (TF's `DistributedDataset.reduce`)."""
        return reduce_elements(self, initial_state, reduce_func)

    def __repr__(self) -> str:
        return f"DistributedDataset(replica {self._rank} of {self._world}, source={self._dataset!r:.120})"


class DistributedDatasetsFromFunction:
    """The dataset `dataset_fn(input_context)` returned for this replica (what
    `strategy.distribute_datasets_from_function` returns). Iterable."""

    def __init__(self, dataset_fn: Callable[[InputContext], Any], input_context: InputContext) -> None:
        if not callable(dataset_fn):
            raise TypeError(f"dataset_fn must be callable (input_context -> Dataset); received {dataset_fn!r}.")
        self._input_context = input_context
        self._dataset = dataset_fn(input_context)

    def __iter__(self) -> Iterator:
        return iter(self._dataset)

    @property
    def element_spec(self) -> Any:
        """The element spec of this replica's dataset."""
        return getattr(self._dataset, "element_spec", None)

    def cardinality(self) -> Any:
        """The number of batches of this replica's dataset."""
        return self._dataset.cardinality()

    def reduce(self, initial_state: Any, reduce_func: Callable[[Any, Any], Any]) -> Any:
        """Executes `reduce_func(state, element)` over every element of this replica's
        dataset, from `initial_state`; returns the final state (TF's `reduce`)."""
        return reduce_elements(self, initial_state, reduce_func)
