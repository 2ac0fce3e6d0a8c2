"""Per-element Python functions: map, filter, take_while and reduce.

The function sees one element in its structure (a tuple element is unpacked
into arguments, as in TF). Placed after `batch`, an element is a whole batch
and the function runs once per batch: the fast way. Placed before `batch`, it
runs once per row: correct, but the slow path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec, string
from torchestimator._engine.device_scope import HOST, on_host
from torchestimator.data.background import default_parallelism, parallel_map
from torchestimator.data.constants import AUTOTUNE
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.data.structure import (
    flat_specs,
    flatten,
    make_packer,
    on_host_tensors,
    spec_of,
    to_structure,
    with_flat_specs,
)


def call_on(fn: Callable, element: Any) -> Any:
    """Calls `fn` on an element: tuples are unpacked into positional arguments. It runs in a
    host scope: TF places a dataset function's ops on the CPU (`device_scope.on_host`)."""
    HOST.depth += 1
    try:
        if type(element) is tuple:
            return fn(*element)
        return fn(element)
    finally:
        HOST.depth -= 1


def as_bool_result(value: Any, what: str) -> bool:
    """The scalar boolean returned by a predicate; error otherwise."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (torch.Tensor, np.ndarray)) and value.shape == () \
            and value.dtype in (torch.bool, np.bool_):
        return bool(value)
    raise TypeError(
        f"`{what}` must return a scalar boolean (bool or 0-d bool tensor); received {value!r}"
    )


def _placeholder(spec: TensorSpec) -> Any:
    shape = tuple(1 if d is None else d for d in (spec.shape or ()))
    if spec.dtype is string:
        return np.full(shape, "", dtype=object) if shape else ""
    return torch.zeros(shape, dtype=spec.dtype)


class _ElementFunction(UnaryDataset):
    """Shared plumbing: packing input elements for a user function."""

    def __init__(self, input_dataset: Dataset, fn: Callable):
        super().__init__((input_dataset,))
        self._fn = fn

    def _packed_elements(self, stream: Any) -> Iterator[Any]:
        """The input pass with each element rebuilt in its structure."""
        pack = None
        for flat in iter_elements(stream):
            if pack is None:
                pack = make_packer(self._input.element_spec)
            yield pack(flat)

    def _first_input(self) -> tuple[Any, bool]:
        """The first input element (or a placeholder built from the spec if there is none)."""
        it = self._packed_elements(self._input._open())
        try:
            return next(it), True
        except StopIteration:
            spec = self._input.element_spec
            return with_flat_specs(spec, [_placeholder(s) for s in flat_specs(spec)]), False
        finally:
            it.close()


def _relaxed_composite(spec: Any, lead: int) -> Any:
    """A SparseTensorSpec / RaggedTensorSpec whose first dimension equals the unknown input
    batch dimension `lead`, with that dimension None (other specs as they are)."""
    shape = getattr(spec, "shape", None)
    if isinstance(spec, TensorSpec) or getattr(shape, "rank", None) in (None, 0) \
            or shape.as_list()[0] != lead:
        return spec
    dims = [None, *shape.as_list()[1:]]
    if type(spec).__name__ == "SparseTensorSpec":
        return type(spec)(dims, spec.dtype)
    if type(spec).__name__ == "RaggedTensorSpec":
        return type(spec)(dims, spec.dtype, spec.ragged_rank, spec.row_splits_dtype)
    return spec


class MapDataset(_ElementFunction):
    """Applies a function to each element (`Dataset.map`)."""

    def __init__(self, input_dataset: Dataset, fn: Callable, num_parallel_calls: int | None,
                 deterministic: bool | None):
        super().__init__(input_dataset, fn)
        self._num_parallel_calls = num_parallel_calls
        self._deterministic = deterministic
        self._observed: Any = None

    def _apply(self, element: Any) -> list:
        out = to_structure(call_on(self._fn, element), "map_func output", list_is_tuple=True)
        if self._observed is None:
            self._observed = self._output_spec(element, out)
        return flatten(out)

    def _output_spec(self, element: Any, out: Any) -> Any:
        """The spec of `out`; dimensions equal to an unknown input batch dimension stay None."""
        in_specs = flat_specs(self._input.element_spec)
        in_flat = flatten(element)
        lead = None
        if in_specs and in_specs[0].shape and in_specs[0].shape[0] is None and in_flat:
            lead = tuple(getattr(in_flat[0], "shape", ()))[:1] or None
        spec = spec_of(out)
        if lead is None:
            return spec
        relaxed = [
            TensorSpec((None, *s.shape[1:]), s.dtype)
            if isinstance(s, TensorSpec) and s.shape and s.shape[0] == lead[0] else
            _relaxed_composite(s, lead[0])
            for s in flat_specs(spec)
        ]
        return with_flat_specs(spec, relaxed)

    def _open(self):
        elements = self._packed_elements(self._input._open())
        workers = self._num_parallel_calls
        if workers is None or workers == 1:
            return ElementStream(self._apply(e) for e in elements)
        opts = self.options()
        if workers == AUTOTUNE:
            workers = opts.threading.private_threadpool_size or default_parallelism()
        deterministic = (opts.is_deterministic() if self._deterministic is None
                         else self._deterministic)
        return ElementStream(parallel_map(self._apply, elements, workers, deterministic))

    def _compute_spec(self):
        if self._observed is None:
            element, real = self._first_input()
            try:
                out = to_structure(call_on(self._fn, element), "map_func output",
                                   list_is_tuple=True)
            except Exception as e:
                if real:
                    raise
                raise ValueError(
                    "Cannot determine the element_spec of `map`: its input is empty and "
                    f"map_func failed on a placeholder element ({type(e).__name__}: {e})"
                ) from e
            return self._output_spec(element, out) if real else spec_of(out)
        return self._observed

    def _compute_cardinality(self) -> int:
        return self._input._compute_cardinality()


class FilterDataset(_ElementFunction):
    """Keeps the elements for which a predicate is True (`Dataset.filter`)."""

    def _open(self):
        return ElementStream(self._kept(self._input._open()))

    def _kept(self, stream: Any) -> Iterator[list]:
        fn = self._fn
        pack = None
        for flat in iter_elements(stream):
            if pack is None:
                pack = make_packer(self._input.element_spec)
            if as_bool_result(call_on(fn, pack(flat)), "predicate"):
                yield flat

    def _compute_spec(self):
        return self._input.element_spec


class TakeWhileDataset(_ElementFunction):
    """Elements while a predicate holds (`Dataset.take_while`)."""

    def _open(self):
        return ElementStream(self._taken(self._input._open()))

    def _taken(self, stream: Any) -> Iterator[list]:
        fn = self._fn
        pack = None
        for flat in iter_elements(stream):
            if pack is None:
                pack = make_packer(self._input.element_spec)
            if not as_bool_result(call_on(fn, pack(flat)), "predicate"):
                return
            yield flat

    def _compute_spec(self):
        return self._input.element_spec

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None


def reduce_dataset(dataset: Dataset, initial_state: Any, fn: Callable) -> Any:
    """`Dataset.reduce`: folds every element into a state with `fn(state, element)`."""
    state = to_structure(on_host_tensors(initial_state), "initial_state")
    pack = None
    for flat in iter_elements(dataset._open()):
        if pack is None:
            pack = make_packer(dataset.element_spec)
        with on_host():  # a dataset function: its ops on the host, as TF's
            state = to_structure(fn(state, pack(flat)), "reduce_func output")
    return state
