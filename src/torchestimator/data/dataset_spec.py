"""`tf.data.DatasetSpec` and `tf.data.IteratorSpec`: specs of datasets and iterators as values.

A dataset can be a component of another dataset's elements: `window` yields a
dataset per window, `group_by_window` hands each window to `reduce_func` as a
dataset, and `Dataset.load`'s `reader_func` receives a dataset of shard
datasets. The element spec of such a component is a `DatasetSpec`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torchestimator import _type_spec
from torchestimator.data.dataset import Dataset
from torchestimator.data.iterator import DatasetIterator


class DatasetSpec:
    """Type specification for a `tf.data.Dataset` (TF's `tf.data.DatasetSpec`).

    `element_spec` is the nest of `tf.TensorSpec` of the dataset's elements;
    `dataset_shape` is () for a single dataset.
    """

    def __init__(self, element_spec: Any, dataset_shape: Any = ()):
        self._element_spec = element_spec
        self._dataset_shape = _as_shape(dataset_shape)

    @property
    def element_spec(self) -> Any:
        """The element spec of the described dataset."""
        return self._element_spec

    @property
    def shape(self) -> tuple | None:
        """The shape of the dataset value: () for one dataset (None: an unknown rank)."""
        return self._dataset_shape

    @property
    def value_type(self) -> type:
        """The Python type of the described values (`tf.data.Dataset`)."""
        return Dataset

    @staticmethod
    def from_value(value: Any) -> DatasetSpec:
        """The DatasetSpec of a dataset: `DatasetSpec(value.element_spec)`."""
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True for a DatasetSpec or a dataset with an equal element spec."""
        if not isinstance(spec_or_value, (DatasetSpec, Dataset)):
            return False
        return spec_or_value.element_spec == self._element_spec

    def is_subtype_of(self, other: Any) -> bool:
        """True when every dataset this spec describes is one `other` describes (TF's rule):
        `other` is a DatasetSpec whose element spec has the same structure, each component
        spec a supertype of this one's (`TensorSpec.is_subtype_of`: same dtype, dimensions
        equal or None in `other`), and a dataset shape as general."""
        if type(other) is not type(self):
            return False
        return (_shape_subtype(self._dataset_shape, other._dataset_shape)
                and _nest_subtype(self._element_spec, other._element_spec))

    def most_specific_common_supertype(self, others: Any) -> DatasetSpec | None:
        """The most specific DatasetSpec that this spec and each of `others` are subtypes of:
        component dimensions that differ become None, ranks that differ an unknown shape. None
        when one of `others` is not a DatasetSpec or no such spec exists (element structures,
        dtypes or names that differ), as TF's."""
        others = list(others)
        if any(type(other) is not type(self) for other in others):
            return None
        element = _nest_supertype(self._element_spec, [o._element_spec for o in others])
        if element is _NONE:
            return None
        shape = self._dataset_shape
        for other in others:
            shape = _shape_supertype(shape, other._dataset_shape)
        return DatasetSpec(element, shape)

    def most_specific_compatible_type(self, other: Any) -> DatasetSpec:
        """TF1's name of `most_specific_common_supertype([other])` (deprecated in TF 2.15);
        raises ValueError where that is None."""
        return _compatible(self, other)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DatasetSpec) and other._element_spec == self._element_spec
                and other._dataset_shape == self._dataset_shape)

    def __hash__(self) -> int:
        return hash((DatasetSpec, repr(self._element_spec), self._dataset_shape))

    def __repr__(self) -> str:
        shape = "None" if self._dataset_shape is None else list(self._dataset_shape)
        return f"DatasetSpec({self._element_spec!r}, TensorShape({shape}))"


class IteratorSpec:
    """Type specification for a `tf.data.Iterator` (TF's `tf.data.IteratorSpec`)."""

    def __init__(self, element_spec: Any):
        self._element_spec = element_spec

    @property
    def element_spec(self) -> Any:
        """The element spec of the iterated dataset."""
        return self._element_spec

    @property
    def value_type(self) -> type:
        """The Python type of the described values (`tf.data.Iterator`)."""
        return DatasetIterator

    @staticmethod
    def from_value(value: Any) -> IteratorSpec:
        """The IteratorSpec of an iterator: `IteratorSpec(value.element_spec)`."""
        return IteratorSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True for an IteratorSpec or an iterator with an equal element spec."""
        if not isinstance(spec_or_value, (IteratorSpec, DatasetIterator)):
            return False
        return spec_or_value.element_spec == self._element_spec

    def is_subtype_of(self, other: Any) -> bool:
        """True when `other` is an IteratorSpec whose element spec is a supertype of this one's
        (same structure; each component as `TensorSpec.is_subtype_of`), as TF's."""
        return type(other) is type(self) and _nest_subtype(self._element_spec, other._element_spec)

    def most_specific_common_supertype(self, others: Any) -> IteratorSpec | None:
        """The most specific IteratorSpec that this spec and each of `others` are subtypes of
        (differing dimensions become None); None when there is none, as TF's."""
        others = list(others)
        if any(type(other) is not type(self) for other in others):
            return None
        element = _nest_supertype(self._element_spec, [o._element_spec for o in others])
        return None if element is _NONE else IteratorSpec(element)

    def most_specific_compatible_type(self, other: Any) -> IteratorSpec:
        """TF1's name of `most_specific_common_supertype([other])` (deprecated in TF 2.15);
        raises ValueError where that is None."""
        return _compatible(self, other)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IteratorSpec) and other._element_spec == self._element_spec

    def __hash__(self) -> int:
        return hash((IteratorSpec, repr(self._element_spec)))

    def __repr__(self) -> str:
        return f"IteratorSpec({self._element_spec!r},)"  # TF's (a tuple of its fields)


# --------------------------------------------------------------------------------------------
# TF's TypeSpec rules over the fields of the two specs: the nest structure must match exactly
# (same container types, dict keys, lengths); a component spec with TF's TraceType methods
# (TensorSpec, SparseTensorSpec, RaggedTensorSpec, a nested DatasetSpec) is covariant; any
# other value must be equal.
# --------------------------------------------------------------------------------------------
_NONE = object()  # no common supertype


def _as_shape(shape: Any) -> tuple | None:
    """A dataset shape as a tuple of int/None, or None for an unknown rank."""
    if shape is None:
        return None
    dims = getattr(shape, "dims", shape)  # a tf.TensorShape
    if dims is None:
        return None
    return tuple(None if getattr(d, "value", d) is None else int(getattr(d, "value", d)) for d in dims)


def _shape_subtype(a: tuple | None, b: tuple | None) -> bool:
    if b is None:
        return True
    if a is None or len(a) != len(b):
        return False
    return all(y is None or x == y for x, y in zip(a, b))


def _shape_supertype(a: tuple | None, b: tuple | None) -> tuple | None:
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def _children(value: Any) -> tuple[type, Any, list] | None:
    """(container type, its identity key, its children) of a nest node, None for a leaf."""
    if isinstance(value, Mapping):
        keys = sorted(value, key=repr)
        return type(value), tuple(keys), [value[k] for k in keys]
    if isinstance(value, (tuple, list)):
        return type(value), len(value), list(value)
    return None


def _is_trace_type(value: Any) -> bool:
    return hasattr(value, "is_subtype_of") and hasattr(value, "most_specific_common_supertype")


def _nest_subtype(a: Any, b: Any) -> bool:
    node_a, node_b = _children(a), _children(b)
    if node_a is None or node_b is None:
        if node_a is not None or node_b is not None:
            return False
        if _is_trace_type(a):
            return bool(a.is_subtype_of(b))
        return a == b
    if node_a[:2] != node_b[:2]:
        return False
    return all(_nest_subtype(x, y) for x, y in zip(node_a[2], node_b[2]))


def _nest_supertype(value: Any, others: list) -> Any:
    """The common supertype of the nests `value` and `others`, or _NONE."""
    node = _children(value)
    other_nodes = [_children(o) for o in others]
    if node is None:
        if any(n is not None for n in other_nodes):
            return _NONE
        if _is_trace_type(value):
            common = value.most_specific_common_supertype(others)
            return _NONE if common is None else common
        return value if all(value == o for o in others) else _NONE
    if any(n is None or n[:2] != node[:2] for n in other_nodes):
        return _NONE
    parts = []
    for i, child in enumerate(node[2]):
        part = _nest_supertype(child, [n[2][i] for n in other_nodes])
        if part is _NONE:
            return _NONE
        parts.append(part)
    kind = node[0]
    if isinstance(value, Mapping):
        merged = dict(zip(node[1], parts))
        return kind((k, merged[k]) for k in value)  # the spec's own key order
    if hasattr(value, "_fields"):  # a namedtuple
        return kind(*parts)
    return kind(parts)


def _compatible(spec: Any, other: Any) -> Any:
    common = spec.most_specific_common_supertype([other])
    if common is None:
        raise ValueError(f"No TypeSpec is compatible with both {spec} and {other}")
    return common


# tf.type_spec_from_value(dataset) and (iterator), as TF's
_type_spec.VALUE_SPECS.extend([(Dataset, DatasetSpec.from_value),
                               (DatasetIterator, IteratorSpec.from_value)])
