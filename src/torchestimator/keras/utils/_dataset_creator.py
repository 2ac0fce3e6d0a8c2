"""`tf.keras.utils.experimental.DatasetCreator`: a callable that builds the input dataset."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchestimator.distribute._input_context import InputOptions


class DatasetCreator:
    """Object that returns a `tf.data.Dataset` upon invoking.

    `DatasetCreator` wraps a function that takes an optional `tf.distribute.InputContext`
    and returns a `tf.data.Dataset`, so that each worker builds its own input pipeline.

    Args:
        dataset_fn: a callable that takes a single argument of type
            `tf.distribute.InputContext` (used for batch size calculation and cross-worker
            input pipeline sharding) and returns a `tf.data.Dataset`.
        input_options: optional `tf.distribute.InputOptions`, used for specific options when
            used with distribution.
    """

    def __init__(self, dataset_fn: Callable[..., Any], input_options: Any = None) -> None:
        if not callable(dataset_fn):
            raise TypeError(
                f"`dataset_fn` for `DatasetCreator` must be a `callable`. Received: {dataset_fn}"
            )
        if input_options and not isinstance(input_options, InputOptions):
            raise TypeError(
                "`input_options` for `DatasetCreator` must be a `tf.distribute.InputOptions`. "
                f"Received: {input_options}"
            )
        self.dataset_fn = dataset_fn
        self.input_options = input_options

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls `dataset_fn` and returns its `tf.data.Dataset` (TypeError for anything else)."""
        from torchestimator.data.dataset import (  # lazy: heavy (torchestimator.data.dataset, 100 ms)
            Dataset,
        )

        dataset = self.dataset_fn(*args, **kwargs)
        if not isinstance(dataset, Dataset):
            raise TypeError(
                "The `callable` provided to `DatasetCreator` must return a Dataset. It returns "
                f'"{dataset}"'
            )
        return dataset
