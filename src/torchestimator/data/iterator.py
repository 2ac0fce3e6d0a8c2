"""Iterators over a dataset: `iter(dataset)` and `dataset.as_numpy_iterator()`."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import string
from torchestimator._engine.loop import to_device
from torchestimator._ops.control_ops._context import creation_device
from torchestimator.data.optional import get_next_as_optional
from torchestimator.data.streams import iter_elements
from torchestimator.data.string_tensor import for_user
from torchestimator.data.structure import flat_specs, make_packer
from torchestimator.errors import InvalidArgumentError, NotFoundError

_STATE_FORMAT = "torchestimator.data.Iterator/1"


def _pipeline(dataset: Any) -> list:
    """The datasets of a pipeline, each once, from `dataset` down through its inputs."""
    out, seen, stack = [], set(), [dataset]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(reversed(getattr(node, "_inputs", ())))
    return out


def _randomness(node: Any) -> Any:
    """What holds the per-pass randomness of a dataset (its seed and pass number: a shuffle, a
    shuffled file list, a sampler), or None."""
    if hasattr(node, "_pass_state"):
        return node
    holder = getattr(node, "_random", None)
    return holder if hasattr(holder, "_pass_state") else None


def _pass_start(dataset: Any) -> tuple[list[str], list]:
    """The pipeline's datasets by type, and the (position, [seed, pass]) of each random one:
    what a pass opened now starts from."""
    nodes = _pipeline(dataset)
    states = [[i, r._pass_state()] for i, n in enumerate(nodes) if (r := _randomness(n)) is not None]
    return [type(n).__name__ for n in nodes], states


def _parse_state(state: Any) -> dict:
    text = state
    if isinstance(text, np.ndarray) and text.ndim == 0:
        text = text.item()
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        record = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        record = None
    if not isinstance(record, dict) or record.get("format") != _STATE_FORMAT:
        raise InvalidArgumentError(None, None, "Could not parse the iterator state: restore() takes what an "
                                               f"iterator's save() returned; received {state!r:.200}.")
    return record


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

    __slots__ = ("_dataset", "_device", "_flat", "_pack", "_position", "_start", "_strings")

    def __init__(self, dataset: Any, device: torch.device | None = None):
        self._dataset = dataset
        self._device = device  # None: the elements stay where the pipeline made them
        self._start = _pass_start(dataset)  # what `_save` records to replay the pass
        self._flat = iter_elements(dataset._open())
        self._position = 0  # elements taken
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
        self._position += 1
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

    def _save(self) -> np.ndarray:
        """The iterator's position as a scalar string (TF's `_save`): the number of elements
        taken and the seed and pass number of each random dataset of the pipeline when the
        pass opened."""
        names, states = self._start
        record = {"format": _STATE_FORMAT, "pipeline": names, "random": states, "position": self._position}
        return np.array(json.dumps(record), dtype=object)

    def _restore(self, state: Any) -> None:
        """Moves the iterator to the position `state` (from `_save`) recorded, as TF's
        `_restore`: a new pass of the dataset, its random datasets set back to the seeds and
        pass numbers the saved pass had, replayed up to that position."""
        record = _parse_state(state)
        nodes = _pipeline(self._dataset)
        names = [type(n).__name__ for n in nodes]
        random = record.get("random", [])
        if record.get("pipeline") != names or any(
                not 0 <= i < len(nodes) or _randomness(nodes[i]) is None for i, _ in random):
            raise NotFoundError(
                None, None, "Failed to restore dataset iterator from checkpoint: the checkpoint's pipeline is "
                f"{record.get('pipeline')}, this iterator's {names}. Make sure the dataset definition has not "
                "changed between the process that saved the checkpoint and the process that is restoring it.")
        for i, pass_state in random:
            _randomness(nodes[i])._set_pass_state(pass_state)
        self.close()
        self._start = (names, random)
        self._flat = iter_elements(self._dataset._open())
        self._position = 0
        for _ in range(int(record["position"])):
            try:
                next(self._flat)
            except StopIteration:
                break
            self._position += 1


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
    """One pass over a dataset yielding numpy components (`as_numpy_iterator`).

    `save()` returns the iterator's position and `restore(state)` goes back to it, on this
    iterator or on another over the same dataset definition (TF's iterator checkpointing). The
    position is replayed: `restore` opens a new pass with every shuffle, shuffled file list and
    sampler of the pipeline set back to the seed and pass number the saved pass had, then
    skips the elements taken before `save`. So the restored iterator yields what the saved one
    would have yielded next, as TF's, provided the pipeline is deterministic given those seeds:
    random ops inside `map` functions (which draw from torch's global generator), datasets
    made inside `interleave`/`flat_map` functions with unseeded shuffles, and
    `deterministic=False` parallel orders are not replayed.
    """

    __slots__ = ("_it",)

    def __init__(self, dataset: Any):
        self._it = DatasetIterator(dataset)

    def __iter__(self) -> NumpyIterator:
        return self

    def __next__(self) -> Any:
        it = self._it
        flat = next(it._flat)
        it._position += 1
        if it._pack is None:
            it._pack = make_packer(it._dataset.element_spec)
        return it._pack([to_numpy(c) for c in flat])

    def next(self) -> Any:
        """The next element (TF's `NumpyIterator.next()`, what TF's tutorials call)."""
        return self.__next__()

    def close(self) -> None:
        """Ends the pass now, stopping its threads."""
        self._it.close()

    def save(self) -> np.ndarray:
        """Returns the iterator's state, a scalar string (TF's `NumpyIterator.save()`): pass it
        to `restore` to come back to this position."""
        return self._it._save()

    def restore(self, state: Any) -> None:
        """Restores the position `state` (what `save()` returned) records, as TF's
        `NumpyIterator.restore`: the next elements are those that followed it. Raises
        NotFoundError when the dataset is not the one saved (a different pipeline), as TF's,
        and InvalidArgumentError for what is not an iterator state."""
        self._it._restore(state)
