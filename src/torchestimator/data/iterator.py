"""Iterators over a dataset: `iter(dataset)` and `dataset.as_numpy_iterator()`."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._dtypes import string
from torchestimator._engine.loop import to_device
from torchestimator._ops.control_ops._context import creation_device
from torchestimator.data.optional import get_next_as_optional
from torchestimator.data.streams import iter_elements
from torchestimator.data.string_tensor import for_user
from torchestimator.data.structure import flat_specs, make_packer


class DatasetIterator:
    """One pass over a dataset (TF's `tf.data.Iterator`); yields elements with torch tensors.

    `iter(dataset)` in a program puts each element's host tensors on the device objects are
    created on (`creation_device`: the `tf.device` block's, else the default device, a GPU when
    there is one), so that a custom training loop's batches meet the model's weights there as
    TF's implicit copies make them meet; on the CPU nothing is copied. Tensors the pipeline put
    on a device (`prefetch_to_device`) stay there, as TF's. String components stay on the
    host. The library's own input pipelines (`fit`, the Estimator) read a dataset on the host
    (`_engine.loop.iter_on_host`) and move each batch once, after the host-side work.

    Dropping the iterator (or calling `close()`) stops the background threads of the pass.
    """

    __slots__ = ("_dataset", "_device", "_flat", "_pack", "_strings")

    def __init__(self, dataset: Any, device: torch.device | None = None):
        self._dataset = dataset
        self._device = device  # None: the elements stay where the pipeline made them
        self._flat = iter_elements(dataset._open())
        self._pack = None
        self._strings: list[int] = []  # the flat positions of string components

    @property
    def element_spec(self) -> Any:
        """The element spec of the dataset being iterated."""
        return self._dataset.element_spec

    def __iter__(self) -> DatasetIterator:
        return self

    def __next__(self) -> Any:
        flat = next(self._flat)
        pack = self._pack
        if pack is None:
            spec = self._dataset.element_spec
            pack = self._pack = make_packer(spec)
            self._strings = [i for i, s in enumerate(flat_specs(spec))
                             if getattr(s, "dtype", None) is string]
        if self._strings:  # strings with TF's `.numpy()` (string_tensor.py)
            flat = list(flat)
            for i in self._strings:
                flat[i] = for_user(flat[i])
        device = self._device
        if device is not None:  # host tensors: a tensor the pipeline put on a device stays there
            flat = [to_device(v, device) if type(v) is torch.Tensor and v.device.type == "cpu" else v
                    for v in flat]
        return pack(flat)

    def get_next(self) -> Any:
        """Returns the next element; raises StopIteration at the end (TF: OutOfRangeError)."""
        return self.__next__()

    def next(self) -> Any:
        """The next element (TF's `Iterator.next()`)."""
        return self.__next__()

    def get_next_as_optional(self) -> Any:
        """The next element as a `tf.experimental.Optional` (empty at the end)."""
        return get_next_as_optional(self)

    def close(self) -> None:
        """Ends the pass now, stopping its threads."""
        close = getattr(self._flat, "close", None)
        if close is not None:
            close()


def placement_device() -> torch.device | None:
    """The device `iter(dataset)` puts elements on: `creation_device()` unless it is the CPU
    (None: nothing to move)."""
    device = creation_device()
    return None if device.type == "cpu" else device


def to_numpy(component: Any) -> Any:
    """A component as numpy: tensors become arrays; strings stay str / arrays of str."""
    if isinstance(component, torch.Tensor):
        arr = component.numpy(force=True)
        return arr[()] if arr.ndim == 0 else arr  # a scalar as a numpy scalar, as TF
    return component


class NumpyIterator:
    """One pass over a dataset yielding numpy components (`as_numpy_iterator`)."""

    __slots__ = ("_it",)

    def __init__(self, dataset: Any):
        self._it = DatasetIterator(dataset)

    def __iter__(self) -> NumpyIterator:
        return self

    def __next__(self) -> Any:
        flat = next(self._it._flat)
        it = self._it
        if it._pack is None:
            it._pack = make_packer(it._dataset.element_spec)
        return it._pack([to_numpy(c) for c in flat])

    def next(self) -> Any:
        """The next element (TF's `NumpyIterator.next()`, what TF's tutorials call)."""
        return self.__next__()

    def close(self) -> None:
        """Ends the pass now, stopping its threads."""
        self._it.close()
