"""The grouping, sampling, stateful and on-disk transformations of `tf.data.Dataset`
(window, group_by_window, bucket_by_sequence_length, rejection_resample, scan,
unique, save, snapshot, ragged_batch, ...): a mixin that `dataset.Dataset` inherits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from torchestimator.data.validation import as_bool, as_callable, as_int, as_seed

if TYPE_CHECKING:
    from torchestimator.data.dataset import Dataset


class StatefulMixin:
    """`Dataset`'s grouping, sampling, stateful and on-disk transformations."""

    __slots__ = ()

    def window(self, size: int, shift: int | None = None, stride: int = 1,
               drop_remainder: bool = False, name: str | None = None) -> Dataset:
        """A dataset of windows: each element is a Dataset of up to `size` input elements.

        Windows start `shift` (default `size`) elements apart and take every
        `stride`-th element; the last ones are shorter unless `drop_remainder`.
        """
        from torchestimator.data.grouping import (  # lazy: subclass (data.grouping subclasses StatefulMixin, which builds it)
            WindowDataset,
        )

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
        from torchestimator.data.grouping import (  # lazy: subclass (data.grouping subclasses StatefulMixin, which builds it)
            GroupByWindowDataset,
        )

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
        from torchestimator.data.bucketing import (  # lazy: subclass (data.bucketing builds GroupByWindowDataset, which subclasses StatefulMixin)
            bucket_by_sequence_length,
        )

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
        from torchestimator.data.sampling import (  # lazy: subclass (data.sampling subclasses StatefulMixin, which builds it)
            RejectionResampleDataset,
        )

        return RejectionResampleDataset(self, as_callable("class_func", class_func),
                                        target_dist, initial_dist, as_seed("seed", seed))

    def scan(self, initial_state: Any, scan_func: Callable, name: str | None = None) -> Dataset:
        """Applies `scan_func(state, element) -> (new_state, output)` with a running state.

        The new state keeps the structure and dtypes of `initial_state`.
        """
        from torchestimator.data.scanning import (  # lazy: subclass (data.scanning subclasses StatefulMixin, which builds it)
            ScanDataset,
        )

        return ScanDataset(self, initial_state, as_callable("scan_func", scan_func))

    def unique(self, name: str | None = None) -> Dataset:
        """The distinct elements, in order of first appearance (int32, int64 or string)."""
        from torchestimator.data.unique import (  # lazy: subclass (data.unique subclasses StatefulMixin, which builds it)
            UniqueDataset,
        )

        return UniqueDataset(self)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> Dataset:
        """Drops the elements whose `map`/`filter` functions raised (and logs them if asked)."""
        from torchestimator.data.errors_ignoring import (  # lazy: subclass (data.errors_ignoring subclasses StatefulMixin, which builds it)
            IgnoreErrorsDataset,
        )

        return IgnoreErrorsDataset(self, as_bool("log_warning", log_warning))

    def assert_cardinality(self, expected_cardinality: int) -> Dataset:
        """Declares the cardinality; a pass with another number of elements raises
        FailedPreconditionError (TF 2.15 has this as `tf.data.experimental.assert_cardinality`)."""
        from torchestimator.data.cardinality_checks import (  # lazy: subclass (data.cardinality_checks subclasses StatefulMixin, which builds it)
            AssertCardinalityDataset,
        )

        return AssertCardinalityDataset(self, as_int("expected_cardinality",
                                                     expected_cardinality, 0, allow=(-1,)))

    def save(self, path: Any, compression: Any = None, shard_func: Callable | None = None,
             checkpoint_args: Any = None) -> None:
        """Saves the elements under the directory `path` (atomically; see `Dataset.load`).

        `compression`: None, "GZIP" or "SNAPPY"; `shard_func(element)` picks each
        element's shard (an int64). Returns None.
        """
        from torchestimator.data.saving import (  # lazy: subclass (data.saving subclasses StatefulMixin; this method calls its save)
            save,
        )

        save(self, path, compression, shard_func, checkpoint_args)

    def snapshot(self, path: Any, compression: Any = "AUTO", reader_func: Callable | None = None,
                 shard_func: Callable | None = None, name: str | None = None) -> Dataset:
        """Writes the first complete pass under `path`; later passes (and programs) read it.

        The files are those of `Dataset.save`; delete `path` when the pipeline changes.
        """
        from torchestimator.data.saving import (  # lazy: subclass (data.saving subclasses StatefulMixin, which builds it)
            SnapshotDataset,
        )

        return SnapshotDataset(self, path, compression, reader_func, shard_func)

    def ragged_batch(self, batch_size: int, drop_remainder: bool = False,
                     row_splits_dtype: Any = torch.int64, name: str | None = None) -> Dataset:
        """Combines consecutive elements into `tf.RaggedTensor`s (TF's `ragged_batch`).

        Elements may differ in shape: each component of rank >= 1 becomes a RaggedTensor
        whose rows are the elements (ragged components gain one ragged dimension); scalars
        are stacked. `row_splits_dtype` (default tf.int64) types the new row partitions.
        """
        from torchestimator.data.ragged_batching import (  # lazy: subclass (data.ragged_batching subclasses StatefulMixin; this method calls its ragged_batch)
            ragged_batch,
        )

        return ragged_batch(self, batch_size, drop_remainder, row_splits_dtype)

    def sparse_batch(self, batch_size: int, row_shape: Any, name: str | None = None) -> Dataset:
        """Combines consecutive elements into `tf.SparseTensor`s (TF's `sparse_batch`).

        Each element must have rank len(`row_shape`) and be at most `row_shape` in every
        dimension; a batch is a SparseTensor of dense shape [batch, *row_shape] holding every
        entry of its elements (zeros included). The dataset must have one component.
        """
        from torchestimator.data.sparse_batching import (  # lazy: subclass (data.sparse_batching subclasses StatefulMixin, which builds it)
            DenseToSparseBatchDataset,
        )

        return DenseToSparseBatchDataset(self, as_int("batch_size", batch_size, 1), row_shape)
