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

The transformations are implemented in this package's other modules; this
file holds the user-facing methods, their argument checks and docstrings.
"""

from __future__ import annotations

import abc
import copy
import sys
from collections.abc import Callable, Iterator
from typing import Any

from torchestimator.data import constants
from torchestimator.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from torchestimator.data.options import AutoShardPolicy, Options
from torchestimator.data.validation import as_bool, as_callable, as_int, as_seed


class Dataset(abc.ABC):
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
        """Starts a new pass; yields elements with torch tensors as components."""
        from torchestimator.data.iterator import DatasetIterator

        return DatasetIterator(self)

    def as_numpy_iterator(self) -> Iterator:
        """Returns an iterator yielding elements with numpy arrays as components.

        Strings are numpy arrays of `str` (or `str` for a scalar), not `bytes` as in TF.
        """
        from torchestimator.data.iterator import NumpyIterator

        return NumpyIterator(self)

    def reduce(self, initial_state: Any, reduce_func: Callable, name: str | None = None) -> Any:
        """Reduces all elements into one state: `state = reduce_func(state, element)`.

        Returns the final state (components as tensors).
        """
        from torchestimator.data.mapping import reduce_dataset

        return reduce_dataset(self, initial_state, as_callable("reduce_func", reduce_func))

    def get_single_element(self, name: str | None = None) -> Any:
        """Returns the only element of the dataset.

        Raises InvalidArgumentError (a ValueError) "Dataset was empty." or "Dataset had
        more than one element.", as TF does.
        """
        from torchestimator.errors import InvalidArgumentError

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

    # ---------------------------------------------------------------- sources
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset whose elements are slices of `tensors` along their first dimension.

        `tensors` is a tensor, array, list, or a nest (tuple/dict) of them, all with
        the same first dimension. Lists become tensors (Python floats float32, ints int64).
        """
        from torchestimator.data.sources import TensorSlicesDataset

        if _has_sparse(tensors):  # rows of a tf.SparseTensor (sparse_batching.py)
            from torchestimator.data.sparse_batching import SparseSlicesDataset

            return SparseSlicesDataset(tensors)
        if _has_ragged(tensors):  # rows of a tf.RaggedTensor (ragged_batching.py)
            from torchestimator.data.ragged_batching import RaggedSlicesDataset

            return RaggedSlicesDataset(tensors)
        return TensorSlicesDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset with a single element, `tensors`."""
        from torchestimator.data.sources import TensorDataset

        return TensorDataset(tensors)

    @staticmethod
    def from_generator(generator: Callable[..., Any], output_types: Any = None,
                       output_shapes: Any = None, args: tuple | None = None,
                       output_signature: Any = None, name: str | None = None) -> Dataset:
        """A dataset whose elements are produced by calling `generator(*args)` per pass.

        `output_signature` is a nest of `tf.TensorSpec` that every yielded element
        must match (or the TF1-style `output_types` / `output_shapes`).
        """
        from torchestimator.data.sources import GeneratorDataset

        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args: int, dtype: Any = None, name: str | None = None) -> Dataset:
        """A dataset of a step-separated range of values, as Python's `range` (int64)."""
        from torchestimator.data.sources import RangeDataset

        return RangeDataset(*args, dtype=dtype)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> Dataset:
        """Zips datasets together: `zip(a, b)` or `zip((a, b))` or `zip({"x": a, "y": b})`.

        Elements are nests of the input elements; stops at the shortest input.
        """
        from torchestimator.data.combining import ZipDataset

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
        from torchestimator.data.files import FileListDataset

        shuffle = True if shuffle is None else as_bool("shuffle", shuffle)
        return FileListDataset(file_pattern, shuffle=shuffle, seed=as_seed("seed", seed))

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = None,
                name: str | None = None) -> Dataset:
        """An infinite dataset counting `start`, `start + step`, ... (int64 unless `dtype`)."""
        from torchestimator.data.counting import CounterDataset

        return CounterDataset(start, step, "int64" if dtype is None else dtype)

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None,
               name: str | None = None) -> Dataset:
        """An infinite dataset of pseudorandom int64 scalars in [0, 2**32).

        With a `seed`, every pass gives the same values unless
        `rerandomize_each_iteration=True` (then each pass differs, reproducibly).
        The values are numpy's, not TF's Philox stream.
        """
        from torchestimator.data.sampling import RandomDataset

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
        from torchestimator.data.sampling import SampleDataset, check_datasets

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
        from torchestimator.data.sampling import ChooseDataset, check_datasets

        return ChooseDataset(check_datasets(datasets), choice_dataset,
                             as_bool("stop_on_empty_dataset", stop_on_empty_dataset))

    @staticmethod
    def load(path: Any, element_spec: Any = None, compression: Any = None,
             reader_func: Callable | None = None) -> Dataset:
        """Loads a dataset written by `Dataset.save` from the directory `path`.

        Loading runs no code from the files (JSON spec + Arrow IPC shards).
        """
        from torchestimator.data.saving import load

        return load(path, element_spec, compression, reader_func)

    # -------------------------------------------------------- transformations
    def map(self, map_func: Callable, num_parallel_calls: int | None = None,
            deterministic: bool | None = None, name: str | None = None) -> Dataset:
        """Applies `map_func` to each element (a tuple element is unpacked into arguments).

        After `batch`, `map_func` runs once per batch. `num_parallel_calls` (an int
        or AUTOTUNE) runs it on a thread pool; order is kept unless `deterministic=False`.
        """
        from torchestimator.data.mapping import MapDataset

        if num_parallel_calls is not None:
            num_parallel_calls = as_int("num_parallel_calls", num_parallel_calls, 1,
                                        allow=(constants.AUTOTUNE,))
        return MapDataset(self, as_callable("map_func", map_func), num_parallel_calls,
                          None if deterministic is None else as_bool("deterministic",
                                                                     deterministic))

    def filter(self, predicate: Callable, name: str | None = None) -> Dataset:
        """Keeps the elements for which `predicate(element)` is True (a scalar bool)."""
        from torchestimator.data.mapping import FilterDataset

        return FilterDataset(self, as_callable("predicate", predicate))

    def take_while(self, predicate: Callable, name: str | None = None) -> Dataset:
        """Yields elements while `predicate(element)` is True, then stops."""
        from torchestimator.data.mapping import TakeWhileDataset

        return TakeWhileDataset(self, as_callable("predicate", predicate))

    def batch(self, batch_size: int, drop_remainder: bool = False,
              num_parallel_calls: int | None = None, deterministic: bool | None = None,
              name: str | None = None) -> Dataset:
        """Combines `batch_size` consecutive elements into one, stacking each component.

        The last batch is smaller unless `drop_remainder=True` drops it. Batching is
        vectorized; `num_parallel_calls`/`deterministic` are accepted for TF compatibility.
        """
        from torchestimator.data.batching import BatchDataset

        if "torchestimator.data.sparse_batching" in sys.modules:  # sparse components
            from torchestimator.data.sparse_batching import SparseBatchDataset, batches_sparse

            if batches_sparse(self):
                return SparseBatchDataset(self, as_int("batch_size", batch_size, 1),
                                          as_bool("drop_remainder", drop_remainder))
        if "torchestimator.data.ragged_batching" in sys.modules:  # ragged components
            from torchestimator.data.ragged_batching import RaggedBatchDataset, batches_ragged

            if batches_ragged(self):
                return RaggedBatchDataset(self, as_int("batch_size", batch_size, 1),
                                          as_bool("drop_remainder", drop_remainder),
                                          dense_to_ragged=False)
        return BatchDataset(self, as_int("batch_size", batch_size, 1),
                            as_bool("drop_remainder", drop_remainder))

    def padded_batch(self, batch_size: int, padded_shapes: Any = None,
                     padding_values: Any = None, drop_remainder: bool = False,
                     name: str | None = None) -> Dataset:
        """Batches elements of varying shape, padding each component to a common shape.

        `padded_shapes` (nest like the element; None dims pad to the longest in the
        batch) defaults to the longest; `padding_values` defaults to 0 / "".
        """
        from torchestimator.data.batching import PaddedBatchDataset

        return PaddedBatchDataset(self, as_int("batch_size", batch_size, 1), padded_shapes,
                                  padding_values, as_bool("drop_remainder", drop_remainder))

    def unbatch(self, name: str | None = None) -> Dataset:
        """Splits each element along its first dimension into several elements."""
        from torchestimator.data.batching import UnbatchDataset

        return UnbatchDataset(self)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False,
                name: str | None = None) -> Dataset:
        """Re-groups the rows of a batched dataset into batches of `batch_size`.

        `batch_size` may be a list of sizes, used in turn.
        """
        from torchestimator.data.batching import RebatchDataset

        sizes = list(batch_size) if isinstance(batch_size, (list, tuple)) else [batch_size]
        if not sizes:
            raise ValueError("`batch_size` must not be an empty list")
        sizes = [as_int("batch_size", s, 1) for s in sizes]
        return RebatchDataset(self, sizes, as_bool("drop_remainder", drop_remainder))

    def shuffle(self, buffer_size: int, seed: int | None = None,
                reshuffle_each_iteration: bool | None = None, name: str | None = None) -> Dataset:
        """Randomly shuffles elements through a buffer of `buffer_size` elements.

        A buffer at least as large as the dataset gives a uniform permutation. With
        `reshuffle_each_iteration` (default True) every pass has a new order;
        with a `seed` the sequence of orders is reproducible.
        """
        from torchestimator.data.shuffling import ShuffleDataset

        reshuffle = True if reshuffle_each_iteration is None else as_bool(
            "reshuffle_each_iteration", reshuffle_each_iteration)
        return ShuffleDataset(self, as_int("buffer_size", buffer_size, 1),
                              as_seed("seed", seed), reshuffle)

    def repeat(self, count: int | None = None, name: str | None = None) -> Dataset:
        """Repeats the dataset `count` times (None or -1: forever); each repetition is a new pass."""
        from torchestimator.data.slicing import RepeatDataset

        count = -1 if count is None else as_int("count", count, 0, allow=(-1,))
        return RepeatDataset(self, count)

    def take(self, count: int, name: str | None = None) -> Dataset:
        """The first `count` elements (-1: all)."""
        from torchestimator.data.slicing import TakeDataset

        return TakeDataset(self, as_int("count", count, 0, allow=(-1,)))

    def skip(self, count: int, name: str | None = None) -> Dataset:
        """All but the first `count` elements (-1: skip all)."""
        from torchestimator.data.slicing import SkipDataset

        return SkipDataset(self, as_int("count", count, 0, allow=(-1,)))

    def shard(self, num_shards: int, index: int, name: str | None = None) -> Dataset:
        """The part `index` of `num_shards` disjoint parts, for one of several workers.

        A pipeline reading files is split at its reader: by file when it reads at
        least `num_shards` files, otherwise by row (every `num_shards`-th row of each
        file). Otherwise, and with auto_shard_policy DATA or OFF, this is TF's
        element-wise shard: elements `index`, `index + num_shards`, ...
        """
        from torchestimator.data.slicing import ShardDataset

        num_shards = as_int("num_shards", num_shards, 1)
        index = as_int("index", index, 0)
        if index >= num_shards:
            raise ValueError(
                f"`index` must be in [0, num_shards={num_shards}); received index={index}"
            )
        policy = self.options().experimental_distribute.auto_shard_policy
        if policy in (AutoShardPolicy.AUTO, AutoShardPolicy.FILE, AutoShardPolicy.HINT):
            sharded = self._shard_files(num_shards, index)
            if sharded is not None:
                return sharded
            if policy == AutoShardPolicy.FILE:
                raise ValueError(
                    "auto_shard_policy is FILE but this pipeline has no file-based source "
                    "to shard; use AutoShardPolicy.DATA (element-wise) or AUTO"
                )
        return ShardDataset(self, num_shards, index)

    def enumerate(self, start: int = 0, name: str | None = None) -> Dataset:
        """Pairs each element with its position: elements `(start + i, element)` (int64)."""
        from torchestimator.data.slicing import EnumerateDataset

        return EnumerateDataset(self, as_int("start", start))

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """The elements of this dataset followed by those of `dataset` (same structure and dtypes)."""
        from torchestimator.data.combining import ConcatenateDataset

        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate expects a Dataset; received {type(dataset).__name__}")
        return ConcatenateDataset(self, dataset)

    def flat_map(self, map_func: Callable, name: str | None = None) -> Dataset:
        """Maps each element to a Dataset with `map_func` and chains those datasets."""
        from torchestimator.data.combining import FlatMapDataset

        return FlatMapDataset(self, as_callable("map_func", map_func))

    def interleave(self, map_func: Callable, cycle_length: int | None = None,
                   block_length: int | None = None, num_parallel_calls: int | None = None,
                   deterministic: bool | None = None, name: str | None = None) -> Dataset:
        """Maps elements to datasets and interleaves them, as TF's `interleave`.

        Keeps `cycle_length` (default: CPU count) datasets open and takes
        `block_length` (default 1) consecutive elements from each in turn.
        `num_parallel_calls` reads the open datasets ahead on threads.
        """
        from torchestimator.data.combining import InterleaveDataset

        if cycle_length is not None:
            cycle_length = as_int("cycle_length", cycle_length, 1, allow=(constants.AUTOTUNE,))
        block_length = 1 if block_length is None else as_int("block_length", block_length, 1)
        if num_parallel_calls is not None:
            num_parallel_calls = as_int("num_parallel_calls", num_parallel_calls, 1,
                                        allow=(constants.AUTOTUNE,))
        return InterleaveDataset(
            self, as_callable("map_func", map_func), cycle_length, block_length,
            num_parallel_calls,
            None if deterministic is None else as_bool("deterministic", deterministic),
        )

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """Caches the elements of the first complete pass: in memory, or in `filename`.

        Later passes (and, for a file, later programs) replay the cache. A file cache
        is an Arrow IPC file `filename + ".arrow"`, written as the first pass streams.
        """
        from torchestimator.data.caching import CacheDataset

        if not isinstance(filename, str):
            raise TypeError(f"`filename` must be a str; received {filename!r}")
        return CacheDataset(self, filename)

    def prefetch(self, buffer_size: int, name: str | None = None) -> Dataset:
        """Runs the pipeline ahead on a background thread, `buffer_size` elements deep.

        `tf.data.AUTOTUNE` picks the depth; 0 disables prefetching.
        """
        from torchestimator.data.prefetching import PrefetchDataset

        return PrefetchDataset(self, as_int("buffer_size", buffer_size, 0,
                                            allow=(constants.AUTOTUNE,)))


    # ------------------------------------------- grouping, sampling, state, disk
    def window(self, size: int, shift: int | None = None, stride: int = 1,
               drop_remainder: bool = False, name: str | None = None) -> Dataset:
        """A dataset of windows: each element is a Dataset of up to `size` input elements.

        Windows start `shift` (default `size`) elements apart and take every
        `stride`-th element; the last ones are shorter unless `drop_remainder`.
        """
        from torchestimator.data.grouping import WindowDataset

        size = as_int("size", size, 1)
        shift = size if shift is None else as_int("shift", shift, 1)
        return WindowDataset(self, size, shift, as_int("stride", stride, 1),
                             as_bool("drop_remainder", drop_remainder))

    def group_by_window(self, key_func: Callable, reduce_func: Callable,
                        window_size: int | None = None,
                        window_size_func: Callable | None = None,
                        name: str | None = None) -> Dataset:
        """Groups elements by `key_func(element)` (an int64) and reduces windows of each group.

        When a key's group holds `window_size` (or `window_size_func(key)`) elements,
        `reduce_func(key, window_dataset)` returns a dataset whose elements are
        yielded; groups left at the end are reduced in ascending key order.
        """
        from torchestimator.data.grouping import GroupByWindowDataset

        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        if window_size is not None:
            size = as_int("window_size", window_size, 1)

            def window_size_func(key: Any) -> int:
                return size

        return GroupByWindowDataset(self, as_callable("key_func", key_func),
                                    as_callable("reduce_func", reduce_func),
                                    as_callable("window_size_func", window_size_func))

    def bucket_by_sequence_length(self, element_length_func: Callable, bucket_boundaries: Any,
                                  bucket_batch_sizes: Any, padded_shapes: Any = None,
                                  padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False,
                                  no_padding: bool = False, drop_remainder: bool = False,
                                  name: str | None = None) -> Dataset:
        """Batches elements of similar length together, padding each batch (variable-length text).

        An element of length L (`element_length_func(element)`) goes to bucket i
        when `bucket_boundaries[i-1] <= L < bucket_boundaries[i]`; each bucket is
        batched `bucket_batch_sizes[i]` at a time with `padded_batch(padded_shapes,
        padding_values)` (or `batch` with `no_padding`).
        """
        from torchestimator.data.bucketing import bucket_by_sequence_length

        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                         bucket_batch_sizes, padded_shapes, padding_values,
                                         pad_to_bucket_boundary, no_padding, drop_remainder)

    def rejection_resample(self, class_func: Callable, target_dist: Any,
                           initial_dist: Any = None, seed: int | None = None,
                           name: str | None = None) -> Dataset:
        """Resamples elements so their classes follow `target_dist`.

        Yields `(class, element)` pairs (class an int64 from `class_func(element)`);
        `initial_dist` (default: estimated as the data streams) is the input's.
        """
        from torchestimator.data.sampling import RejectionResampleDataset

        return RejectionResampleDataset(self, as_callable("class_func", class_func),
                                        target_dist, initial_dist, as_seed("seed", seed))

    def scan(self, initial_state: Any, scan_func: Callable, name: str | None = None) -> Dataset:
        """Applies `scan_func(state, element) -> (new_state, output)` with a running state.

        The new state keeps the structure and dtypes of `initial_state`.
        """
        from torchestimator.data.scanning import ScanDataset

        return ScanDataset(self, initial_state, as_callable("scan_func", scan_func))

    def unique(self, name: str | None = None) -> Dataset:
        """The distinct elements, in order of first appearance (int32, int64 or string)."""
        from torchestimator.data.unique import UniqueDataset

        return UniqueDataset(self)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> Dataset:
        """Drops the elements whose `map`/`filter` functions raised (and logs them if asked)."""
        from torchestimator.data.errors_ignoring import IgnoreErrorsDataset

        return IgnoreErrorsDataset(self, as_bool("log_warning", log_warning))

    def assert_cardinality(self, expected_cardinality: int) -> Dataset:
        """Declares the cardinality; a pass with another number of elements raises
        FailedPreconditionError (TF 2.15 has this as `tf.data.experimental.assert_cardinality`)."""
        from torchestimator.data.cardinality_checks import AssertCardinalityDataset

        return AssertCardinalityDataset(self, as_int("expected_cardinality",
                                                     expected_cardinality, 0, allow=(-1,)))

    def save(self, path: Any, compression: Any = None, shard_func: Callable | None = None,
             checkpoint_args: Any = None) -> None:
        """Saves the elements under the directory `path` (atomically; see `Dataset.load`).

        `compression`: None, "GZIP" or "SNAPPY"; `shard_func(element)` picks each
        element's shard (an int64). Returns None.
        """
        from torchestimator.data.saving import save

        save(self, path, compression, shard_func, checkpoint_args)

    def snapshot(self, path: Any, compression: Any = "AUTO", reader_func: Callable | None = None,
                 shard_func: Callable | None = None, name: str | None = None) -> Dataset:
        """Writes the first complete pass under `path`; later passes (and programs) read it.

        The files are those of `Dataset.save`; delete `path` when the pipeline changes.
        """
        from torchestimator.data.saving import SnapshotDataset

        return SnapshotDataset(self, path, compression, reader_func, shard_func)

    def ragged_batch(self, batch_size: int, drop_remainder: bool = False,
                     row_splits_dtype: Any = None, name: str | None = None) -> Dataset:
        """Combines consecutive elements into `tf.RaggedTensor`s (TF's `ragged_batch`).

        Elements may differ in shape: each component of rank >= 1 becomes a RaggedTensor
        whose rows are the elements (ragged components gain one ragged dimension); scalars
        are stacked. `row_splits_dtype` (default tf.int64) types the new row partitions.
        """
        from torchestimator.data.ragged_batching import ragged_batch

        return ragged_batch(self, batch_size, drop_remainder, row_splits_dtype)

    def sparse_batch(self, batch_size: int, row_shape: Any, name: str | None = None) -> Dataset:
        """Not supported: dataset components cannot be SparseTensors here. Raises
        NotImplementedError pointing to `padded_batch`."""
        raise NotImplementedError(
            "Dataset.sparse_batch: dataset elements here are dense tensors and strings, not "
            "tf.SparseTensor. Use dataset.padded_batch(batch_size, padded_shapes=row_shape) "
            "and treat the padding as the missing values."
        )


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
