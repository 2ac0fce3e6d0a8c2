"""`Dataset.scan`: a running state threaded through the elements.

`scan_func(state, element)` returns `(new_state, output_element)`; the outputs
form the new dataset. The new state must keep the structure and dtypes of
`initial_state` (TF's check, with TF's message); its shapes may change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from torchestimator._dtypes import dtype_name
from torchestimator._engine.device_scope import on_host
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.mapping import _placeholder
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.data.structure import (
    flat_specs,
    flatten,
    make_packer,
    on_host_tensors,
    same_structure,
    spec_of,
    to_structure,
    with_flat_specs,
)


class ScanDataset(UnaryDataset):
    """Outputs of `scan_func` applied with a running state (`Dataset.scan`)."""

    def __init__(self, input_dataset: Dataset, initial_state: Any, scan_func: Callable):
        super().__init__((input_dataset,))
        self._initial = to_structure(on_host_tensors(initial_state), "initial_state")
        self._fn = scan_func
        self._observed: Any = None

    def _step(self, state: Any, element: Any) -> tuple[Any, Any]:
        args = (state, *element) if type(element) is tuple else (state, element)
        with on_host():  # a dataset function: its ops on the host, as TF's
            result = self._fn(*args)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(
                "Invalid `scan_func`. `scan_func` should return a pair consisting of new "
                f"state and the output value but its return type is {type(result).__name__}."
            )
        new_state = to_structure(result[0], "scan_func new state")
        _check_state(self._initial, new_state)
        out = to_structure(result[1], "scan_func output", list_is_tuple=True)
        return new_state, out

    def _open(self):
        return ElementStream(self._scanned())

    def _scanned(self) -> Iterator[list]:
        pack = make_packer(self._input.element_spec)
        state = self._initial
        for flat in iter_elements(self._input._open()):
            state, out = self._step(state, pack(flat))
            if self._observed is None:
                self._observed = spec_of(out)
            yield flatten(out)

    def _compute_spec(self):
        if self._observed is None:
            spec = self._input.element_spec
            element = with_flat_specs(spec, [_placeholder(s) for s in flat_specs(spec)])
            return spec_of(self._step(self._initial, element)[1])
        return self._observed

    def _compute_cardinality(self) -> int:
        return self._input._compute_cardinality()

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None


def _check_state(initial: Any, new: Any) -> None:
    if not same_structure(initial, new):
        raise TypeError(
            "Invalid `scan_func`. The element classes for the new state must match the "
            f"initial state. Expected {spec_of(initial)}, got {spec_of(new)}."
        )
    for a, b in zip(flat_specs(spec_of(initial)), flat_specs(spec_of(new))):
        if a.dtype != b.dtype:
            raise TypeError(
                "Invalid `scan_func`. The element types for the new state must match the "
                f"initial state. Expected {_tf_dtype(a.dtype)}, got {_tf_dtype(b.dtype)}."
            )


def _tf_dtype(dtype: Any) -> str:
    return f"<dtype: '{dtype_name(dtype)}'>"
