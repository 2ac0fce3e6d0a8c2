"""`Dataset.unique`: each distinct element once, in order of first appearance."""

from __future__ import annotations

from collections.abc import Iterator

import torch

from torchestimator._dtypes import TensorSpec, dtype_name, string
from torchestimator.data.constants import UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.errors import InvalidArgumentError

_SUPPORTED = (torch.int32, torch.int64, string)


class UniqueDataset(UnaryDataset):
    """The distinct elements of a single-component int32/int64/string dataset (`unique`)."""

    def __init__(self, input_dataset: Dataset):
        super().__init__((input_dataset,))
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            raise InvalidArgumentError(
                None, None, "UniqueDataset only supports inputs with a single component.")
        if spec.dtype not in _SUPPORTED:
            raise TypeError(
                f"`tf.data.Dataset.unique` does not support type <dtype: "
                f"'{dtype_name(spec.dtype)}'> -- only `tf.int32`, `tf.int64`, and `tf.string` "
                "are supported."
            )

    def _open(self):
        return ElementStream(self._distinct())

    def _distinct(self) -> Iterator[list]:
        seen: set = set()
        for flat in iter_elements(self._input._open()):
            (c,) = flat
            key = _key(c)
            if key not in seen:
                seen.add(key)
                yield flat

    def _compute_spec(self):
        return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return UNKNOWN_CARDINALITY  # TF 2.15: unknown, even for an infinite input

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None


def _key(component) -> object:
    """A hashable value equal for equal components (shape included)."""
    if isinstance(component, torch.Tensor):
        return (tuple(component.shape), tuple(component.reshape(-1).tolist()))
    if isinstance(component, str):
        return component
    return (component.shape, tuple(component.reshape(-1).tolist()))
