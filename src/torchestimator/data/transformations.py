"""`tf.data.experimental`'s transformation functions: each returns a function for `Dataset.apply`.

    ds = ds.apply(tf.data.experimental.group_by_window(key_func, reduce_func, 4))

They delegate to the `Dataset` methods (or the modules behind them). Also here:
the experimental sources and helpers (`Counter`, `RandomDataset`, `from_list`,
`at`, `get_structure`, `get_single_element`) and the device moves, which hand
the dataset back prefetched: components move to a device where the training
loop puts them (the data pipeline stays on the host, as the design says).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec, dtype_name
from torchestimator._engine.loop import to_device
from torchestimator._ops.control_ops import _context
from torchestimator.data import structure
from torchestimator.data.constants import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset
from torchestimator.data.element_list import from_list as make
from torchestimator.data.grouping import GroupByReducerDataset, Reducer
from torchestimator.data.prefetching import PrefetchDataset
from torchestimator.data.validation import as_bool, as_callable, as_int
from torchestimator.errors import OutOfRangeError

Transformation = Callable[[Dataset], Dataset]

SHARD_HINT = -1
"""A placeholder for `shard`'s `num_shards` filled in by auto-sharding (TF's SHARD_HINT)."""


class AutotuneAlgorithm(enum.IntEnum):
    """The autotuning algorithm of `tf.data.experimental.AutotuneOptions` (accepted; unused)."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.IntEnum):
    """What to do with external state when checkpointing an input pipeline (accepted; unused)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


def _dataset(value: Any, what: str) -> Dataset:
    if not isinstance(value, Dataset):
        raise TypeError(f"{what} expects a tf.data.Dataset; received {type(value).__name__}")
    return value


# --------------------------------------------------------------------------- sources
def Counter(start: Any = 0, step: Any = 1, dtype: Any = torch.int64) -> Dataset:  # noqa: N802
    """An infinite dataset counting `start`, `start + step`, ... (TF's experimental.Counter)."""
    return Dataset.counter(start, step, dtype)


def RandomDataset(seed: int | None = None, rerandomize_each_iteration: bool | None = None,  # noqa: N802
                  name: str | None = None) -> Dataset:
    """An infinite dataset of pseudorandom int64 scalars (TF's experimental.RandomDataset)."""
    return Dataset.random(seed, rerandomize_each_iteration)


def from_list(elements: list, name: str | None = None) -> Dataset:
    """A dataset of the elements of a list (nests of tensors/arrays/scalars), in order."""

    return make(elements)


def sample_from_datasets(datasets: Any, weights: Any = None, seed: int | None = None,
                         stop_on_empty_dataset: bool = False) -> Dataset:
    """`Dataset.sample_from_datasets` (TF's experimental endpoint)."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets: Any, choice_dataset: Dataset,
                         stop_on_empty_dataset: bool = False) -> Dataset:
    """`Dataset.choose_from_datasets`, with TF's experimental default `stop_on_empty_dataset=False`."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def save(dataset: Dataset, path: Any, compression: Any = None, shard_func: Callable | None = None,
         checkpoint_args: Any = None) -> None:
    """`dataset.save(path, ...)` (TF's experimental endpoint)."""
    _dataset(dataset, "save").save(path, compression, shard_func, checkpoint_args)


def load(path: Any, element_spec: Any = None, compression: Any = None,
         reader_func: Callable | None = None) -> Dataset:
    """`Dataset.load(path, ...)` (TF's experimental endpoint)."""
    return Dataset.load(path, element_spec, compression, reader_func)


# ------------------------------------------------------------- transformations (apply)
def group_by_window(key_func: Callable, reduce_func: Callable, window_size: int | None = None,
                    window_size_func: Callable | None = None) -> Transformation:
    """A transformation applying `Dataset.group_by_window`."""
    return lambda ds: ds.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(element_length_func: Callable, bucket_boundaries: Any,
                              bucket_batch_sizes: Any, padded_shapes: Any = None,
                              padding_values: Any = None, pad_to_bucket_boundary: bool = False,
                              no_padding: bool = False,
                              drop_remainder: bool = False) -> Transformation:
    """A transformation applying `Dataset.bucket_by_sequence_length`."""
    return lambda ds: ds.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)


def group_by_reducer(key_func: Callable, reducer: Reducer) -> Transformation:
    """A transformation reducing each group (by `key_func`'s int64 key) with `reducer`;
    the finalized states come out at the end, in ascending key order."""
    key_func = as_callable("key_func", key_func)
    return lambda ds: GroupByReducerDataset(ds, key_func, reducer)


def rejection_resample(class_func: Callable, target_dist: Any, initial_dist: Any = None,
                       seed: int | None = None) -> Transformation:
    """A transformation applying `Dataset.rejection_resample`."""
    return lambda ds: ds.rejection_resample(class_func, target_dist, initial_dist, seed)


def scan(initial_state: Any, scan_func: Callable) -> Transformation:
    """A transformation applying `Dataset.scan`."""
    return lambda ds: ds.scan(initial_state, scan_func)


def unique() -> Transformation:
    """A transformation applying `Dataset.unique`."""
    return lambda ds: ds.unique()


def ignore_errors(log_warning: bool = False) -> Transformation:
    """A transformation applying `Dataset.ignore_errors`."""
    return lambda ds: ds.ignore_errors(log_warning)


def assert_cardinality(expected_cardinality: int) -> Transformation:
    """A transformation declaring (and checking while iterating) the cardinality."""
    return lambda ds: ds.assert_cardinality(expected_cardinality)


def snapshot(path: Any, compression: Any = "AUTO", reader_func: Callable | None = None,
             shard_func: Callable | None = None) -> Transformation:
    """A transformation applying `Dataset.snapshot`."""
    return lambda ds: ds.snapshot(path, compression, reader_func, shard_func)


def enumerate_dataset(start: int = 0) -> Transformation:
    """A transformation applying `Dataset.enumerate(start)`."""
    return lambda ds: ds.enumerate(start)


def take_while(predicate: Callable) -> Transformation:
    """A transformation applying `Dataset.take_while`."""
    return lambda ds: ds.take_while(predicate)


def unbatch() -> Transformation:
    """A transformation applying `Dataset.unbatch`."""
    return lambda ds: ds.unbatch()


def shuffle_and_repeat(buffer_size: int, count: int | None = None,
                       seed: int | None = None) -> Transformation:
    """A transformation shuffling then repeating `count` times (None: forever), reshuffled per
    repetition."""
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func: Callable, batch_size: int, num_parallel_batches: int | None = None,
                  drop_remainder: bool = False,
                  num_parallel_calls: int | None = None) -> Transformation:
    """A transformation mapping then batching (TF's fused map_and_batch)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`map_and_batch` allows only one of `num_parallel_batches` and "
                         "`num_parallel_calls` to be set.")
    if num_parallel_calls is None and num_parallel_batches is not None:
        num_parallel_calls = as_int("num_parallel_batches", num_parallel_batches, 1) * as_int(
            "batch_size", batch_size, 1)
    return lambda ds: ds.map(map_func, num_parallel_calls).batch(batch_size, drop_remainder)


def parallel_interleave(map_func: Callable, cycle_length: int, block_length: int = 1,
                        sloppy: bool = False, buffer_output_elements: int | None = None,
                        prefetch_input_elements: int | None = None) -> Transformation:
    """A transformation applying `interleave` with `cycle_length` parallel readers."""
    deterministic = not as_bool("sloppy", bool(sloppy))
    return lambda ds: ds.interleave(map_func, cycle_length, block_length,
                                    num_parallel_calls=cycle_length, deterministic=deterministic)


def dense_to_ragged_batch(batch_size: int, drop_remainder: bool = False,
                          row_splits_dtype: Any = torch.int64) -> Transformation:
    """A transformation batching elements of different shapes into `tf.RaggedTensor`s
    (the same as `Dataset.ragged_batch`)."""
    return lambda ds: ds.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def dense_to_sparse_batch(batch_size: int, row_shape: Any) -> Transformation:
    """A transformation batching elements into `tf.SparseTensor`s of dense shape
    [batch, *row_shape] (the same as `Dataset.sparse_batch`)."""
    return lambda ds: ds.sparse_batch(batch_size, row_shape)


def pad_to_cardinality(cardinality: int, mask_key: str = "valid") -> Transformation:
    """A transformation padding a dataset of dicts to `cardinality` elements.

    Real elements get `mask_key: True`; the padding elements are zeros ("" for
    strings) with `mask_key: False`. The input's cardinality must be known and
    at most `cardinality`.
    """
    cardinality = as_int("cardinality", cardinality, 0)

    def apply(ds: Dataset) -> Dataset:
        spec = ds.element_spec
        if not isinstance(spec, Mapping):
            raise ValueError(f"`pad_to_cardinality` requires its input dataset to be a "
                             f"dictionary; received element_spec {spec}")
        if mask_key in spec:
            raise ValueError(f"The dataset passed into `pad_to_cardinality` already has a key "
                             f"named {mask_key!r}; choose another `mask_key`")
        n = int(ds.cardinality())
        if n in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a known "
                             f"cardinality, but has cardinality {n}")
        if n > cardinality:
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a "
                             "cardinalty less than the target cardinality "
                             f"({cardinality}), but has cardinality {n}")
        padding = {k: _zero(s) for k, s in spec.items()}
        padding[mask_key] = torch.tensor(False)
        marked = ds.map(lambda x: {**x, mask_key: torch.tensor(True)})
        return marked.concatenate(Dataset.from_tensors(padding).repeat(cardinality - n)) \
            .assert_cardinality(cardinality)

    return apply


def _zero(spec: TensorSpec) -> Any:
    shape = tuple(0 if d is None else d for d in (spec.shape or ()))
    if dtype_name(spec.dtype) == "string":
        return np.full(shape, "", dtype=object) if shape else ""
    return torch.zeros(shape, dtype=spec.dtype)


# --------------------------------------------------------------------------- helpers
def get_single_element(dataset: Dataset) -> Any:
    """The only element of `dataset` (TF's experimental endpoint of `get_single_element`)."""
    return _dataset(dataset, "get_single_element").get_single_element()


def get_structure(dataset_or_iterator: Any) -> Any:
    """The element spec of a dataset or iterator (TF's `get_structure`)."""
    spec = getattr(dataset_or_iterator, "element_spec", None)
    if spec is None:
        raise TypeError("`dataset_or_iterator` must be a tf.data.Dataset or tf.data.Iterator; "
                        f"received {type(dataset_or_iterator).__name__}")
    return spec


def at(dataset: Dataset, index: int) -> Any:
    """The element at position `index` (TF's random-access `at`; reads up to it here).

    Raises OutOfRangeError "Index out of range [0, n):index" when there is none.
    """
    dataset = _dataset(dataset, "at")
    index = as_int("index", index)
    n = int(dataset.cardinality())
    if index < 0 or (n >= 0 and index >= n):
        raise OutOfRangeError(None, None, f"Index out of range [0, {n}):{index}")
    count = 0
    for count, element in enumerate(dataset, start=1):
        if count - 1 == index:
            return element
    raise OutOfRangeError(None, None, f"Index out of range [0, {count}):{index}")


def copy_to_device(target_device: str, source_device: str = "/cpu:0") -> Transformation:
    """A transformation copying each element of a dataset to `target_device` (TF's
    `copy_to_device`): tensors move there (from pinned memory, without blocking, to a GPU) on
    the input's background thread, on a CUDA stream of their own that overlaps the training
    step's kernels; strings stay on the host. A GPU that is not there means the host (TF's soft
    placement)."""
    if not isinstance(target_device, str):
        raise TypeError(f"`target_device` must be a device string; received {target_device!r}")
    if not isinstance(source_device, str):
        raise TypeError(f"`source_device` must be a device string; received {source_device!r}")
    return lambda ds: _on_device(ds, target_device, AUTOTUNE)


def prefetch_to_device(device: str, buffer_size: int | None = None) -> Transformation:
    """A transformation prefetching each element to `device`, `buffer_size` deep (None: chosen
    automatically), as TF's `prefetch_to_device`: the copy to the device (on a background thread
    and, to a GPU, a CUDA stream of its own) overlaps the training step; it must be the
    dataset's last transformation."""
    if not isinstance(device, str):
        raise TypeError(f"`device` must be a device string; received {device!r}")
    return lambda ds: _on_device(ds, device, AUTOTUNE if buffer_size is None else buffer_size)


def _on_device(ds: Dataset, device_name: str, buffer_size: int) -> Dataset:
    device = _context._resolve_device(device_name)  # looked up per call: tests replace it
    if device.type == "cpu":
        return ds.prefetch(buffer_size)
    if device.type == "cuda":  # the copy overlaps the step from the first element: a thread
        depth = as_int("buffer_size", buffer_size, 0, allow=(AUTOTUNE,))
        return PrefetchDataset(ds.map(_cuda_copier(device)), depth, always_threaded=True)

    def move(*components: Any) -> Any:
        return to_device(components if len(components) > 1 else components[0], device)

    return ds.map(move).prefetch(buffer_size)


def _cuda_copier(device: torch.device) -> Callable[..., Any]:
    """The map function of `prefetch_to_device`/`copy_to_device` to a CUDA device, run on the
    prefetch's thread: each element is copied from pinned memory on a CUDA stream of its own,
    so the copy overlaps the kernels of the step running on the training stream (the stream
    current where the pipeline is built). The thread waits for its copy to end before handing
    the element on, so the step needs no wait; each tensor is marked as used by the training
    stream (`record_stream`), so that its memory is not given to the next copy while the step
    still reads it."""
    training = torch.cuda.current_stream(device)
    copying = torch.cuda.Stream(device)

    def move(*components: Any) -> Any:
        with torch.cuda.stream(copying):
            moved = to_device(components if len(components) > 1 else components[0], device)
        for leaf in structure.flatten(moved):
            if isinstance(leaf, torch.Tensor) and leaf.is_cuda:
                leaf.record_stream(training)
        copying.synchronize()
        return moved

    return move


def enable_debug_mode() -> None:
    """TF's debug mode runs tf.data functions eagerly; here they always run eagerly (no-op)."""
