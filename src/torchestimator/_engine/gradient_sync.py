"""`GradientSync`: how a data-parallel run turns one replica's gradients into the update.

A `GradientSync` object holds what a distribution strategy changes in an optimizer update:

* `reduce(gradients, variables)`: the gradients averaged over the replicas (identity alone);
* `shards_of(variables)`: under `FSDPStrategy`, the FSDP shards standing for the model's full
  variables (a train op back-propagates into FSDP's gathered weights and its optimizers update
  the shards); identity otherwise.

`NONE`, the default, does neither. There is no module-level mutable state: the object is
passed down, or found in a scoped context.

Passed explicitly (the caller knows the strategy):

* the Estimator's training loop: `parallel.averaging_gradients()` (`distribute/_data_parallel.py`,
  `_fsdp.py`) yields the strategy's object and each step calls `TrainOp.run(cache, sync)`;
* `TrainOp.run` hands it to each Keras optimizer's update (`Optimizer._synced_step(sync)`),
  and uses `sync.shards_of` for the variables it back-propagates into.

Found in a scoped context (`current()`): code that calls `optimizer.apply_gradients` or
`optimizer.step()` itself, inside `strategy.run(fn)` (TF's custom training loop) or inside a
Keras `train_step` that `fit` runs under a strategy (user code may override it). TF finds the
strategy the same way there: `apply_gradients` asks `tf.distribute.get_replica_context()`, a
per-thread context the strategy enters around `run` (`_strategy.py`) and around `fit`'s steps.
Here the context is a `contextvars.ContextVar` holding the current `GradientSync`, entered with
`using(sync)` by `Strategy.run` and `DataParallel.averaging_gradients`; each thread (and each
asyncio task) sees its own, and leaving the block restores the previous one. Outside every
such block it is `NONE`, so a single-process step costs one `ContextVar.get` and one attribute
read.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

import torch

Reducer = Callable[[list[torch.Tensor], list[torch.Tensor]], list[torch.Tensor]]
ShardMap = Callable[[list[torch.Tensor]], list[torch.Tensor]]


class GradientSync:
    """The gradient reduction (and, under FSDP, the variable sharding) of one training run.

    `reduce`: `(gradients, variables) -> gradients averaged over the replicas`, or None for
    none. `shards_of`: `variables -> the FSDP shards standing for them`, or None for none.
    `reduces` and `shards` say whether each is present (what the step's hot path reads).
    Immutable: a strategy makes a new one rather than changing one in use.
    """

    __slots__ = ("_reduce", "_shards_of", "reduces", "shards")

    def __init__(self, reduce: Reducer | None = None, shards_of: ShardMap | None = None) -> None:
        if reduce is not None and not callable(reduce):
            raise TypeError(f"GradientSync(reduce=...) must be callable(gradients, variables) or None; "
                            f"received {reduce!r}.")
        if shards_of is not None and not callable(shards_of):
            raise TypeError(f"GradientSync(shards_of=...) must be callable(variables) or None; "
                            f"received {shards_of!r}.")
        setattr_ = object.__setattr__
        setattr_(self, "_reduce", reduce)
        setattr_(self, "_shards_of", shards_of)
        setattr_(self, "reduces", reduce is not None)
        setattr_(self, "shards", shards_of is not None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GradientSync is immutable (cannot set {name!r}); make a new one.")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"GradientSync is immutable (cannot delete {name!r}).")

    def reduce(self, gradients: list[torch.Tensor], variables: list[torch.Tensor]) -> list[torch.Tensor]:
        """Returns `gradients` (one per variable of `variables`) averaged over the replicas;
        `gradients` unchanged without a reduction."""
        reduce = self._reduce
        return gradients if reduce is None else reduce(gradients, variables)

    def shards_of(self, variables: list[torch.Tensor]) -> list[torch.Tensor]:
        """Returns the FSDP shards standing for `variables` (the others as they are); `variables`
        unchanged without sharding."""
        shards_of = self._shards_of
        return variables if shards_of is None else shards_of(variables)

    def __repr__(self) -> str:
        if self is NONE:
            return "GradientSync.NONE"
        return f"GradientSync(reduce={self._reduce!r}, shards_of={self._shards_of!r})"


NONE = GradientSync()
"""The sync of a single-replica run: no reduction, no sharding."""

_CURRENT: contextvars.ContextVar[GradientSync] = contextvars.ContextVar("torchestimator_gradient_sync",
                                                                       default=NONE)
current = _CURRENT.get
"""`current()`: the `GradientSync` of the innermost open `using(...)` block of this thread /
task (a strategy's `run` or training steps), else `NONE`."""


@contextlib.contextmanager
def using(sync: GradientSync) -> Iterator[GradientSync]:
    """Makes `sync` the current `GradientSync` (`current()`) of this thread / task while open
    (what a strategy enters around its replica computation); yields it."""
    if not isinstance(sync, GradientSync):
        raise TypeError(f"gradient_sync.using() takes a GradientSync; received {sync!r}.")
    token = _CURRENT.set(sync)
    try:
        yield sync
    finally:
        _CURRENT.reset(token)
