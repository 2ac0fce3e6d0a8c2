"""Small pieces of the Estimator's runtime: the train op check, seeding, the device of the
batches, iterator cleanup, and the train log line (checkpoint metadata: `_engine.checkpoint`)."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._engine import loop
from torchestimator._engine.train_op import TrainOp
from torchestimator._variable import Variable
from torchestimator.estimator._model_state import rng_state, set_rng_state


def check_train_op(train_op: Any) -> TrainOp:
    """Returns `train_op` as a TrainOp: what `optimizer.minimize(loss)` or
    `optimizer.apply_gradients(...)` returned in model_fn, `tf.group` of such ops, or a
    variable (what `assign*` returned, e.g. `global_step.assign_add(1)`: nothing more to run).
    Raises ValueError naming anything else (a loss tensor given as train_op trains nothing)."""
    if isinstance(train_op, TrainOp):
        return train_op
    if isinstance(train_op, Variable):
        return _ALREADY_RUN
    raise ValueError(
        "EstimatorSpec.train_op must be what optimizer.minimize(loss) or "
        "optimizer.apply_gradients(grads_and_vars) returned inside model_fn (or tf.group of such "
        f"ops); received {train_op!r:.200}"
    )


class _AlreadyRun(TrainOp):
    """The train op of a variable `assign*` returned: nothing left to run."""

    def __init__(self) -> None:
        super().__init__([])

    def run(self, resolved_vars: dict | None = None) -> None:
        """Does nothing."""


_ALREADY_RUN = _AlreadyRun()


def transfer_device(batch: Any, device: torch.device) -> torch.device | None:
    """`device`, or None when batches like `batch` need no moving: the device is the CPU and
    the batch holds only CPU tensors (what tf.data yields), so the loop skips the walk (unless
    the CPU stands in for an accelerator's copies: `loop.TWIN_HOST_TENSORS_ON_CPU`)."""
    if device.type != "cpu" or loop.TWIN_HOST_TENSORS_ON_CPU:
        return device

    def on_cpu(value: Any) -> bool:
        if isinstance(value, torch.Tensor):
            return value.device.type == "cpu"
        if isinstance(value, dict):
            return all(on_cpu(v) for v in value.values())
        if isinstance(value, (list, tuple)):
            return all(on_cpu(v) for v in value)
        return value is None or (isinstance(value, np.ndarray) and value.dtype.kind in "OUS")

    return None if on_cpu(batch) else device


def chain_batches(first: Any, rest: Iterator) -> Iterator:
    """Yields `first`, then the batches of `rest`."""
    yield first
    yield from rest


def loss_step_formatter() -> Callable[[dict], str]:
    """TF's train log line: `loss = 0.42, step = 100 (0.31 sec)`."""
    last = [None]

    def fmt(values: dict) -> str:
        now = time.time()
        line = f"loss = {float(values['loss']):g}, step = {int(values['step'])}"
        if last[0] is not None:
            line += f" ({now - last[0]:.3f} sec)"
        last[0] = now
        return line

    return fmt


def close_iterator(iterator: Any) -> None:
    """Stops an input iterator's background threads (tf.data prefetch) now."""
    close = getattr(iterator, "close", None)
    if close is not None:
        close()


@contextlib.contextmanager
def seeded_rng(seed: int | None) -> Iterator[None]:
    """Seeds the random generators with `seed` (TF's graph-level seed) for evaluate/predict,
    and gives the caller's random states back afterwards, so an evaluation in the middle of
    training (a saving listener) leaves the training run's randomness untouched."""
    if seed is None:
        yield
        return
    tensors, meta = rng_state()
    seed_everything(seed)
    try:
        yield
    finally:
        set_rng_state(tensors, meta)


def seed_everything(seed: int) -> None:
    """Seeds Python's, numpy's and torch's global generators (what tf_random_seed does)."""
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
