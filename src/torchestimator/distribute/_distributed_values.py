"""`tf.distribute.DistributedValues` and its per-replica kinds (`PerReplica`, `Mirrored`), and
`tf.distribute.DistributedIterator`, `tf.distribute.RunOptions`.

One process is one replica here, so a strategy's values are plain tensors; a
`DistributedValues` is the explicit form: the values of this process's replicas (`.values`),
which the `CrossDeviceOps` reduce across the processes."""

from __future__ import annotations

import collections
from collections.abc import Iterator
from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator.errors import OutOfRangeError


class DistributedValues:
    """Base class for representing distributed values (TF's `tf.distribute.DistributedValues`):
    one value per replica of this worker, in `.values` (a tuple)."""

    def __init__(self, values: Any):
        if isinstance(values, DistributedValues):
            values = values.values
        if not isinstance(values, (list, tuple)):
            values = (values,)
        if not values:
            raise ValueError("DistributedValues needs at least one replica value; got an empty sequence.")
        self._values = tuple(values)

    @property
    def values(self) -> tuple:
        """The replicas' values on this worker, in replica order."""
        return self._values

    def _get(self, replica_id: int = 0) -> Any:
        return self._values[replica_id]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator:
        return iter(self._values)

    def __repr__(self) -> str:
        body = ", ".join(f"{i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n  {body}\n}}"


class PerReplica(DistributedValues):
    """Values that may differ between replicas (TF's `PerReplica`, what `strategy.run` returns)."""


class Mirrored(DistributedValues):
    """Values equal on every replica (TF's `Mirrored`): reading one gives the value."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._values[0], name)


class DistributedIterator:
    """An iterator over a `tf.distribute.DistributedDataset` (TF's
    `tf.distribute.DistributedIterator`): `get_next()` is this replica's next element,
    `get_next_as_optional()` the same as a `tf.experimental.Optional` (empty at the end)."""

    def __init__(self, dataset: Any):
        self._dataset = dataset
        self._iterator = iter(dataset)

    def __iter__(self) -> DistributedIterator:
        return self

    def __next__(self) -> Any:
        return next(self._iterator)

    def get_next(self) -> Any:
        """This replica's next element; raises `tf.errors.OutOfRangeError` at the end."""
        try:
            return next(self._iterator)
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self) -> Any:
        """The next element as a `tf.experimental.Optional`, empty when the input is exhausted."""
        from torchestimator.data.experimental import (  # lazy: heavy (torchestimator.data.experimental, 408 ms)
            Optional,
        )

        try:
            value = next(self._iterator)
        except StopIteration:
            return Optional.empty(self.element_spec)
        return Optional.from_value(value)

    @property
    def element_spec(self) -> Any:
        """The type specification of an element (the dataset's)."""
        return getattr(self._dataset, "element_spec", None)


class RunOptions(collections.namedtuple("RunOptions", [
        "experimental_enable_dynamic_batch_size", "experimental_bucketizing_dynamic_shape",
        "experimental_xla_options"])):
    """Run options for `strategy.run` (TF's `tf.distribute.RunOptions`). The TPU/XLA options
    are recorded: replicas here are processes with dynamic shapes throughout."""

    def __new__(cls, experimental_enable_dynamic_batch_size: bool = True,
                experimental_bucketizing_dynamic_shape: bool = False,
                experimental_xla_options: Any = None) -> RunOptions:
        return super().__new__(cls, experimental_enable_dynamic_batch_size,
                               experimental_bucketizing_dynamic_shape, experimental_xla_options)


def local_values(value: Any) -> tuple:
    """The replica values of `value` on this worker: a DistributedValues' `.values`, else
    `(value,)`."""
    return value.values if isinstance(value, DistributedValues) else (value,)


def as_tensor(value: Any) -> torch.Tensor:
    """A replica value as a tensor."""

    return value if isinstance(value, torch.Tensor) else convert_to_tensor(value)
