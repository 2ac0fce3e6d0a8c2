"""Calling an `input_fn` and reading what it returns: a Dataset of `(features, labels)` (or of
features, for predict), or a `(features, labels)` tuple of tensors/arrays."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._engine.device_scope import on_host
from torchestimator._engine.loop import iter_on_host
from torchestimator.estimator.mode_keys import ModeKeys

logger = logging.getLogger("torchestimator")

_INPUT_FN_ARGS = {"mode", "params", "config", "input_context"}


def call_input_fn(input_fn: Callable, mode: str, params: dict, config: Any,
                  input_context: Any = None) -> Iterable:
    """Calls `input_fn` with the arguments it declares, in a host scope (TF places an
    `input_fn`'s ops on the CPU: `device_scope.on_host`); returns an iterable of batches."""
    if not callable(input_fn):
        raise TypeError(f"input_fn must be callable; received {input_fn!r}")
    try:
        names = set(inspect.signature(input_fn).parameters)
    except (TypeError, ValueError):
        names = set()
    kwargs: dict[str, Any] = {}
    if "mode" in names:
        kwargs["mode"] = mode
    if "params" in names:
        kwargs["params"] = params
    if "config" in names:
        kwargs["config"] = config
    if "input_context" in names:
        kwargs["input_context"] = input_context
    with on_host():
        result = input_fn(**kwargs)
    return as_batches(result, mode)


def _is_dataset(value: Any) -> bool:
    """Whether `value` is a Dataset, asked of its type: `element_spec` is a property that may
    run a `map` function, and `hasattr` on the instance would swallow (as "not a dataset") an
    AttributeError raised inside that function."""
    kind = type(value)
    return hasattr(kind, "element_spec") and hasattr(kind, "cardinality")


def as_batches(result: Any, mode: str) -> Iterable:
    """Turns input_fn's return value into an iterable of batches."""
    if _is_dataset(result) or isinstance(result, Iterator):
        return result
    if isinstance(result, torch.utils.data.DataLoader):
        return result
    if isinstance(result, (tuple, list)) and len(result) in (1, 2) or isinstance(
        result, (dict, torch.Tensor, np.ndarray)
    ):
        batch = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if mode == ModeKeys.TRAIN:
            return _Repeat(batch)
        return [batch]
    raise ValueError(
        "input_fn must return a tf.data.Dataset of (features, labels), a (features, labels) "
        f"tuple, or features; it returned {type(result).__name__}: {result!r:.200}"
    )


def batches_from(make_batches: Callable[[], Iterable], position: int) -> tuple[Any, Iterator]:
    """The batch at input position `position` of the batches `make_batches()` returns, and the
    iterator of the ones after it (`(None, iterator)` when there is none).

    A position resumes a train() that was interrupted in the middle of its input. When
    no batch is left there, the train() that saved it had used its input up (its last
    step was a checkpoint step): the input is read afresh from its start, as TF's train()
    always does. A Dataset of known cardinality is not read to find that out.
    """
    batches = make_batches()
    if position and _is_dataset(batches):
        known = int(batches.cardinality())
        if 0 <= known <= position:
            logger.info("The input of the last train() was used up at its last checkpoint: reading "
                        "input_fn from its start.")
            position = 0
    iterator = iter_on_host(batches)
    if position:
        logger.info("Resuming the input of an interrupted train() after %d batches.", position)
        for _ in range(position):
            if next(iterator, None) is None:
                break
    first = next(iterator, None)
    if first is None and position:
        logger.info("The input of the last train() was used up at its last checkpoint: reading "
                    "input_fn from its start.")
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
        iterator = iter_on_host(make_batches())
        first = next(iterator, None)
    return first, iterator


class _Repeat:
    """The same batch on every step (a TF input_fn returning constant tensors)."""

    def __init__(self, batch: tuple):
        self.batch = batch

    def __iter__(self) -> Iterator:
        while True:
            yield self.batch


def split_batch(batch: Any, mode: str) -> tuple[Any, Any]:
    """Returns `(features, labels)` of one batch; labels are None in PREDICT mode or when absent."""
    if isinstance(batch, (tuple, list)) and not hasattr(batch, "_fields"):
        if len(batch) == 2:
            features, labels = batch
        elif len(batch) == 1:
            features, labels = batch[0], None
        else:
            raise ValueError(
                "input_fn must yield (features, labels) or features; an element had "
                f"{len(batch)} parts."
            )
    else:
        features, labels = batch, None
    if not isinstance(features, (dict, torch.Tensor, np.ndarray)):
        raise ValueError(
            "features must be a tensor or a dict of tensors (from input_fn); received "
            f"{type(features).__name__}"
        )
    if mode == ModeKeys.PREDICT:
        labels = None
    return features, labels
