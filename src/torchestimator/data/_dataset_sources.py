"""The static constructors of `tf.data.Dataset` (from_tensor_slices, range, zip,
list_files, ...): a mixin that `dataset.Dataset` inherits.

Each builds a source (or combining) node from this package's other modules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from torchestimator.data.validation import as_bool, as_seed

if TYPE_CHECKING:
    from torchestimator.data.dataset import Dataset


class SourcesMixin:
    """`Dataset`'s source methods (static: they build a new pipeline)."""

    __slots__ = ()

    # ---------------------------------------------------------------- sources
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset whose elements are slices of `tensors` along their first dimension.

        `tensors` is a tensor, array, list, or a nest (tuple/dict) of them, all with
        the same first dimension. Lists become tensors (Python floats float32, ints int64).
        """
        from torchestimator.data.sources import (  # lazy: subclass (data.sources subclasses SourcesMixin, which builds it)
            TensorSlicesDataset,
        )

        if _has_sparse(tensors):  # rows of a tf.SparseTensor (sparse_batching.py)
            from torchestimator.data.sparse_batching import (  # lazy: subclass (data.sparse_batching subclasses SourcesMixin, which builds it)
                SparseSlicesDataset,
            )

            return SparseSlicesDataset(tensors)
        if _has_ragged(tensors):  # rows of a tf.RaggedTensor (ragged_batching.py)
            from torchestimator.data.ragged_batching import (  # lazy: subclass (data.ragged_batching subclasses SourcesMixin, which builds it)
                RaggedSlicesDataset,
            )

            return RaggedSlicesDataset(tensors)
        return TensorSlicesDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset with a single element, `tensors`."""
        from torchestimator.data.sources import (  # lazy: subclass (data.sources subclasses SourcesMixin, which builds it)
            TensorDataset,
        )

        return TensorDataset(tensors)

    @staticmethod
    def from_generator(generator: Callable[..., Any], output_types: Any = None,
                       output_shapes: Any = None, args: tuple | None = None,
                       output_signature: Any = None, name: str | None = None) -> Dataset:
        """A dataset whose elements are produced by calling `generator(*args)` per pass.

        `output_signature` is a nest of `tf.TensorSpec` that every yielded element
        must match (or the TF1-style `output_types` / `output_shapes`).
        """
        from torchestimator.data.sources import (  # lazy: subclass (data.sources subclasses SourcesMixin, which builds it)
            GeneratorDataset,
        )

        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args: int, dtype: Any = None, name: str | None = None) -> Dataset:
        """A dataset of a step-separated range of values, as Python's `range` (int64)."""
        from torchestimator.data.sources import (  # lazy: subclass (data.sources subclasses SourcesMixin, which builds it)
            RangeDataset,
        )

        return RangeDataset(*args, dtype=dtype)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> Dataset:
        """Zips datasets together: `zip(a, b)` or `zip((a, b))` or `zip({"x": a, "y": b})`.

        Elements are nests of the input elements; stops at the shortest input.
        """
        from torchestimator.data.combining import (  # lazy: subclass (data.combining subclasses SourcesMixin, which builds it)
            ZipDataset,
        )

        if datasets is not None and args:
            raise TypeError("Dataset.zip takes either positional datasets or `datasets=`, not both")
        if datasets is None:
            if not args:
                raise TypeError("Dataset.zip needs at least one dataset")
            datasets = args[0] if len(args) == 1 else tuple(args)
        return ZipDataset(datasets)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None,
                   name: str | None = None) -> Dataset:
        """A dataset of the file names matching `file_pattern` (a glob or list of globs).

        Names are shuffled each pass unless `shuffle=False` (then sorted). Error naming
        the pattern if nothing matches.
        """
        from torchestimator.data.files import (  # lazy: subclass (data.files subclasses SourcesMixin, which builds it)
            FileListDataset,
        )

        shuffle = True if shuffle is None else as_bool("shuffle", shuffle)
        return FileListDataset(file_pattern, shuffle=shuffle, seed=as_seed("seed", seed))

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = torch.int64,
                name: str | None = None) -> Dataset:
        """An infinite dataset counting `start`, `start + step`, ... (int64 unless `dtype`)."""
        from torchestimator.data.counting import (  # lazy: subclass (data.counting subclasses SourcesMixin, which builds it)
            CounterDataset,
        )

        return CounterDataset(start, step, "int64" if dtype is None else dtype)

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None,
               name: str | None = None) -> Dataset:
        """An infinite dataset of pseudorandom int64 scalars in [0, 2**32).

        With a `seed`, every pass gives the same values unless
        `rerandomize_each_iteration=True` (then each pass differs, reproducibly).
        The values are numpy's, not TF's Philox stream.
        """
        from torchestimator.data.sampling import (  # lazy: subclass (data.sampling subclasses SourcesMixin, which builds it)
            RandomDataset,
        )

        return RandomDataset(as_seed("seed", seed), None if rerandomize_each_iteration is None
                             else as_bool("rerandomize_each_iteration",
                                          rerandomize_each_iteration))

    @staticmethod
    def sample_from_datasets(datasets: Any, weights: Any = None, seed: int | None = None,
                             stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: bool | None = None) -> Dataset:
        """Samples elements at random from `datasets` with probabilities `weights`.

        `weights` (default uniform) is a list of one non-negative weight per dataset,
        or a dataset of such vectors (one per element drawn). An exhausted input is
        skipped, unless `stop_on_empty_dataset=True` ends the dataset with it.
        """
        from torchestimator.data.sampling import (  # lazy: subclass (data.sampling subclasses SourcesMixin; this method calls its check_datasets)
            SampleDataset,
            check_datasets,
        )

        datasets = check_datasets(datasets)
        return SampleDataset(datasets, weights, as_seed("seed", seed),
                             as_bool("stop_on_empty_dataset", stop_on_empty_dataset),
                             None if rerandomize_each_iteration is None else as_bool(
                                 "rerandomize_each_iteration", rerandomize_each_iteration))

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: Dataset,
                             stop_on_empty_dataset: bool = True) -> Dataset:
        """Takes each element from `datasets[i]`, `i` the next element of `choice_dataset`.

        `choice_dataset` holds scalar int64 indices. With `stop_on_empty_dataset`
        (default True here, False in `tf.data.experimental`), choosing an exhausted
        input ends the dataset; otherwise that choice is skipped.
        """
        from torchestimator.data.sampling import (  # lazy: subclass (data.sampling subclasses SourcesMixin; this method calls its check_datasets)
            ChooseDataset,
            check_datasets,
        )

        return ChooseDataset(check_datasets(datasets), choice_dataset,
                             as_bool("stop_on_empty_dataset", stop_on_empty_dataset))

    @staticmethod
    def load(path: Any, element_spec: Any = None, compression: Any = None,
             reader_func: Callable | None = None) -> Dataset:
        """Loads a dataset written by `Dataset.save` from the directory `path`.

        Loading runs no code from the files (JSON spec + Arrow IPC shards).
        """
        from torchestimator.data.saving import (  # lazy: subclass (data.saving subclasses SourcesMixin; this method calls its load)
            load,
        )

        return load(path, element_spec, compression, reader_func)


def _has_sparse(tensors: Any) -> bool:
    """True when a nest given to from_tensor_slices holds a tf.SparseTensor."""
    sparse = sys.modules.get("torchestimator._sparse_tensor")
    if sparse is None:
        return False
    if isinstance(tensors, dict):
        return any(_has_sparse(v) for v in tensors.values())
    if isinstance(tensors, tuple):
        return any(_has_sparse(v) for v in tensors)
    return isinstance(tensors, sparse.SparseTensor)


def _has_ragged(tensors: Any) -> bool:
    """True when a nest given to from_tensor_slices holds a tf.RaggedTensor."""
    ragged = sys.modules.get("torchestimator._ragged_tensor")
    if ragged is None:
        return False
    if isinstance(tensors, dict):
        return any(_has_ragged(v) for v in tensors.values())
    if isinstance(tensors, tuple):
        return any(_has_ragged(v) for v in tensors)
    return isinstance(tensors, ragged.RaggedTensor)
