"""`ElementsDataset`: a dataset over a Python list of elements already in the pipeline's form.

Used where a transformation hands a run of elements on as a dataset (a
window of `window` / `group_by_window`) and by `tf.data.experimental.from_list`.
The elements are flat lists of components; every pass replays them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from torchestimator.data.dataset import Dataset
from torchestimator.data.streams import ElementStream
from torchestimator.data.structure import (
    flat_specs,
    flatten,
    map_structure,
    relaxed_spec,
    same_structure,
    spec_of,
    to_structure,
    with_flat_specs,
)


class ElementsDataset(Dataset):
    """The flat elements `elements` (a list, or a callable returning an iterator) with `spec`."""

    def __init__(self, elements: list | Callable[[], Iterator[list]], spec: Any,
                 cardinality: int | None = None):
        super().__init__()
        self._elements = elements
        self._spec = spec
        self._count = len(elements) if isinstance(elements, list) else cardinality

    def _open(self):
        items = self._elements
        return ElementStream(iter(items) if isinstance(items, list) else items())

    def _compute_spec(self):
        return self._spec

    def _compute_cardinality(self) -> int:
        return -2 if self._count is None else self._count


def from_list(elements: list, what: str = "from_list") -> Dataset:
    """A dataset of the given elements (nests of tensors, arrays or scalars), in order.

    Every element must have the same structure and dtypes; shapes that differ
    become None in the element spec. Raises ValueError for an empty list.
    """
    if not isinstance(elements, (list, tuple)) or not elements:
        raise ValueError(f"`elements` must be a non-empty list of elements; received {elements!r}")
    normalized = [to_structure(e, f"{what}: elements[{i}]") for i, e in enumerate(elements)]
    spec = spec_of(normalized[0])
    specs = flat_specs(spec)
    for i, e in enumerate(normalized[1:], start=1):
        other = spec_of(e)
        if not same_structure(spec, other):
            raise ValueError(
                f"{what}: all elements must have the same structure; elements[0] is {spec} "
                f"but elements[{i}] is {other}"
            )
        others = flat_specs(other)
        for a, b in zip(specs, others):
            if a.dtype != b.dtype:
                raise TypeError(
                    f"{what}: all elements must have the same dtypes; elements[0] has "
                    f"{spec} but elements[{i}] has {other}"
                )
        specs = [relaxed_spec(a, b) for a, b in zip(specs, others)]
    spec = with_flat_specs(map_structure(lambda s: s, spec), specs)
    return ElementsDataset([flatten(e) for e in normalized], spec)
