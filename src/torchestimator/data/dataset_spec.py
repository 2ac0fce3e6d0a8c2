"""`tf.data.DatasetSpec` and `tf.data.IteratorSpec`: specs of datasets and iterators as values.

A dataset can be a component of another dataset's elements: `window` yields a
dataset per window, `group_by_window` hands each window to `reduce_func` as a
dataset, and `Dataset.load`'s `reader_func` receives a dataset of shard
datasets. The element spec of such a component is a `DatasetSpec`.
"""

from __future__ import annotations

from typing import Any

from torchestimator import _type_spec
from torchestimator.data.dataset import Dataset
from torchestimator.data.iterator import DatasetIterator


class DatasetSpec:
    """Type specification for a `tf.data.Dataset` (TF's `tf.data.DatasetSpec`).

    `element_spec` is the nest of `tf.TensorSpec` of the dataset's elements;
    `dataset_shape` is () for a single dataset.
    """

    def __init__(self, element_spec: Any, dataset_shape: Any = ()):
        self._element_spec = element_spec
        self._dataset_shape = tuple(dataset_shape)

    @property
    def element_spec(self) -> Any:
        """The element spec of the described dataset."""
        return self._element_spec

    @property
    def shape(self) -> tuple:
        """The shape of the dataset value: () for one dataset."""
        return self._dataset_shape

    @property
    def value_type(self) -> type:
        """The Python type of the described values (`tf.data.Dataset`)."""
        return Dataset

    @staticmethod
    def from_value(value: Any) -> DatasetSpec:
        """The DatasetSpec of a dataset: `DatasetSpec(value.element_spec)`."""
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True for a DatasetSpec or a dataset with an equal element spec."""
        if not isinstance(spec_or_value, (DatasetSpec, Dataset)):
            return False
        return spec_or_value.element_spec == self._element_spec

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DatasetSpec) and other._element_spec == self._element_spec
                and other._dataset_shape == self._dataset_shape)

    def __hash__(self) -> int:
        return hash((DatasetSpec, repr(self._element_spec), self._dataset_shape))

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, TensorShape({list(self._dataset_shape)}))"


class IteratorSpec:
    """Type specification for a `tf.data.Iterator` (TF's `tf.data.IteratorSpec`)."""

    def __init__(self, element_spec: Any):
        self._element_spec = element_spec

    @property
    def element_spec(self) -> Any:
        """The element spec of the iterated dataset."""
        return self._element_spec

    @property
    def value_type(self) -> type:
        """The Python type of the described values (`tf.data.Iterator`)."""
        return DatasetIterator

    @staticmethod
    def from_value(value: Any) -> IteratorSpec:
        """The IteratorSpec of an iterator: `IteratorSpec(value.element_spec)`."""
        return IteratorSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True for an IteratorSpec or an iterator with an equal element spec."""
        if not isinstance(spec_or_value, (IteratorSpec, DatasetIterator)):
            return False
        return spec_or_value.element_spec == self._element_spec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IteratorSpec) and other._element_spec == self._element_spec

    def __hash__(self) -> int:
        return hash((IteratorSpec, repr(self._element_spec)))

    def __repr__(self) -> str:
        return f"IteratorSpec({self._element_spec!r})"


# tf.type_spec_from_value(dataset) and (iterator), as TF's
_type_spec.VALUE_SPECS.extend([(Dataset, DatasetSpec.from_value),
                               (DatasetIterator, IteratorSpec.from_value)])
