"""`tf.data.Dataset`: the public API of an input pipeline, on PyTorch.

A `Dataset` is a recipe: sources (`from_tensor_slices`, `range`, file readers)
and transformations (`map`, `shuffle`, `batch`, ...) each return a new
`Dataset` node; nothing runs until the dataset is iterated. Every `iter()`
starts a fresh pass (a new epoch: reshuffled unless told otherwise) and
yields elements in the dataset's structure, with torch tensors as components
(strings as numpy arrays of `str`, a scalar string as `str`).

Inside, a pass moves columns, not rows (see `streams.py`): shuffling and
batching in-memory data rewrite index arrays and gather each batch at once;
file readers produce PyArrow record batches as column blocks. A `map` after
`batch` runs once per batch; a `map` before `batch` runs once per element
(the slow path, as in TF it is better placed after `batch` when it can be).

Batches of an unshuffled in-memory dataset are views of its arrays (TF's
tensors are immutable; treat yielded tensors as read-only, or clone them).

The transformations are implemented in this package's other modules; the
user-facing methods, their argument checks and docstrings are here (the node
protocol, inspection and iteration) and in three mixins `Dataset` inherits:
`_dataset_sources.py` (the static constructors), `_dataset_transforms.py`
(map, batch, shuffle, ...) and `_dataset_stateful.py` (grouping, sampling,
state, disk). Methods of a mixin are found on `Dataset` like its own (no
extra call layer).
"""

from __future__ import annotations

import abc
import copy
from collections.abc import Callable, Iterator
from typing import Any

from torchestimator.data import constants
from torchestimator.data._dataset_sources import SourcesMixin
from torchestimator.data._dataset_stateful import StatefulMixin
from torchestimator.data._dataset_transforms import TransformsMixin
from torchestimator.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from torchestimator.data.iterator import DatasetIterator, NumpyIterator, placement_device
from torchestimator.data.options import Options
from torchestimator.data.validation import as_callable
from torchestimator.errors import InvalidArgumentError


class Dataset(SourcesMixin, TransformsMixin, StatefulMixin, abc.ABC):
    """Represents a potentially large set of elements (TF's `tf.data.Dataset`).

    Build one from a source (`Dataset.from_tensor_slices`, `Dataset.range`,
    `TextLineDataset`, `experimental.make_csv_dataset`, ...), chain
    transformations, then iterate it: `for features, labels in dataset: ...`.
    """

    def __init__(self, inputs: tuple[Dataset, ...] = ()):
        self._inputs = tuple(inputs)
        self._spec: Any = None
        self._own_options: Options | None = None

    # ----------------------------------------------------------- node protocol
    @abc.abstractmethod
    def _open(self) -> Any:
        """Starts one pass; returns an IndexStream, BlockStream or ElementStream."""

    @abc.abstractmethod
    def _compute_spec(self) -> Any:
        """Returns the element spec (a nest of TensorSpec)."""

    def _compute_cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def _open_for_batch(self, batch_size: int) -> Any:
        """Starts a pass that will be cut into batches of `batch_size` rows.

        A shuffle overrides this to emit blocks of a multiple of the batch size, so
        that batches are slices of its blocks rather than concatenations.
        """
        return self._open()

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        """This pipeline reading only shard `index` of its files (or rows, per file).

        Returns None when the pipeline has no file source reachable through
        row-preserving transformations.
        """
        return None

    def _replace_inputs(self, inputs: tuple[Dataset, ...]) -> Dataset:
        new = copy.copy(self)
        new._inputs = tuple(inputs)
        return new

    @property
    def _input(self) -> Dataset:
        return self._inputs[0]

    # ------------------------------------------------------------- inspection
    @property
    def element_spec(self) -> Any:
        """The type specification of an element: a nest of `tf.TensorSpec` (TF's `element_spec`)."""
        if self._spec is None:
            self._spec = self._compute_spec()
        return self._spec

    def cardinality(self) -> constants.Cardinality:
        """Returns the number of elements, or INFINITE_CARDINALITY / UNKNOWN_CARDINALITY.

        The result is an int with `.numpy()`, like TF's scalar tensor.
        """
        return constants.Cardinality(self._compute_cardinality())

    def __len__(self) -> int:
        n = self._compute_cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        spec = "" if self._spec is None else f" element_spec={self._spec}"
        return f"<{type(self).__name__}{spec}>"

    def options(self) -> Options:
        """Returns the options of this pipeline (those of its inputs merged with its own)."""
        out = Options()
        for d in self._inputs:
            out = out.merge(d.options())
        if self._own_options is not None:
            out = out.merge(self._own_options)
        return out

    def with_options(self, options: Options, name: str | None = None) -> Dataset:
        """Returns a dataset with `options` set (they override options set earlier)."""
        if not isinstance(options, Options):
            raise TypeError(f"with_options expects a tf.data.Options; received {options!r}")
        return OptionsDataset(self, options)

    # -------------------------------------------------------------- iteration
    def __iter__(self) -> Iterator:
        """Starts a new pass; yields elements with torch tensors as components, on the device
        tensors are created on (the default device, a GPU when there is one; see
        `DatasetIterator`)."""
        return DatasetIterator(self, placement_device())

    def _iter_on_host(self) -> Iterator:
        """A new pass whose elements stay on the host (the library's input pipelines)."""
        return DatasetIterator(self)

    def as_numpy_iterator(self) -> Iterator:
        """Returns an iterator yielding elements with numpy arrays as components.

        Strings are numpy arrays of `str` (or `str` for a scalar), not `bytes` as in TF.
        """
        return NumpyIterator(self)

    def reduce(self, initial_state: Any, reduce_func: Callable, name: str | None = None) -> Any:
        """Reduces all elements into one state: `state = reduce_func(state, element)`.

        Returns the final state (components as tensors).
        """
        from torchestimator.data.mapping import (  # lazy: subclass (data.mapping subclasses Dataset; this method calls its reduce_dataset)
            reduce_dataset,
        )

        return reduce_dataset(self, initial_state, as_callable("reduce_func", reduce_func))

    def get_single_element(self, name: str | None = None) -> Any:
        """Returns the only element of the dataset.

        Raises InvalidArgumentError (a ValueError) "Dataset was empty." or "Dataset had
        more than one element.", as TF does.
        """
        it = iter(self)
        try:
            first = next(it)
        except StopIteration:
            raise InvalidArgumentError(None, None, "Dataset was empty.") from None
        try:
            next(it)
        except StopIteration:
            return first
        raise InvalidArgumentError(None, None, "Dataset had more than one element.")

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        """Returns `transformation_func(self)`, which must be a Dataset."""
        out = as_callable("transformation_func", transformation_func)(self)
        if not isinstance(out, Dataset):
            raise TypeError(
                f"`transformation_func` must return a Dataset; received {type(out).__name__}"
            )
        return out


class UnaryDataset(Dataset):
    """A transformation of one input that keeps rows whole (map, shuffle, batch, ...).

    `shard` can split the files of such a pipeline at its reader: the sharded
    pipeline is this transformation applied to the sharded input.
    """

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        inner = self._input._shard_files(num_shards, index)
        return None if inner is None else self._replace_inputs((inner,))


class OptionsDataset(UnaryDataset):
    """The input dataset with options attached (`Dataset.with_options`)."""

    def __init__(self, input_dataset: Dataset, options: Options):
        super().__init__((input_dataset,))
        self._own_options = options

    def _open(self) -> Any:
        return self._input._open()

    def _compute_spec(self) -> Any:
        return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return self._input._compute_cardinality()
