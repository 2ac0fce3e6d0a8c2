"""What a training front (the Estimator, Keras `fit`) does differently under a strategy with
several replicas: one object, `DataParallel`, with the steps in the order they run.

1. `input_context()` / `shard(...)`: each worker reads its part of the input.
2. `broadcast_(tensors)`: every replica starts from the chief's weights.
3. `averaging_gradients()`: while it is open the optimizers average their gradients
   over the replicas, so the replicas stay bit-identical. It yields the run's `GradientSync`
   (`_engine/gradient_sync.py`), which the Estimator's loop passes to each `TrainOp.run`, and
   makes it the current one for the steps that apply gradients themselves (Keras `train_step`).
   The step's loss rides along (`carry_loss`): the hooks see its mean over the
   replicas (`reported_loss`), as TF reported the loss reduced across replicas.
4. `synced(batches)`: a step runs only when every replica has a batch (a replica
   whose input ended stops all of them at the same step, never leaves them waiting).
5. `sum_metric_state(metrics)`: evaluation's metric state (counts, totals, confusion
   matrices) summed over the replicas, exactly.
6. `barrier()`: the chief's last checkpoint is written before anyone reads it.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

from torchestimator._engine import gradient_sync
from torchestimator._engine.gradient_sync import GradientSync
from torchestimator.distribute import _collectives
from torchestimator.distribute._cluster import ClusterPosition
from torchestimator.distribute._input_context import InputContext
from torchestimator.distribute._keras_replicas import ReplicaData
from torchestimator.distribute._strategies import MultiWorkerMirroredStrategy, _leave_if_ps

_log = logging.getLogger("torchestimator")


def data_parallel(strategy: Any) -> DataParallel | None:
    """A `DataParallel` for `strategy` when it has more than one replica, else None."""
    if strategy is None:
        return None
    if not hasattr(strategy, "num_replicas_in_sync") or not hasattr(strategy, "_position"):
        raise TypeError(
            "train_distribute / eval_distribute must be a tf.distribute strategy (MirroredStrategy, "
            f"MultiWorkerMirroredStrategy, ...); received {strategy!r}."
        )
    if strategy.num_replicas_in_sync <= 1:
        return None
    make = getattr(strategy, "_data_parallel", None)  # a strategy with its own front steps (FSDPStrategy)
    return make() if make is not None else DataParallel(strategy)


_IMPLICIT: dict[str, Any] = {}


def implicit_strategy(config: Any) -> Any:
    """The strategy of a RunConfig without one whose TF_CONFIG cluster has `ps` tasks (TF's
    asynchronous parameter-server training): a MultiWorkerMirroredStrategy over the chief and
    workers, made once per process, with a one-line warning. None for any other config."""
    cluster = config.cluster_spec
    if not cluster or "ps" not in cluster.jobs or config.task_type not in ("chief", "master", "worker"):
        return None
    if "strategy" not in _IMPLICIT:
        _log.warning("TF_CONFIG has ps tasks: asynchronous parameter-server training runs as synchronous data "
                     "parallelism (MultiWorkerMirroredStrategy) on the chief and workers; ps tasks exit.")
        _IMPLICIT["strategy"] = MultiWorkerMirroredStrategy()
    return _IMPLICIT["strategy"]


def leave_if_ps_task(config: Any) -> None:
    """A `ps` task of a TF_CONFIG cluster logs that it is not needed and exits with status 0."""
    _leave_if_ps(ClusterPosition(task_type=config.task_type, task_id=config.task_id))


def takes_input_context(input_fn: Callable) -> bool:
    """Whether `input_fn` declares an `input_context` argument."""
    try:
        return "input_context" in inspect.signature(input_fn).parameters
    except (TypeError, ValueError):
        return False


class DataParallel:
    """The replicas of one strategy seen from this process (see the module docstring)."""

    shards_weights: bool = False
    """Whether the weights are sharded across the replicas (FSDP): Keras `fit` and
    `Estimator.train` then add the callbacks / hooks that gather them for checkpoints
    (`keras.engine._distribute_callbacks`, `estimator._fsdp`)."""

    def __init__(self, strategy: Any) -> None:
        self.strategy = strategy
        position = strategy._position
        self.rank = position.rank
        self.world = strategy.num_replicas_in_sync
        self.is_chief = position.rank == 0
        self.task_type = position.task_type or ("chief" if self.is_chief else "worker")
        self.task_id = position.task_id if position.task_id is not None else position.rank
        self._next_flag: float | None = None  # this replica has a next batch (1.0) or not, to send
        self._peers_have_next: bool | None = None  # every replica has one (None: not exchanged)
        self._on_last: Callable[[], None] | None = None  # told when a step is known to be the last
        self._loss: Any = None  # this step's loss (`carry_loss`)
        self._loss_pending: Any = None  # ... until an all-reduce carried it
        self._reported: torch.Tensor | None = None  # its mean over the replicas

    # 1. input -----------------------------------------------------------------------------------

    def input_context(self) -> InputContext:
        """The `InputContext` of this worker (one input pipeline per worker)."""
        return InputContext(self.world, self.rank, self.world)

    def shard(self, batches: Iterable) -> Iterable:
        """This worker's part of `batches` (what an input_fn without `input_context` returned):
        a Dataset is split with `Dataset.shard` (by file when it reads at least as many files as
        there are workers, else element-wise); other iterables by element."""
        shard = getattr(batches, "shard", None)
        if callable(shard) and hasattr(type(batches), "element_spec"):  # asked of the type: the
            # property may run a map function, whose own AttributeError hasattr would swallow
            return shard(self.world, self.rank)
        if isinstance(batches, (list, tuple)) and len(batches) == 1:
            _log.warning("input_fn returned one batch of tensors: every worker trains on it (shard it with "
                         "an input_context argument).")
            return batches
        return _every_nth(batches, self.world, self.rank)

    # 2. initial weights ---------------------------------------------------------------------

    def broadcast_(self, tensors: list[torch.Tensor]) -> None:
        """Overwrites `tensors` with the chief's values."""
        _collectives.broadcast_(tensors, 0)

    def broadcast_object(self, value: Any) -> Any:
        """The chief's `value` (a small Python value)."""
        return _collectives.broadcast_object(value, 0)

    # 3. gradients -------------------------------------------------------------------------------

    def sync(self) -> GradientSync:
        """The `GradientSync` of this run's training steps: gradients averaged over the replicas."""
        return GradientSync(reduce=self._average)

    @contextlib.contextmanager
    def averaging_gradients(self) -> Iterator[GradientSync]:
        """While open, every optimizer update uses the gradients averaged over the replicas.

        Yields `sync()`'s object, for the training loop to pass to its train ops
        (`TrainOp.run(cache, sync)`), and makes it the current one of this thread
        (`gradient_sync.using`) for code that applies gradients itself (Keras `train_step`).
        The first gradient all-reduce of a step also carries whether each replica has a next
        batch (see `synced`), so a step costs one collective, not two."""
        with gradient_sync.using(self.sync()) as sync:
            yield sync

    def _average(self, grads: list[torch.Tensor], variables: list[torch.Tensor] | None = None) -> list[torch.Tensor]:
        flag = self._next_flag
        if flag is None or not grads or not grads[0].is_floating_point():
            return _collectives.average_gradients(grads)
        self._next_flag = None
        extra: list = [flag]
        loss = self._loss_pending
        if loss is not None and grads[0].dtype in (torch.float32, torch.float64):
            extra.append(loss)  # float16/bfloat16 gradients: the loss goes in `finish_step`'s all-reduce
            self._loss_pending = None
        averaged = _collectives.average_gradients(grads, extra)
        self._settle(extra)
        return averaged

    def carry_loss(self, loss: Any) -> None:
        """Gives this step's loss (a scalar tensor) to the step's gradient all-reduce: the hooks
        then read the mean over the replicas (`reported_loss`) without a collective of its own,
        and every replica sees the same value (a NaN on one replica is a NaN on all)."""
        self._loss = self._loss_pending = loss if isinstance(loss, torch.Tensor) and loss.numel() == 1 else None
        self._reported = None

    def finish_step(self) -> None:
        """Ends a training step: what no gradient all-reduce carried (the next-batch flag and
        the loss of a step whose train op reduced no gradient) goes in one small all-reduce."""
        flag, loss = self._next_flag, self._loss_pending
        if flag is None and loss is None:
            return
        values = ([] if flag is None else [flag]) + ([] if loss is None else [loss])
        device = loss.device if loss is not None else None
        sums = _collectives.sum_values(values, device)
        if flag is None:
            sums.insert(0, None)
        self._next_flag = self._loss_pending = None
        self._settle(sums)

    def _settle(self, sums: list) -> None:
        """Takes what the all-reduce of `[next-batch flag, loss?]` summed."""
        if sums[0] is not None:
            self._peers_have_next = round(sums[0]) == self.world
            if not self._peers_have_next and self._on_last is not None:
                self._on_last()  # this step is the last one (a replica's input ended)
        if len(sums) > 1 and self._loss is not None:
            self._reported = torch.tensor(sums[1] / self.world, dtype=self._loss.dtype)

    def reported_loss(self, loss: Any) -> Any:
        """What hooks see of `loss`: when it is this step's loss, its mean over the replicas (a
        CPU tensor, as TF reports the per-replica mean loss reduced across replicas); else `loss`."""
        if loss is not None and loss is self._loss and self._reported is not None:
            return self._reported
        return loss

    # 4. steps -----------------------------------------------------------------------------------

    def synced(self, batches: Iterable, on_last: Callable[[], None] | None = None) -> Iterator:
        """The batches of `batches` while every replica has one.

        Reads one batch ahead: while a step runs, whether this replica has a next batch rides
        along the step's gradient all-reduce (`averaging_gradients`); a step that reduced no
        gradient settles it with one tiny all-reduce of its own (`finish_step`, or here after
        the step). `on_last()` is called during the last step, once it is known to be the last
        (so a checkpoint saved after it records that the input was used up)."""
        iterator = iter(batches)
        batch = next(iterator, _END)
        agreed = _collectives.all_agree(batch is not _END)
        self._on_last = on_last
        try:
            while agreed:
                ahead = next(iterator, _END)
                self._next_flag, self._peers_have_next = float(ahead is not _END), None
                yield batch
                if self._peers_have_next is None:  # no gradient all-reduce carried the flag
                    self._next_flag = None
                    agreed = _collectives.all_agree(ahead is not _END)
                else:
                    agreed = self._peers_have_next
                batch = ahead
        finally:
            self._next_flag = self._peers_have_next = self._on_last = None
        if batch is not _END:
            _log.info("Replica %d stops: another replica's input ended (the replicas make the same number "
                      "of steps).", self.rank)

    # 5. evaluation --------------------------------------------------------------------------

    def sum_metric_state(self, metrics: list) -> None:
        """Replaces each metric's state variables with their sums over the replicas."""
        for metric in metrics:
            metric.result()  # a metric may hold part of its state on the host until read
        variables = [v for metric in metrics for v in metric.variables]
        if not variables:
            return
        sums = _collectives.sum_([torch.as_tensor(v).detach() for v in variables])
        for variable, value in zip(variables, sums):
            variable.assign(value)

    def sum_(self, values: list[torch.Tensor]) -> list[torch.Tensor]:
        """`values` summed over the replicas."""
        return _collectives.sum_(values)

    # Keras ----------------------------------------------------------------------------------

    def replica_data(self, data: Any, synced: bool) -> Any:
        """This replica's part of every global batch of Keras' `data` (`synced`: a step runs
        only when every replica has a batch, for training)."""
        return ReplicaData(data, self, synced)

    def broadcast_module_(self, module: torch.nn.Module) -> None:
        """Gives every replica the chief's weights and buffers of `module`."""
        state = module.state_dict(keep_vars=True)
        self.broadcast_([state[k] for k in sorted(state) if isinstance(state[k], torch.Tensor)])

    # 6. ---------------------------------------------------------------------------------------

    def barrier(self) -> None:
        """Waits for every replica."""
        _collectives.barrier()


_END = object()


def _every_nth(batches: Iterable, n: int, index: int) -> Iterator:
    for position, batch in enumerate(batches):
        if position % n == index:
            yield batch
