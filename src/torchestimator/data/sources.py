"""In-memory and Python sources: from_tensor_slices, from_tensors, range, from_generator."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

from torchestimator._dtypes import TensorSpec, as_dtype, string
from torchestimator._engine.device_scope import on_host
from torchestimator.data.columns import Block, col_shape, packed
from torchestimator.data.dataset import Dataset
from torchestimator.data.streams import (
    BlockRows,
    ElementStream,
    RangeRows,
    identity_stream,
)
from torchestimator.data.structure import (
    cast_component,
    flatten,
    map_structure,
    on_host_tensors,
    spec_from_types,
    spec_of,
    to_structure,
)
from torchestimator.data.validation import as_callable


class TensorSlicesDataset(Dataset):
    """Slices of in-memory tensors along their first dimension (`from_tensor_slices`)."""

    def __init__(self, tensors: Any):
        super().__init__()
        # string columns with few distinct values carry their codes (`encoded_strings`)
        structure = to_structure(on_host_tensors(tensors), "from_tensor_slices(tensors)", encode_strings=True)
        flat = flatten(structure)
        if not flat:
            raise ValueError("from_tensor_slices: `tensors` has no components")
        sizes = []
        for path, comp in _paths(structure, "tensors"):
            shape = col_shape(comp)
            if not shape:
                raise ValueError(
                    f"from_tensor_slices: {path} is a scalar; every component needs at "
                    f"least one dimension to slice (use from_tensors for a single element)"
                )
            sizes.append((path, shape[0]))
        if len({n for _, n in sizes}) > 1:
            listing = ", ".join(f"{p}: {n}" for p, n in sizes)
            raise ValueError(
                "from_tensor_slices: all components must have the same size in their first "
                f"dimension; received {listing}"
            )
        # 1-D numeric columns of one dtype are gathered together (one op a batch instead of one
        # a column; `columns.packed`)
        self._rows = BlockRows(packed(Block(flat, sizes[0][1])))
        self._structure = structure

    def _open(self):
        return identity_stream(self._rows)

    def _compute_spec(self):
        return map_structure(
            lambda c: TensorSpec(col_shape(c)[1:], _dtype_of(c)), self._structure
        )

    def _compute_cardinality(self) -> int:
        return self._rows.num_rows


class TensorDataset(Dataset):
    """A single element (`from_tensors`)."""

    def __init__(self, tensors: Any):
        super().__init__()
        structure = to_structure(on_host_tensors(tensors), "from_tensors(tensors)")
        self._structure = structure
        self._rows = BlockRows(Block.from_element(flatten(structure)))

    def _open(self):
        return identity_stream(self._rows)

    def _compute_spec(self):
        return spec_of(self._structure)

    def _compute_cardinality(self) -> int:
        return 1


class RangeDataset(Dataset):
    """A range of integers (`Dataset.range`), int64 unless `dtype` says otherwise."""

    def __init__(self, *args: Any, dtype: Any = None):
        super().__init__()
        if not 1 <= len(args) <= 3:
            raise TypeError(
                f"Dataset.range takes 1 to 3 arguments (stop | start, stop[, step]); "
                f"received {len(args)}"
            )
        try:
            r = builtins.range(*(_index(a) for a in args))
        except TypeError:
            raise TypeError(f"Dataset.range arguments must be integers; received {args!r}") from None
        except ValueError as e:
            raise ValueError(f"Dataset.range: {e} (received {args!r})") from None
        self._dtype = torch.int64 if dtype is None else as_dtype(dtype)
        if self._dtype is string:
            raise TypeError("Dataset.range: `dtype` must be numeric; received tf.string")
        self._rows = RangeRows(r, self._dtype)

    def _open(self):
        return identity_stream(self._rows)

    def _compute_spec(self):
        return TensorSpec((), self._dtype)

    def _compute_cardinality(self) -> int:
        return self._rows.num_rows


class GeneratorDataset(Dataset):
    """Elements produced by a Python generator, checked against a signature (`from_generator`)."""

    def __init__(self, generator: Callable, output_types: Any, output_shapes: Any,
                 args: tuple | None, output_signature: Any):
        super().__init__()
        self._generator = as_callable("generator", generator)
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError(
                    "from_generator: pass either `output_signature` or the deprecated "
                    "`output_types`/`output_shapes`, not both"
                )
            bad = [s for s in flatten(output_signature) if not isinstance(s, TensorSpec)]
            if bad:
                raise TypeError(
                    "from_generator: `output_signature` must be a nest of tf.TensorSpec; "
                    f"received {bad[0]!r}"
                )
            self._signature = output_signature
        elif output_types is not None:
            self._signature = spec_from_types(output_types, output_shapes)
        else:
            raise TypeError(
                "from_generator: `output_signature` is required (a nest of tf.TensorSpec "
                "describing each element)"
            )
        self._args = () if args is None else tuple(args)

    def _open(self):
        return ElementStream(self._elements())

    def _elements(self):
        specs = flatten(self._signature)
        single = isinstance(self._signature, TensorSpec)
        for i, value in enumerate(_on_host_each(self._generator(*self._args))):
            where = f"`generator` element {i}"
            values = [value] if single else _flatten_like(self._signature, value, where)
            yield [cast_component(v, s, where) for v, s in zip(values, specs)]

    def _compute_spec(self):
        return self._signature


def _on_host_each(values: Iterable) -> Iterator:
    """Iterates `values` (a generator's) with each step in a host scope, as TF runs a
    `from_generator` generator on the CPU; the consumer's code between steps is outside it."""
    iterator = iter(values)
    while True:
        with on_host():
            try:
                value = next(iterator)
            except StopIteration:
                return
        yield value


def _flatten_like(spec: Any, value: Any, where: str) -> list:
    """Flattens `value` following the structure of `spec`; error on a mismatch."""
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(
                f"{where}: expected a dict with keys {sorted(spec)}; received {value!r}"
            )
        return [v for k in sorted(spec) for v in _flatten_like(spec[k], value[k], where)]
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise TypeError(
                f"{where}: expected a tuple of {len(spec)} components; received {value!r}"
            )
        return [v for s, x in zip(spec, value) for v in _flatten_like(s, x, where)]
    return [value]


def _paths(structure: Any, prefix: str):
    if isinstance(structure, dict):
        for k, v in structure.items():
            yield from _paths(v, f"{prefix}[{k!r}]")
    elif isinstance(structure, tuple):
        for i, v in enumerate(structure):
            yield from _paths(v, f"{prefix}[{i}]")
    else:
        yield prefix, structure


def _dtype_of(component: Any):
    return component.dtype if isinstance(component, torch.Tensor) else string


def _index(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        value = value.item()
    if isinstance(value, bool):
        raise TypeError
    return operator.index(value)
