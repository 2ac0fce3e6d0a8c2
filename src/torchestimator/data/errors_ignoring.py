"""`Dataset.ignore_errors`: drop the elements whose production raised an error.

An error raised by a per-element function (`map`, `filter`) drops that element
and the pass goes on: the functions of the `map`/`filter` stages right before
`ignore_errors` are applied here, one element at a time, each under its own
error guard (a parallel `map` among them runs sequentially). An error raised
by the input itself (a reader, a generator) ends the pass, since the input
cannot resume after it. With `log_warning=True` each ignored error is logged as
TF does ("Error raised with error message ...").
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from torchestimator.data.constants import UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.mapping import FilterDataset, MapDataset, as_bool_result, call_on
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.data.structure import make_packer

_log = logging.getLogger("torchestimator")


class IgnoreErrorsDataset(UnaryDataset):
    """The input without the elements whose production raised (`Dataset.ignore_errors`)."""

    def __init__(self, input_dataset: Dataset, log_warning: bool = False):
        super().__init__((input_dataset,))
        self._log_warning = log_warning

    def _open(self):
        return ElementStream(self._guarded())

    def _ignored(self, error: BaseException) -> None:
        if self._log_warning:
            _log.warning("Error raised with error message %s", error)

    def _guarded(self) -> Iterator[list]:
        stages, base = _element_stages(self._input)
        # made on first use: a stage's input spec is known once the stage before it has
        # produced an element (a map's spec comes from its first successful call)
        packers: list = [None] * len(stages)
        stream = iter_elements(base._open())
        while True:
            try:
                flat = next(stream)
            except StopIteration:
                return
            except Exception as e:  # noqa: BLE001 - TF ignores every error of its input
                self._ignored(e)
                return
            try:
                for i, stage in enumerate(stages):
                    pack = packers[i]
                    if pack is None:
                        pack = packers[i] = make_packer(stage._input.element_spec)
                    if isinstance(stage, MapDataset):
                        flat = stage._apply(pack(flat))
                    elif not as_bool_result(call_on(stage._fn, pack(flat)), "predicate"):
                        flat = None
                        break
            except Exception as e:  # noqa: BLE001 - the element is dropped, as in TF
                self._ignored(e)
                continue
            if flat is not None:
                yield flat

    def _compute_spec(self):
        try:
            return self._input.element_spec
        except Exception:  # noqa: BLE001 - the first element failed: find the first good one
            first = self._guarded()
            try:
                next(first, None)
            finally:
                first.close()
            return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return UNKNOWN_CARDINALITY  # TF 2.15: unknown, even for an infinite input

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None


def _element_stages(dataset: Dataset) -> tuple[list[Dataset], Dataset]:
    """The run of map/filter stages ending at `dataset` (first stage first) and their input."""
    stages: list[Dataset] = []
    while type(dataset) in (MapDataset, FilterDataset):
        stages.append(dataset)
        dataset = dataset._input
    stages.reverse()
    return stages, dataset
