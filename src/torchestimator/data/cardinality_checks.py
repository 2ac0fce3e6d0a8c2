"""`assert_cardinality`: a dataset that declares its number of elements and checks it."""

from __future__ import annotations

from collections.abc import Iterator

from torchestimator.data.constants import INFINITE_CARDINALITY
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.errors import FailedPreconditionError


class AssertCardinalityDataset(UnaryDataset):
    """The input, whose cardinality is `expected`; a pass with another count fails."""

    def __init__(self, input_dataset: Dataset, expected: int):
        super().__init__((input_dataset,))
        self._expected = expected

    def _open(self):
        return ElementStream(self._counted())

    def _counted(self) -> Iterator[list]:
        expected = self._expected
        n = 0
        for flat in iter_elements(self._input._open()):
            n += 1
            if expected != INFINITE_CARDINALITY and n > expected:
                raise FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {_count(expected)} but "
                    f"contained at least {_count(n)}.")
            yield flat
        if expected == INFINITE_CARDINALITY or n < expected:
            raise FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {_count(expected)} but "
                f"contained only {_count(n)}.")

    def _compute_spec(self):
        return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return self._expected

    def _shard_files(self, num_shards: int, index: int) -> Dataset | None:
        return None


def _count(n: int) -> str:
    if n == INFINITE_CARDINALITY:
        return "an infinite number of elements"
    return f"{n} element" + ("" if n == 1 else "s")
