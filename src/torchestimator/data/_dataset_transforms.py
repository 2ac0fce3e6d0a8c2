"""The element-wise and reshaping transformations of `tf.data.Dataset` (map, filter,
batch, shuffle, repeat, take, shard, interleave, cache, prefetch, ...): a mixin
that `dataset.Dataset` inherits.

Each method checks its arguments and returns a new node wrapping `self`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from torchestimator.data import constants
from torchestimator.data.options import AutoShardPolicy
from torchestimator.data.validation import as_bool, as_callable, as_int, as_seed

if TYPE_CHECKING:
    from torchestimator.data.dataset import Dataset


class TransformsMixin:
    """`Dataset`'s transformations of elements, batches and order."""

    __slots__ = ()

    # -------------------------------------------------------- transformations
    def map(self, map_func: Callable, num_parallel_calls: int | None = None,
            deterministic: bool | None = None, name: str | None = None) -> Dataset:
        """Applies `map_func` to each element (a tuple element is unpacked into arguments).

        After `batch`, `map_func` runs once per batch. `num_parallel_calls` (an int
        or AUTOTUNE) runs it on a thread pool; order is kept unless `deterministic=False`.
        """
        from torchestimator.data.mapping import (  # lazy: subclass (data.mapping subclasses TransformsMixin, which builds it)
            MapDataset,
        )

        if num_parallel_calls is not None:
            num_parallel_calls = as_int("num_parallel_calls", num_parallel_calls, 1,
                                        allow=(constants.AUTOTUNE,))
        return MapDataset(self, as_callable("map_func", map_func), num_parallel_calls,
                          None if deterministic is None else as_bool("deterministic",
                                                                     deterministic))

    def filter(self, predicate: Callable, name: str | None = None) -> Dataset:
        """Keeps the elements for which `predicate(element)` is True (a scalar bool)."""
        from torchestimator.data.mapping import (  # lazy: subclass (data.mapping subclasses TransformsMixin, which builds it)
            FilterDataset,
        )

        return FilterDataset(self, as_callable("predicate", predicate))

    def take_while(self, predicate: Callable, name: str | None = None) -> Dataset:
        """Yields elements while `predicate(element)` is True, then stops."""
        from torchestimator.data.mapping import (  # lazy: subclass (data.mapping subclasses TransformsMixin, which builds it)
            TakeWhileDataset,
        )

        return TakeWhileDataset(self, as_callable("predicate", predicate))

    def batch(self, batch_size: int, drop_remainder: bool = False,
              num_parallel_calls: int | None = None, deterministic: bool | None = None,
              name: str | None = None) -> Dataset:
        """Combines `batch_size` consecutive elements into one, stacking each component.

        The last batch is smaller unless `drop_remainder=True` drops it. Batching is
        vectorized; `num_parallel_calls`/`deterministic` are accepted for TF compatibility.
        """
        from torchestimator.data.batching import (  # lazy: subclass (data.batching subclasses TransformsMixin, which builds it)
            BatchDataset,
        )

        # Sparse or ragged components: their modules are loaded once such data exists.
        sparse = sys.modules.get("torchestimator.data.sparse_batching")
        if sparse is not None and sparse.batches_sparse(self):
            return sparse.SparseBatchDataset(self, as_int("batch_size", batch_size, 1),
                                             as_bool("drop_remainder", drop_remainder))
        ragged = sys.modules.get("torchestimator.data.ragged_batching")
        if ragged is not None and ragged.batches_ragged(self):
            return ragged.RaggedBatchDataset(self, as_int("batch_size", batch_size, 1),
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
        from torchestimator.data.batching import (  # lazy: subclass (data.batching subclasses TransformsMixin, which builds it)
            PaddedBatchDataset,
        )

        return PaddedBatchDataset(self, as_int("batch_size", batch_size, 1), padded_shapes,
                                  padding_values, as_bool("drop_remainder", drop_remainder))

    def unbatch(self, name: str | None = None) -> Dataset:
        """Splits each element along its first dimension into several elements."""
        from torchestimator.data.batching import (  # lazy: subclass (data.batching subclasses TransformsMixin, which builds it)
            UnbatchDataset,
        )

        return UnbatchDataset(self)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False,
                name: str | None = None) -> Dataset:
        """Re-groups the rows of a batched dataset into batches of `batch_size`.

        `batch_size` may be a list of sizes, used in turn.
        """
        from torchestimator.data.batching import (  # lazy: subclass (data.batching subclasses TransformsMixin, which builds it)
            RebatchDataset,
        )

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
        from torchestimator.data.shuffling import (  # lazy: subclass (data.shuffling subclasses TransformsMixin, which builds it)
            ShuffleDataset,
        )

        reshuffle = True if reshuffle_each_iteration is None else as_bool(
            "reshuffle_each_iteration", reshuffle_each_iteration)
        return ShuffleDataset(self, as_int("buffer_size", buffer_size, 1),
                              as_seed("seed", seed), reshuffle)

    def repeat(self, count: int | None = None, name: str | None = None) -> Dataset:
        """Repeats the dataset `count` times (None or -1: forever); each repetition is a new pass."""
        from torchestimator.data.slicing import (  # lazy: subclass (data.slicing subclasses TransformsMixin, which builds it)
            RepeatDataset,
        )

        count = -1 if count is None else as_int("count", count, 0, allow=(-1,))
        return RepeatDataset(self, count)

    def take(self, count: int, name: str | None = None) -> Dataset:
        """The first `count` elements (-1: all)."""
        from torchestimator.data.slicing import (  # lazy: subclass (data.slicing subclasses TransformsMixin, which builds it)
            TakeDataset,
        )

        return TakeDataset(self, as_int("count", count, 0, allow=(-1,)))

    def skip(self, count: int, name: str | None = None) -> Dataset:
        """All but the first `count` elements (-1: skip all)."""
        from torchestimator.data.slicing import (  # lazy: subclass (data.slicing subclasses TransformsMixin, which builds it)
            SkipDataset,
        )

        return SkipDataset(self, as_int("count", count, 0, allow=(-1,)))

    def shard(self, num_shards: int, index: int, name: str | None = None) -> Dataset:
        """The part `index` of `num_shards` disjoint parts, for one of several workers.

        A pipeline reading files is split at its reader: by file when it reads at
        least `num_shards` files, otherwise by row (every `num_shards`-th row of each
        file). Otherwise, and with auto_shard_policy DATA or OFF, this is TF's
        element-wise shard: elements `index`, `index + num_shards`, ...
        """
        from torchestimator.data.slicing import (  # lazy: subclass (data.slicing subclasses TransformsMixin, which builds it)
            ShardDataset,
        )

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
        from torchestimator.data.slicing import (  # lazy: subclass (data.slicing subclasses TransformsMixin, which builds it)
            EnumerateDataset,
        )

        return EnumerateDataset(self, as_int("start", start))

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """The elements of this dataset followed by those of `dataset` (same structure and dtypes)."""
        from torchestimator.data.combining import (  # lazy: subclass (data.combining subclasses TransformsMixin, which builds it)
            ConcatenateDataset,
        )
        from torchestimator.data.dataset import (
            Dataset,  # lazy: subclass (data.dataset subclasses TransformsMixin, which builds it)
        )

        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate expects a Dataset; received {type(dataset).__name__}")
        return ConcatenateDataset(self, dataset)

    def flat_map(self, map_func: Callable, name: str | None = None) -> Dataset:
        """Maps each element to a Dataset with `map_func` and chains those datasets."""
        from torchestimator.data.combining import (  # lazy: subclass (data.combining subclasses TransformsMixin, which builds it)
            FlatMapDataset,
        )

        return FlatMapDataset(self, as_callable("map_func", map_func))

    def interleave(self, map_func: Callable, cycle_length: int | None = None,
                   block_length: int | None = None, num_parallel_calls: int | None = None,
                   deterministic: bool | None = None, name: str | None = None) -> Dataset:
        """Maps elements to datasets and interleaves them, as TF's `interleave`.

        Keeps `cycle_length` (default: CPU count) datasets open and takes
        `block_length` (default 1) consecutive elements from each in turn.
        `num_parallel_calls` reads the open datasets ahead on threads.
        """
        from torchestimator.data.combining import (  # lazy: subclass (data.combining subclasses TransformsMixin, which builds it)
            InterleaveDataset,
        )

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
        from torchestimator.data.caching import (  # lazy: subclass (data.caching subclasses TransformsMixin, which builds it)
            CacheDataset,
        )

        if not isinstance(filename, str):
            raise TypeError(f"`filename` must be a str; received {filename!r}")
        return CacheDataset(self, filename)

    def prefetch(self, buffer_size: int, name: str | None = None) -> Dataset:
        """Runs the pipeline ahead on a background thread, `buffer_size` elements deep.

        `tf.data.AUTOTUNE` picks the depth; 0 disables prefetching. The thread starts once
        the input proves to cost more per element than handing an element between threads;
        until then (an in-memory pipeline of slices and batches: always) the elements are
        produced in the consumer's thread, which under Python's GIL is faster.
        """
        from torchestimator.data.prefetching import (  # lazy: subclass (data.prefetching subclasses TransformsMixin, which builds it)
            PrefetchDataset,
        )

        return PrefetchDataset(self, as_int("buffer_size", buffer_size, 0,
                                            allow=(constants.AUTOTUNE,)))
