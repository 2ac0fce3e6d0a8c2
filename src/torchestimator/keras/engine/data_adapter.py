"""What `fit`, `evaluate` and `predict` accept, turned into batches of `(x, y, sample_weight)`.

In-memory data (numpy arrays, torch tensors, lists or dicts of them, pandas
DataFrames) is converted to CPU tensors once; an epoch gathers whole batches
by index (a random permutation when shuffling). Datasets, generators and
other iterables are iterated as they are; each element is `x`, `(x,)`,
`(x, y)` or `(x, y, sample_weight)`. A `torch.utils.data.Dataset` holds samples:
it is batched by a `DataLoader` (`batch_size`, `shuffle` for map-style ones).
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._engine import loop
from torchestimator._ops import nest
from torchestimator.keras._sparse_inputs import take_rows
from torchestimator.keras.engine import one_hot_labels

logger = logging.getLogger("torchestimator")

# Keras 2.15's DataHandler.catch_stop_iteration logs this (tf_logging.warning) when a source
# with a known number of steps per epoch ends early; training stops after that epoch.
RAN_OUT_OF_DATA = (
    "Your input ran out of data; interrupting training. Make sure that your dataset or "
    "generator can generate at least `steps_per_epoch * epochs` batches (in this case, {} "
    "batches). You may need to use the repeat() function when building your dataset."
)


def unpack_x_y_sample_weight(data: Any) -> tuple:
    """Splits a batch into `(x, y, sample_weight)` (missing parts are None), as Keras."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple) or hasattr(data, "_fields"):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(
        "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`; "
        f"found a tuple of {len(data)} elements."
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> tuple:
    """Packs `(x, y, sample_weight)` into the shortest tuple that holds them."""
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _to_array(value: Any, name: str) -> Any:
    """Converts one leaf of user data to a CPU tensor (strings stay a numpy array)."""
    if value is None:
        return None
    if isinstance(value, torch.Tensor) or _is_ragged(value) or _is_sparse(value):
        return value
    if hasattr(value, "to_numpy") and hasattr(value, "columns"):  # pandas DataFrame
        value = value.to_numpy()
    elif hasattr(value, "to_numpy"):  # pandas Series
        value = value.to_numpy()
    array = np.asarray(value)
    if array.dtype.kind in "OUS":
        return array.astype(object) if array.dtype.kind != "O" else array
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    elif not array.flags.writeable:  # a pandas column under copy-on-write is read-only
        array = array.copy()
    if array.dtype.kind not in "biuf":
        raise TypeError(f"Cannot use {name} of dtype {array.dtype} as model data.")
    return torch.from_numpy(np.ascontiguousarray(array))


def _is_sparse(value: Any) -> bool:
    """True for a `tf.SparseTensor` (model data batched by rows: keras/_sparse_inputs.py)."""
    return type(value).__name__ == "SparseTensor"


def _is_ragged(value: Any) -> bool:
    """True for a `tf.RaggedTensor` (model data batched by rows, passed to the model as is)."""
    return type(value).__name__ == "RaggedTensor"


def _strings_as_array(value: Any) -> Any:
    """A Python list of strings is one string array (Keras' lists-of-scalars rule:
    `predict(["good film", "bad"])`), not a list of inputs."""
    if isinstance(value, list) and value and all(isinstance(v, (str, bytes)) for v in value):
        array = np.empty(len(value), dtype=object)
        array[:] = value
        return array
    return value


def _is_array_like(value: Any) -> bool:
    return isinstance(value, (np.ndarray, torch.Tensor)) or hasattr(value, "to_numpy") or (
        isinstance(value, (list, tuple)) and value and not isinstance(value[0], (dict,))
        and all(isinstance(v, (np.ndarray, torch.Tensor, int, float, list)) or hasattr(v, "to_numpy") for v in value)
    )


def _is_dataset(value: Any) -> bool:
    """Whether `value` is a Dataset, asked of its type: `element_spec` is a property that may
    run a `map` function, and `hasattr` on the instance would swallow (as "not a dataset") an
    AttributeError raised inside that function."""
    kind = type(value)
    return hasattr(kind, "element_spec") and hasattr(kind, "cardinality")


def _is_iterable_source(value: Any) -> bool:
    return _is_dataset(value) or isinstance(value, Iterator) or isinstance(
        value, torch.utils.data.DataLoader
    ) or (hasattr(value, "__iter__") and hasattr(value, "__len__") and hasattr(value, "__getitem__")
          and not _is_array_like(value) and not isinstance(value, dict))


def _leaves_length(structure: Any) -> int:
    lengths = {v._nrows() if _is_ragged(v) else v.shape[0] if _is_sparse(v) else len(v)
               for v in nest.flatten(structure) if v is not None}
    if len(lengths) > 1:
        raise ValueError(
            "Data cardinality is ambiguous: the arrays given have different numbers of samples "
            f"{sorted(lengths)}. Make sure all arrays contain the same number of samples."
        )
    return lengths.pop() if lengths else 0


def _take(value: Any, index: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        if isinstance(index, slice):
            return value[index]
        return value.index_select(0, index)
    if isinstance(value, np.ndarray):
        return value[index if isinstance(index, slice) else index.numpy()]
    if _is_ragged(value):  # rows of a tf.RaggedTensor
        return value[index] if isinstance(index, slice) else value._gather_rows(index)
    if _is_sparse(value):  # rows of a tf.SparseTensor
        return take_rows(value, index)
    if isinstance(value, dict):
        return {k: _take(v, index) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_take(v, index) for v in value)
    return value


class ArrayData:
    """In-memory `(x, y, sample_weight)` batched by index; `steps` batches an epoch."""

    ran_out = False  # arrays never run out (`IterableData.ran_out`)
    # each batch is `(x,)` of an `x` given alone (not as a tuple): Keras hands an overridden
    # train/test/predict step that `x` itself (set by `make_data`)
    single_x = False
    # the device the steps run on (set by the Keras front): one-hot label batches and their
    # class ids are recorded there, the tensors the step will see (`_record`)
    device: torch.device | None = None
    _arrays_on: torch.device | None = None

    def __init__(self, x: Any, y: Any, sample_weight: Any, batch_size: int, shuffle: bool):
        self.x = nest.map_structure(lambda v: _to_array(v, "x"), _normalize(x))
        self.y = nest.map_structure(lambda v: _to_array(v, "y"), _normalize(y))
        self.sample_weight = nest.map_structure(
            lambda v: _to_array(v, "sample_weight"), _normalize(sample_weight)
        )
        self._one_place()
        self.num_samples = _leaves_length((self.x, self.y, self.sample_weight))
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.steps = math.ceil(self.num_samples / batch_size) if self.num_samples else 0
        # exactly one-hot labels: decided once here; each batch's ids are recorded as it is
        # yielded, for the crossentropy and accuracy to ask for (`one_hot_labels`)
        self.class_ids = one_hot_labels.class_ids_of(self.y)
        # arrays given on an accelerator (torch tensors already there) are indexed there
        first = next((t for t in nest.flatten((self.x, self.y)) if isinstance(t, torch.Tensor)), None)
        self._arrays_on = first.device if first is not None and first.device.type != "cpu" else None

    def _one_place(self) -> None:
        """Puts the arrays on one device, so that a batch indexes them all with one index: when
        some are on an accelerator and others on the host (`x` made with `tf.random.normal` on
        the GPU, `y` a numpy array), those on the accelerator are copied to the host, as TF's
        input pipeline copies them; each batch then crosses to the device once a step."""
        arrays = (self.x, self.y, self.sample_weight)
        devices = {t.device for t in nest.flatten(arrays) if type(t) is torch.Tensor}
        if len(devices) > 1:
            self.x, self.y, self.sample_weight = nest.map_structure(
                lambda t: t.cpu() if type(t) is torch.Tensor else t, arrays)

    def split(self, validation_split: float) -> ArrayData:
        """Moves the last `validation_split` of the samples into a new ArrayData (Keras' rule)."""
        if not 0.0 < validation_split < 1.0:
            raise ValueError(
                f"validation_split must be a float between 0 and 1; received {validation_split!r}"
            )
        cut = int(math.floor(self.num_samples * (1.0 - validation_split)))
        if cut == 0 or cut == self.num_samples:
            raise ValueError(
                f"validation_split={validation_split} leaves no samples for "
                f"{'training' if cut == 0 else 'validation'} out of {self.num_samples}."
            )
        val = object.__new__(ArrayData)
        val.x, val.y, val.sample_weight = (
            _take(v, slice(cut, None)) for v in (self.x, self.y, self.sample_weight)
        )
        val.num_samples = self.num_samples - cut
        val.batch_size, val.shuffle = self.batch_size, False
        val.steps = math.ceil(val.num_samples / val.batch_size)
        self.x, self.y, self.sample_weight = (
            _take(v, slice(0, cut)) for v in (self.x, self.y, self.sample_weight)
        )
        ids = self.class_ids
        val.class_ids = None if ids is None else ids[cut:]
        self.class_ids = None if ids is None else ids[:cut]
        self.num_samples = cut
        self.steps = math.ceil(cut / self.batch_size)
        return val

    def __iter__(self) -> Iterator[tuple]:
        return self.batches()

    def batches(self, skip: int = 0) -> Iterator[tuple]:
        """An epoch's batches without its first `skip` ones (an epoch resumed from a backup
        made inside it): they are not even sliced. The shuffle is drawn as for a whole epoch."""
        n, bs = self.num_samples, self.batch_size
        # One batch holding every sample (full-batch training): a permutation would only reorder
        # the rows inside it, which no loss, metric or gradient of `fit` depends on beyond the
        # order of float summation, so none is drawn (it cost W3 ~14 us of a ~215 us epoch).
        # on the host: the arrays it indexes are there (a `tf.device` block sets torch's default)
        order = torch.randperm(n, device="cpu") if self.shuffle and n > bs else None
        if order is not None and self._arrays_on is not None:
            order = order.to(self._arrays_on)  # the index where the arrays are
        x, y, sw = self.x, self.y, self.sample_weight
        ids = self.class_ids
        if order is None and n <= bs and skip <= 0 and n:
            # one batch of every sample in order: the data themselves (a slice of the whole would
            # be a view of the same memory, made anew each epoch: ~4 us of W3's ~200 us epoch)
            if ids is not None:  # recorded as a view: the record is the adapter's own tensor
                y = self._record(y[:], ids)
            yield pack_x_y_sample_weight(x, y, sw)
            return
        # x, y and sample_weight each one tensor (or None): gathered without `_take`'s dispatch
        plain = type(x) is torch.Tensor and (y is None or type(y) is torch.Tensor) and (
            sw is None or type(sw) is torch.Tensor)
        device = self.device
        rows = (_pinned_rows if device is not None and device.type == "cuda" and self._arrays_on is None
                else torch.index_select)
        for start in range(max(0, skip) * bs, n, bs):
            stop = start + bs
            if order is None:
                index = slice(start, min(stop, n))
            else:
                index = order if start == 0 and stop >= n else order[start:stop]
            if plain and order is not None:
                y_batch = None if y is None else rows(y, 0, index)
                if ids is not None:
                    y_batch = self._record(y_batch, ids.index_select(0, index))
                yield pack_x_y_sample_weight(
                    rows(x, 0, index), y_batch, None if sw is None else rows(sw, 0, index),
                )
            else:
                y_batch = _take(y, index)
                if ids is not None:
                    y_batch = self._record(y_batch, _take(ids, index))
                yield pack_x_y_sample_weight(_take(x, index), y_batch, _take(sw, index))

    def _record(self, y_batch: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """Records `ids` as the class ids of the one-hot label batch `y_batch`, on the steps'
        device (both copied there first when it is not the batch's: the step sees that very
        tensor, as the loop leaves a tensor already on its device alone); returns the batch."""
        device = self.device
        if device is not None and y_batch.device != device:
            y_batch, ids = loop.to_device(y_batch, device), loop.to_device(ids, device)
        return one_hot_labels.record(y_batch, ids)


def _pinned_rows(array: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    """`torch.index_select(array, dim, index)` of a host array for a CUDA step, gathered into
    pinned memory: the loop copies it to the GPU without blocking and without the second host
    copy that pinning a gathered batch would take (the torch loop's batches are slices of
    arrays pinned once)."""
    shape = array.shape[:dim] + index.shape + array.shape[dim + 1:]
    out = torch.empty(shape, dtype=array.dtype, pin_memory=True)
    return torch.index_select(array, dim, index, out=out)


def _normalize(value: Any) -> Any:
    if value is None:
        return None
    if hasattr(value, "to_numpy"):
        return value
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, list) and value and not isinstance(value[0], (np.ndarray, torch.Tensor, list)) \
            and not hasattr(value[0], "to_numpy"):
        return np.asarray(value)
    return value


class IterableData:
    """Batches from a Dataset, generator or other iterable; `steps` is known when it has a length.

    As Keras 2.15's DataHandler: a Dataset (or a sized iterable) is iterated again each epoch,
    unless `steps` (steps_per_epoch) other than its own length is given, in which case the
    epochs continue one iterator; a generator always continues. When the input ends before the
    epoch's known number of steps, `ran_out` is set and TF's "Your input ran out of data"
    warning is logged: `fit` stops after that epoch (it does not start the input again).
    """

    # the last batch was an element that is not a tuple or list, as `(x,)`: Keras hands an
    # overridden train/test/predict step that element itself (see `ArrayData.single_x`)
    single_x = False

    def __init__(self, source: Any, steps: int | None, epochs: int = 1):
        self.source = source
        self.steps = steps
        self.epochs = epochs  # the epochs of this fit (the warning's `steps * epochs`)
        self._iterator: Iterator | None = None
        self.num_samples = None
        self.ran_out = False
        # TF's `should_recreate_iterator`: each epoch iterates the source again, unless
        # steps_per_epoch (other than the source's own length) makes the epochs continue it.
        self._continues = steps is not None or isinstance(source, Iterator)
        if _is_dataset(source):
            n = int(source.cardinality())
            if steps is None:
                self.steps = n if n >= 0 else None
            self._continues = steps is not None and steps != n
        elif steps is None and hasattr(source, "__len__"):
            self.steps = _length(source)

    def __iter__(self) -> Iterator[tuple]:
        return self.batches()

    def restart(self) -> None:
        """The next epoch starts the source again (each `evaluate` call does, as TF's
        `enumerate_epochs` makes a new iterator; a generator still continues)."""
        self._iterator = None
        self.ran_out = False

    def peek(self) -> tuple | None:
        """The first batch of a fresh pass over the source (None if empty), leaving the
        epochs' iterator alone; a generator is never peeked at (None)."""
        if isinstance(self.source, Iterator):
            return None
        element = next(loop.iter_on_host(self.source), None)
        return None if element is None else _as_batch(element)

    def _epoch_iterator(self) -> Iterator:
        if isinstance(self.source, Iterator):
            return self.source  # a generator continues where it stopped
        if self._continues and self._iterator is not None:
            return self._iterator  # steps_per_epoch: continue across epochs
        return loop.iter_on_host(self.source)

    def _input_ended(self, produced: int) -> None:
        """The source raised StopIteration after `produced` elements of this epoch."""
        self._iterator = None
        if self.steps is None:
            if self._continues and produced:
                self.steps = produced  # TF infers a generator's steps from its first epoch
            return
        self.ran_out = True
        logger.warning(RAN_OUT_OF_DATA.format(self.steps * self.epochs))

    def batches(self, skip: int = 0) -> Iterator[tuple]:
        """An epoch's batches without its first `skip` ones (an epoch resumed from a backup
        made inside it): those elements are read from the source and dropped (they count
        towards `steps`)."""
        iterator = self._iterator = self._epoch_iterator()
        steps = self.steps
        produced = 0
        while steps is None or produced < steps:
            try:
                element = next(iterator)
            except StopIteration:
                self._input_ended(produced)
                return
            produced += 1
            if produced <= skip:
                continue
            if isinstance(element, tuple):
                self.single_x = False
                yield element
            else:
                self.single_x = not isinstance(element, list)
                yield _as_batch(element)


class SequenceData(IterableData):
    """The batches of a `tf.keras.utils.Sequence`, as Keras 2.15's `KerasSequenceAdapter`:
    each epoch reads `seq[i]` for `i` in `0 .. len(seq) - 1` (in a new random order when
    `shuffle`, `random.shuffle` as Keras), then calls `seq.on_epoch_end()` once. With
    `workers > 1` (or `workers > 0` and `use_multiprocessing`), as Keras, the batches are read
    by a pool of threads (processes) at most `max_queue_size` ahead and still arrive in
    order; else sequentially in the calling thread."""

    def __init__(self, source: Any, steps: int | None, shuffle: bool = False, epochs: int = 1,
                 workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10):
        super().__init__(source, steps, epochs)
        self.shuffle = bool(shuffle)
        self._continues = False  # each epoch starts the Sequence again
        self.workers = workers
        self.use_multiprocessing = bool(use_multiprocessing)
        self.max_queue_size = max_queue_size

    def peek(self) -> tuple | None:
        """The Sequence's first batch (None if it is empty)."""
        return _as_batch(self.source[0]) if len(self.source) else None

    def batches(self, skip: int = 0) -> Iterator[tuple]:
        """An epoch's batches without its first `skip` ones (those are not even read); the
        Sequence's `on_epoch_end` runs when the epoch ends (or is left early)."""
        sequence = self.source
        order = list(range(len(sequence)))
        if self.shuffle:
            random.shuffle(order)
        steps = len(order) if self.steps is None else self.steps
        indices = order[max(0, skip):steps]
        if self.workers > 1 or (self.workers > 0 and self.use_multiprocessing):
            from torchestimator.keras.utils._enqueuers import (  # lazy: heavy (torchestimator.keras.utils._enqueuers, 314 ms)
                ordered_batches,
            )

            items = ordered_batches(sequence, indices, self.workers, self.use_multiprocessing,
                                    self.max_queue_size)
        else:
            items = (sequence[index] for index in indices)
        try:
            for item in items:
                self.single_x = not isinstance(item, (tuple, list))
                yield _as_batch(item)
        except GeneratorExit:
            items.close()  # the workers are done before `on_epoch_end` changes the Sequence
            sequence.on_epoch_end()
            raise
        if steps > len(order):
            self._input_ended(len(order))
        sequence.on_epoch_end()


def _length(source: Any) -> int | None:
    """`len(source)`, or None when it has none (a `DataLoader` of an `IterableDataset`
    without `__len__` has the method but raises TypeError)."""
    try:
        return len(source)
    except TypeError:
        return None


def _as_batch(element: Any) -> tuple:
    """An element of an iterable source as the batch tuple `(x[, y[, sample_weight]])`."""
    if isinstance(element, tuple):
        return element
    if isinstance(element, list) and len(element) in (1, 2, 3):  # a DataLoader's `(x, y)`
        return tuple(element)
    return (element,)


def make_data(
    x: Any,
    y: Any = None,
    sample_weight: Any = None,
    batch_size: int | None = None,
    steps: int | None = None,
    shuffle: bool = False,
    epochs: int = 1,
    workers: int = 1,
    use_multiprocessing: bool = False,
    max_queue_size: int = 10,
) -> ArrayData | IterableData:
    """Returns the batch source for `x` (and `y`, `sample_weight`), validating the combination.
    `workers`, `use_multiprocessing` and `max_queue_size` apply to a `keras.utils.Sequence`.

    A `torch.utils.data.Dataset` (of samples) is batched by a `DataLoader` of `batch_size`
    (default 32), shuffled each epoch when `shuffle` and it is map-style (`torch_loader`)."""
    if x is None:
        raise ValueError("No data given: pass `x` (arrays, a dict of arrays, or a Dataset).")
    x = _strings_as_array(x)
    # imported here: torchestimator.keras.utils imports modules that import the engine
    from torchestimator.keras.utils._data_utils import (  # lazy: heavy (torchestimator.keras.utils._data_utils, 314 ms)
        Sequence,
    )

    if isinstance(x, Sequence):
        if y is not None or sample_weight is not None:
            raise ValueError(
                f"`{'y' if y is not None else 'sample_weight'}` argument is not supported when "
                "using `keras.utils.Sequence` as input: its batches are `(x, y[, sample_weight])`."
            )
        return SequenceData(x, steps, shuffle, epochs, workers, use_multiprocessing, max_queue_size)
    from torchestimator.keras.utils._dataset_creator import (  # lazy: heavy (torchestimator.keras.utils._dataset_creator, 319 ms)
        DatasetCreator,
    )

    if isinstance(x, DatasetCreator):
        if steps is None:
            raise ValueError(
                "When using a `tf.keras.utils.experimental.DatasetCreator`, `steps_per_epoch`, "
                "`validation_steps`, `steps`, or `pss_evaluation_shards` argument must be provided "
                "in `Model.fit`, `Model.evaluate`, or `Model.predict`."
            )
        from torchestimator.distribute._input_context import (  # lazy: heavy (torchestimator.distribute._input_context, 252 ms)
            InputContext,
        )

        x = x(InputContext())  # one input pipeline; a multi-worker fit shards it as any dataset
    if isinstance(x, torch.utils.data.Dataset) and not _is_dataset(x):
        x = torch_loader(x, batch_size, shuffle)
    if _is_iterable_source(x) and not _is_array_like(x):
        if y is not None:
            raise ValueError(
                "`y` argument is not supported when using a dataset or generator as input: the "
                "labels come from the dataset's elements `(x, y)`."
            )
        if sample_weight is not None:
            raise ValueError(
                "`sample_weight` argument is not supported when using a dataset or generator as "
                "input; yield `(x, y, sample_weight)` instead."
            )
        return IterableData(x, steps, epochs)
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
        raise ValueError(f"batch_size must be a positive integer; received {batch_size!r}")
    data = ArrayData(x, y, sample_weight, batch_size or 32, shuffle)
    data.single_x = y is None and sample_weight is None and not isinstance(x, tuple)
    if steps is not None:
        data.steps = min(data.steps, steps)
    return data


def torch_loader(dataset: torch.utils.data.Dataset, batch_size: int | None,
                 shuffle: bool) -> torch.utils.data.DataLoader:
    """A `DataLoader` batching the samples of a torch `dataset`: `batch_size` of them (default
    32) a batch, in a new random order each epoch when `shuffle` (map-style datasets only; an
    `IterableDataset` is read in its own order). Returns the loader."""
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
        raise ValueError(f"batch_size must be a positive integer; received {batch_size!r}")
    iterable = isinstance(dataset, torch.utils.data.IterableDataset)
    if not iterable and not hasattr(type(dataset), "__len__"):
        raise ValueError(
            f"A map-style torch Dataset ({type(dataset).__name__}) without __len__ cannot be "
            "batched here: give it a __len__, or pass a torch.utils.data.DataLoader of it."
        )
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size or 32,
                                       shuffle=bool(shuffle) and not iterable)


def apply_class_weight(y: Any, sample_weight: Any, class_weight: dict) -> torch.Tensor:
    """Returns sample weights that multiply each sample's weight by its class's weight."""
    if isinstance(y, (list, dict)):
        raise ValueError("`class_weight` is only supported for models with a single output.")
    labels = y
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(-1)
    elif labels.ndim > 1:
        labels = labels[..., 0]
    labels = labels.round().long() if labels.is_floating_point() else labels.long()
    size = max(int(max(class_weight)) + 1, int(labels.max()) + 1 if labels.numel() else 0)
    table = torch.ones(size, dtype=torch.float32, device=labels.device)
    for k, w in class_weight.items():
        table[int(k)] = float(w)
    weights = table[labels]
    if sample_weight is not None:
        weights = weights * sample_weight
    return weights
