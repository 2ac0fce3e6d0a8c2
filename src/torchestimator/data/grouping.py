"""Windows and groups: `window`, `group_by_window`, `group_by_reducer`.

`window` cuts the input into (overlapping or strided) runs and yields each as
a dataset. `group_by_window` sorts elements into groups by an int64 key and,
whenever a group holds `window_size` elements, hands it to `reduce_func(key,
window_dataset)` and yields that dataset's elements; groups left at the end
are reduced in ascending key order, as TF does. `group_by_reducer` folds each
group into a state (`Reducer`) and yields the finalized states at the end, in
ascending key order. `bucket_by_sequence_length` (in `bucketing.py`) is
`group_by_window` with a padded batch per bucket.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.dataset_spec import DatasetSpec
from torchestimator.data.element_list import ElementsDataset
from torchestimator.data.mapping import call_on
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.data.structure import flatten, make_packer, spec_of, to_structure


def scalar_int64(value: Any, what: str) -> int:
    """`value` (a Python int or an int64 scalar tensor/array) as an int; ValueError otherwise."""
    if isinstance(value, (torch.Tensor, np.ndarray, np.generic)):
        dtype = value.dtype
        if tuple(value.shape) != () or dtype not in (torch.int64, np.int64):
            raise ValueError(
                f"`{what}` must return a scalar tf.int64 tensor; received {value!r} "
                f"(shape {tuple(value.shape)}, dtype {dtype})"
            )
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"`{what}` must return a scalar tf.int64 tensor; received {value!r}")
    return value


class WindowDataset(UnaryDataset):
    """Windows of `size` elements, `shift` apart, `stride` within (`Dataset.window`)."""

    def __init__(self, input_dataset: Dataset, size: int, shift: int, stride: int,
                 drop_remainder: bool):
        super().__init__((input_dataset,))
        self._size, self._shift, self._stride = size, shift, stride
        self._drop_remainder = drop_remainder

    def _open(self):
        return ElementStream(self._windows(iter_elements(self._input._open())))

    def _windows(self, elements: Iterator[list]) -> Iterator[list]:
        span = (self._size - 1) * self._stride + 1
        spec = self._input.element_spec
        buf: list = []
        skip = 0
        for e in elements:
            if skip:
                skip -= 1
                continue
            buf.append(e)
            if len(buf) == span:
                yield [ElementsDataset(buf[::self._stride], spec)]
                skip = max(0, self._shift - len(buf))
                buf = buf[self._shift:]
        while buf and not self._drop_remainder:
            yield [ElementsDataset(buf[::self._stride][:self._size], spec)]
            buf = buf[self._shift:]

    def _compute_spec(self):
        return DatasetSpec(self._input.element_spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        if not self._drop_remainder:
            return -(-n // self._shift)
        span = (self._size - 1) * self._stride + 1
        return 0 if n < span else (n - span) // self._shift + 1

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None


class GroupByWindowDataset(UnaryDataset):
    """Groups elements by key and reduces each full window (`Dataset.group_by_window`).

    `element_spec` (optional) is the spec of the output when the caller knows it
    better than a trial call of `reduce_func` does (bucketing pads to a size per key).
    """

    def __init__(self, input_dataset: Dataset, key_func: Callable, reduce_func: Callable,
                 window_size_func: Callable[[Any], Any], element_spec: Any = None):
        super().__init__((input_dataset,))
        self._key_func = key_func
        self._reduce_func = reduce_func
        self._window_size_func = window_size_func
        self._given_spec = element_spec

    def _open(self):
        return ElementStream(self._grouped())

    def _window_size(self, key: int, sizes: dict) -> int:
        size = sizes.get(key)
        if size is None:
            value = self._window_size_func(torch.tensor(key, dtype=torch.int64))
            size = scalar_int64(value, "window_size_func")
            if size < 1:
                raise ValueError(f"`window_size_func` must return a positive window size; "
                                 f"received {size} for key {key}")
            sizes[key] = size
        return size

    def _grouped(self) -> Iterator[list]:
        spec = self._input.element_spec
        pack = make_packer(spec)
        groups: dict[int, list] = {}
        sizes: dict[int, int] = {}
        for flat in iter_elements(self._input._open()):
            key = scalar_int64(call_on(self._key_func, pack(flat)), "key_func")
            group = groups.setdefault(key, [])
            group.append(flat)
            if len(group) >= self._window_size(key, sizes):
                del groups[key]
                yield from self._reduced(key, group, spec)
        for key in sorted(groups):
            yield from self._reduced(key, groups[key], spec)

    def _reduced(self, key: int, elements: list, spec: Any) -> Iterator[list]:
        out = self._reduce_func(torch.tensor(key, dtype=torch.int64),
                                ElementsDataset(elements, spec))
        if not isinstance(out, Dataset):
            raise TypeError(f"`reduce_func` must return a Dataset; received {type(out).__name__}")
        yield from iter_elements(out._open())

    def _compute_spec(self):
        if self._given_spec is not None:
            return self._given_spec
        out = self._reduce_func(torch.tensor(0, dtype=torch.int64),
                                ElementsDataset([], self._input.element_spec))
        if not isinstance(out, Dataset):
            raise TypeError(f"`reduce_func` must return a Dataset; received {type(out).__name__}")
        return out.element_spec

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        return INFINITE_CARDINALITY if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None


class Reducer:
    """How `group_by_reducer` folds a group (TF's `tf.data.experimental.Reducer`).

    `init_func(key)` makes a group's initial state, `reduce_func(state, element)`
    the next state, `finalize_func(state)` the group's output element.
    """

    def __init__(self, init_func: Callable, reduce_func: Callable, finalize_func: Callable):
        for name, fn in (("init_func", init_func), ("reduce_func", reduce_func),
                         ("finalize_func", finalize_func)):
            if not callable(fn):
                raise TypeError(f"Reducer: `{name}` must be callable; received {fn!r}")
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self) -> Callable:
        """`init_func(key) -> state`."""
        return self._init_func

    @property
    def reduce_func(self) -> Callable:
        """`reduce_func(state, element) -> state`."""
        return self._reduce_func

    @property
    def finalize_func(self) -> Callable:
        """`finalize_func(state) -> output element`."""
        return self._finalize_func


class GroupByReducerDataset(UnaryDataset):
    """One element per key: the finalized reduction of its group (`group_by_reducer`)."""

    def __init__(self, input_dataset: Dataset, key_func: Callable, reducer: Reducer):
        if not isinstance(reducer, Reducer):
            raise TypeError(f"`reducer` must be a tf.data.experimental.Reducer; received "
                            f"{type(reducer).__name__}")
        super().__init__((input_dataset,))
        self._key_func = key_func
        self._reducer = reducer
        self._observed: Any = None

    def _open(self):
        return ElementStream(self._reduced())

    def _finalized(self, state: Any) -> list:
        out = to_structure(self._reducer.finalize_func(state), "finalize_func output",
                           list_is_tuple=True)
        if self._observed is None:
            self._observed = spec_of(out)
        return flatten(out)

    def _reduced(self) -> Iterator[list]:
        pack = make_packer(self._input.element_spec)
        states: dict[int, Any] = {}
        r = self._reducer
        for flat in iter_elements(self._input._open()):
            element = pack(flat)
            key = scalar_int64(call_on(self._key_func, element), "key_func")
            if key not in states:
                states[key] = to_structure(r.init_func(torch.tensor(key, dtype=torch.int64)),
                                           "init_func output")
            states[key] = to_structure(r.reduce_func(states[key], element),
                                       "reduce_func output")
        for key in sorted(states):
            yield self._finalized(states[key])

    def _compute_spec(self):
        if self._observed is None:
            state = to_structure(self._reducer.init_func(torch.tensor(0, dtype=torch.int64)),
                                 "init_func output")
            return spec_of(to_structure(self._reducer.finalize_func(state),
                                        "finalize_func output", list_is_tuple=True))
        return self._observed

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        return INFINITE_CARDINALITY if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None
