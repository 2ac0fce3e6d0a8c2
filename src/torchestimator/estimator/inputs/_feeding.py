"""What numpy_input_fn and pandas_input_fn share: TF's argument checks and the Dataset that
stands in for TF1's feeding queue."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from torchestimator import data


def check_shuffle(shuffle: Any) -> None:
    """TF's check: `shuffle` must be given, as a bool."""
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean "
                         "(it is recommended to set it as True for training); "
                         f"got {shuffle}")


def check_sizes(batch_size: Any, num_epochs: Any, queue_capacity: Any, num_threads: Any) -> None:
    """Raises ValueError naming the first of `batch_size`, `num_epochs` (None or >= 1),
    `queue_capacity`, `num_threads` that is not a positive integer."""
    for arg, value, optional in (("batch_size", batch_size, False), ("num_epochs", num_epochs, True),
                                 ("queue_capacity", queue_capacity, True),
                                 ("num_threads", num_threads, False)):
        if value is None and optional:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{arg} must be a positive integer{' or None' if optional else ''}; "
                             f"got {value!r}")


def make_dataset(columns: OrderedDict, batch_size: int, num_epochs: int | None, shuffle: bool,
                 queue_capacity: int | None) -> Any:
    """A Dataset of batches of the dict of equal-length `columns`, read as TF1's feeding queue
    reads them: rows in order, epoch after epoch without a break at the epoch boundary (a
    batch may end one epoch and start the next), `num_epochs` times (None: forever), in
    batches of `batch_size` of which only the very last may be smaller. With `shuffle`, rows
    go through a shuffle buffer of `queue_capacity` rows, as TF's RandomShuffleQueue."""

    dataset = data.Dataset.from_tensor_slices(dict(columns))
    dataset = dataset.repeat(num_epochs) if num_epochs is not None else dataset.repeat()
    if shuffle:
        n = len(next(iter(columns.values())))
        buffer = max(1, min(queue_capacity or n, n * (num_epochs or 1)))
        dataset = dataset.shuffle(buffer, reshuffle_each_iteration=True)
    return dataset.batch(batch_size, drop_remainder=False)
