"""`Strategy`: the base of the distribution strategies, the strategy scope and replica contexts.

Every strategy here runs **one replica per process** (the PyTorch way: DDP,
torchrun): `num_replicas_in_sync` is the number of training processes, a
replica's values are plain tensors, and the cross-replica operations
(`reduce`, `gather`, the gradient average of `run` and of training) are
`torch.distributed` collectives over the default process group. With one
process every strategy is a single replica and no collective runs.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch
import torch.distributed as dist

from torchestimator import _variable
from torchestimator._engine import gradient_sync
from torchestimator._engine.gradient_sync import GradientSync
from torchestimator._engine.loop import default_device
from torchestimator.distribute import _collectives
from torchestimator.distribute import _cross_device_ops as _cross_device_ops_module
from torchestimator.distribute._cluster import ClusterPosition
from torchestimator.distribute._distributed_dataset import (
    DistributedDataset,
    DistributedDatasetsFromFunction,
)
from torchestimator.distribute._input_context import InputContext
from torchestimator.distribute._reduce_op import ReduceOp

_STATE = threading.local()


def _stack() -> list:
    stack = getattr(_STATE, "stack", None)
    if stack is None:
        stack = _STATE.stack = []
    return stack


def torch_device(name: Any) -> torch.device:
    """A torch device from a TF device string ('/gpu:0', '/job:worker/device:CPU:0', 'GPU:1') or a
    torch one ('cuda:0', 'cpu')."""
    if isinstance(name, torch.device):
        return name
    text = str(name).strip().lower()
    last = text.rsplit("/", 1)[-1].replace("device:", "")
    kind, _, index = last.partition(":")
    if kind in ("gpu", "cuda"):
        return torch.device("cuda", int(index) if index.isdigit() else 0)
    if kind == "cpu":
        return torch.device("cpu")
    try:
        return torch.device(text)
    except RuntimeError:
        raise ValueError(f"Unknown device {name!r}: expected e.g. '/cpu:0', '/gpu:0', 'cuda:1'.") from None


class ReplicaContext:
    """The context of one replica inside `strategy.run` (`tf.distribute.ReplicaContext`)."""

    def __init__(self, strategy: Strategy, replica_id_in_sync_group: int) -> None:
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self) -> Strategy:
        """The strategy this replica runs under."""
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas in sync."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        """This replica's index, 0 to `num_replicas_in_sync - 1`."""
        return self._replica_id

    def all_reduce(self, reduce_op: ReduceOp | str, value: Any, options: Any = None) -> Any:
        """`value` reduced over the replicas with `reduce_op` (SUM or MEAN), on every replica."""
        return self._strategy._all_reduce(_reduce_op(reduce_op), value)

    def all_gather(self, value: Any, axis: int, options: Any = None) -> torch.Tensor:
        """The replicas' `value`s concatenated along `axis`, on every replica."""
        return _collectives.all_gather(torch.as_tensor(value), axis)

    def merge_call(self, merge_fn: Callable, args: tuple = (), kwargs: dict | None = None) -> Any:
        """Calls `merge_fn(strategy, *args, **kwargs)` in the cross-replica context, as TF's (one
        replica per process: there is nothing to merge), so that it may call
        `strategy.extended.reduce_to`, `batch_reduce_to` and `update`."""
        with _cross_replica():
            return merge_fn(self._strategy, *args, **(kwargs or {}))


@contextlib.contextmanager
def _cross_replica() -> Iterator[None]:
    """Leaves the replica context of `strategy.run` for the block (TF's merge_call)."""
    previous = getattr(_STATE, "replica", None)
    _STATE.replica = None
    try:
        yield
    finally:
        _STATE.replica = previous


#: The strategy whose scope each variable was created in (`variable_created_in_scope`), by the
#: variable's id: (a weak reference to the variable, the strategy). Variables created outside
#: every scope belong to the default strategy, as TF's.
_OWNERS: dict[int, tuple[weakref.ref, Strategy]] = {}


def _record_owner(variable: Any, strategy: Strategy) -> None:
    key = id(variable)
    try:
        ref = weakref.ref(variable, lambda _ref, key=key: _OWNERS.pop(key, None))
    except TypeError:  # not weak-referenceable: not a variable
        return
    _OWNERS[key] = (ref, strategy)


def _owner(variable: Any) -> Strategy:
    entry = _OWNERS.get(id(variable))
    if entry is not None and entry[0]() is variable:
        return entry[1]
    return _DEFAULT


def _variable_creator(strategy: Strategy) -> Callable[..., Any]:
    """The `tf.variable_creator_scope` creator a strategy's scope installs: it records the
    strategy as the owner of each `tf.Variable` made in this thread inside the scope."""

    def creator(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        variable = next_creator(**kwargs)
        stack = _stack()
        if stack and stack[-1] is strategy:
            _record_owner(variable, strategy)
        return variable

    return creator


def _local_value(value: Any, what: str) -> Any:
    """This replica's value of a `DistributedValues` (one per process here); other values as
    they are."""
    values = getattr(value, "values", None)
    if values is None or not hasattr(value, "_get"):
        return value
    if len(values) != 1:
        raise ValueError(f"{what}: a DistributedValues with {len(values)} values; here each process is one "
                         "replica, whose value is the only one.")
    return values[0]


def _unwrap(structure: Any, what: str) -> Any:
    if isinstance(structure, dict):
        return type(structure)((k, _unwrap(v, what)) for k, v in structure.items())
    if isinstance(structure, (list, tuple)) and not hasattr(structure, "_fields"):
        return type(structure)(_unwrap(v, what) for v in structure)
    return _local_value(structure, what)


def _per_replica_results(result: Any) -> Any:
    """TF's `update(..., group=False)` result: each leaf as the tuple of its replicas' values."""
    if isinstance(result, dict):
        return type(result)((k, _per_replica_results(v)) for k, v in result.items())
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return type(result)(*(_per_replica_results(v) for v in result))
    if isinstance(result, (list, tuple)):
        return type(result)(_per_replica_results(v) for v in result)
    return (result,)


def _reduce_op_named(value: ReduceOp | str) -> ReduceOp:
    """TF's reduce_op argument of `reduce_to`: a ReduceOp or its name (ValueError otherwise)."""
    if isinstance(value, str):
        try:
            return ReduceOp(value.upper())
        except ValueError:
            raise ValueError(f"{value!r} is not a valid ReduceOp") from None
    return _reduce_op(value)


def _cross_device_ops() -> Any:
    return _cross_device_ops_module.CrossDeviceOps()  # a module object: the two import each other


def _reduce_op(value: ReduceOp | str) -> ReduceOp:
    if isinstance(value, ReduceOp):
        return value
    try:
        return ReduceOp(str(value).upper())
    except ValueError:
        raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or MEAN; received {value!r}.") from None


def _as_tensor(value: Any) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach()
    return torch.as_tensor(np.asarray(value))


class StrategyExtended:
    """`strategy.extended`: the details of where the replicas run."""

    def __init__(self, container_strategy: Strategy) -> None:
        self._strategy = container_strategy

    @property
    def worker_devices(self) -> tuple[str, ...]:
        """The devices of this worker's replicas (one here)."""
        return (str(self._strategy._device),)

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        """The devices holding the variables (each replica holds a full copy)."""
        return self.worker_devices

    @property
    def should_checkpoint(self) -> bool:
        """Whether this worker writes checkpoints (the chief)."""
        return self._strategy._position.is_chief

    @property
    def should_save_summary(self) -> bool:
        """Whether this worker writes summaries (the chief)."""
        return self._strategy._position.is_chief

    def _in_multi_worker_mode(self) -> bool:
        return self._strategy.num_replicas_in_sync > 1

    # -- cross-replica reductions and updates (TF's StrategyExtendedV2) ----------------------------

    def _require_cross_replica(self) -> None:
        if getattr(_STATE, "replica", None) is not None:
            raise RuntimeError("Method requires being in cross-replica context, use "
                               "get_replica_context().merge_call()")

    def reduce_to(self, reduce_op: ReduceOp | str, value: Any, destinations: Any, options: Any = None) -> Any:
        """Combines `value` (this replica's tensor, or a `DistributedValues`) over the replicas
        with `reduce_op` (SUM or MEAN, or their names) and returns the result on the device of
        `destinations` (a device string, a variable, a tensor or a `DistributedValues`). One
        replica alone gets its value unchanged, as TF's. Only in a cross-replica context
        (outside `strategy.run`, or in `merge_call`): RuntimeError otherwise, as TF's."""
        self._require_cross_replica()
        if isinstance(destinations, (list, tuple)):
            raise AssertionError(f"reduce_to: destinations must be one destination (a device string, a variable, "
                                 f"a tensor), not a {type(destinations).__name__}.")
        op = _reduce_op_named(reduce_op)
        return _cross_device_ops().reduce(op, value, destinations, options)

    def batch_reduce_to(self, reduce_op: ReduceOp | str, value_destination_pairs: Any,
                        options: Any = None) -> list:
        """`reduce_to` of each `(value, destinations)` pair, as one bucketed collective over the
        processes; returns the reduced values in order. Cross-replica context only."""
        self._require_cross_replica()
        op = _reduce_op_named(reduce_op)
        pairs = list(value_destination_pairs)
        if _collectives.world_size() <= 1:  # TF's default: one reduce_to per pair
            for pair in pairs:
                if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                    raise ValueError("value_destination_pairs must be a list of (value, destinations) pairs; "
                                     f"got {pair!r}.")
            return [self.reduce_to(op, value, destinations, options) for value, destinations in pairs]
        return _cross_device_ops().batch_reduce(op, pairs, options)

    def update(self, var: Any, fn: Callable, args: tuple = (), kwargs: dict | None = None,
               group: bool = True) -> Any:
        """Runs `fn(var, *args, **kwargs)` in this strategy's scope, as TF's: each process holds
        its replica's copy of `var`, so `fn` updates it once; `DistributedValues` in `args` and
        `kwargs` give this replica's value. Returns `fn`'s result, or with `group=False` each of
        its leaves as a tuple of the replicas' values (one here). Inside `strategy.run` it runs
        in the cross-replica context, as TF's `merge_call`."""
        if not callable(fn):
            raise TypeError(f"update: fn must be callable; received {fn!r}.")
        args = _unwrap(tuple(args), "update")
        kwargs = _unwrap(dict(kwargs or {}), "update")
        strategy = self._strategy  # the default strategy has no scope to enter
        scope = contextlib.nullcontext() if isinstance(strategy, _DefaultStrategy) else strategy.scope()
        with _cross_replica(), scope:
            result = fn(var, *args, **kwargs)
        return result if group else _per_replica_results(result)

    def value_container(self, value: Any) -> Any:
        """The container `value` belongs to: here `value` itself (one replica per process, so a
        value returned by `run` or a variable created in `scope()` is its own container, and
        `value in strategy.experimental_local_results(value_container(value))`)."""
        return value

    def variable_created_in_scope(self, v: Any) -> bool:
        """True if `v` was created while this strategy's scope was active (a `tf.Variable(...)`
        made inside `with strategy.scope():`); variables made outside every scope belong to
        the default strategy, as TF's."""
        return _owner(v) is self._strategy


class Strategy:
    """A state & compute distribution policy on a list of devices (`tf.distribute.Strategy`).

    Use `with strategy.scope():` around the creation and `compile` of a Keras model,
    or pass the strategy to `RunConfig(train_distribute=...)`. One process is one
    replica; the replicas' gradients are averaged (DistributedDataParallel's algorithm)
    so that every replica applies the same update.
    """

    def __init__(self, position: ClusterPosition | None = None, device: Any = None,
                 backend: str | None = None, cluster_resolver: Any = None) -> None:
        self._position = position or ClusterPosition()
        self._device = torch_device(device) if device is not None else _default_device(self._position)
        self._backend = backend
        self._cluster_resolver = cluster_resolver
        self._extended = StrategyExtended(self)

    # -- properties ----------------------------------------------------------------------------

    @property
    def num_replicas_in_sync(self) -> int:
        """Returns number of replicas over which gradients are aggregated."""
        return self._position.world_size if self._position.rank >= 0 else 1

    @property
    def extended(self) -> StrategyExtended:
        """The `StrategyExtended` of this strategy (devices, chief-only writing)."""
        return self._extended

    @property
    def cluster_resolver(self) -> Any:
        """The cluster resolver this strategy was made from, or None."""
        return self._cluster_resolver

    # -- scope ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def scope(self) -> Iterator[Strategy]:
        """Context manager making this strategy current (`tf.distribute.get_strategy()`):
        Keras models compiled inside train data-parallel under it."""
        stack = _stack()
        if stack and stack[-1] is not self:
            raise ValueError(
                "Mixing different tf.distribute.Strategy objects: a scope of "
                f"{type(stack[-1]).__name__} is already open; leave it before entering {type(self).__name__}'s."
            )
        stack.append(self)
        creator = _variable_creator(self)  # records the variables made in the scope
        _variable.VARIABLE_CREATORS.append(creator)
        try:
            yield self
        finally:
            _variable.VARIABLE_CREATORS.remove(creator)
            stack.pop()

    # -- replica computation -----------------------------------------------------------------

    def run(self, fn: Callable, args: tuple = (), kwargs: dict | None = None, options: Any = None) -> Any:
        """Invokes `fn` on each replica, with the given arguments (this process's replica here).

        Inside `fn`, `tf.distribute.get_replica_context()` is this replica's context and
        `optimizer.apply_gradients` applies the gradients averaged over the replicas.
        Returns `fn`'s result (this replica's value).
        """
        previous_context = getattr(_STATE, "replica", None)
        _STATE.replica = ReplicaContext(self, max(self._position.rank, 0))
        # TF's apply_gradients finds the strategy through the replica context; here the
        # optimizers find the gradient average in the current GradientSync (this thread's).
        syncing = (gradient_sync.using(GradientSync(reduce=self._average_in_run))
                   if self.num_replicas_in_sync > 1 else contextlib.nullcontext())
        try:
            with syncing, self.scope():
                return fn(*args, **(kwargs or {}))
        finally:
            _STATE.replica = previous_context

    def _average_in_run(self, grads: list[torch.Tensor], variables: list[torch.Tensor]) -> list[torch.Tensor]:
        """The gradients of `strategy.run`'s `apply_gradients`, averaged over the replicas; the
        first time a variable is updated every replica takes the chief's value of it (TF's
        mirrored variables start equal)."""
        seen = self.__dict__.setdefault("_mirrored_ids", set())
        new = [v for v in variables if id(v) not in seen]
        if new:
            _collectives.broadcast_(new, 0)
            seen.update(id(v) for v in new)
        return _collectives.average_gradients(grads)

    def reduce(self, reduce_op: ReduceOp | str, value: Any, axis: int | None = None) -> torch.Tensor:
        """Reduces `value` across replicas and returns the result on the current device.

        `reduce_op` SUM or MEAN; with `axis`, each replica's value is first reduced along
        that axis (MEAN then divides by the total number of elements along it over all
        replicas, as TF does).
        """
        op = _reduce_op(reduce_op)
        tensor = _as_tensor(value)
        if axis is None:
            return self._all_reduce(op, tensor)
        total = _collectives.reduce(tensor.sum(dim=axis), dist.ReduceOp.SUM)
        if op is ReduceOp.SUM:
            return total
        count = _collectives.reduce(torch.tensor(tensor.shape[axis], dtype=torch.float64), dist.ReduceOp.SUM)
        return (total / count.to(total.dtype)) if total.is_floating_point() else total / count

    def _all_reduce(self, op: ReduceOp, value: Any) -> torch.Tensor:
        tensor = _as_tensor(value)
        summed = _collectives.reduce(tensor, dist.ReduceOp.SUM)
        if op is ReduceOp.MEAN:
            n = self.num_replicas_in_sync
            return summed / n if summed.is_floating_point() else summed.to(torch.float32) / n
        return summed

    def gather(self, value: Any, axis: int) -> torch.Tensor:
        """The replicas' `value`s concatenated along `axis` (sizes along `axis` may differ)."""
        return _collectives.all_gather(_as_tensor(value), axis)

    def experimental_local_results(self, value: Any) -> tuple:
        """The values of this process's replicas, as a tuple (one here)."""
        return (value,)

    # -- input ---------------------------------------------------------------------------------

    def _input_context(self) -> InputContext:
        n = self.num_replicas_in_sync
        return InputContext(n, max(self._position.rank, 0) if n > 1 else 0, n)

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> DistributedDataset:
        """Splits each global batch of `dataset` across the replicas: this replica iterates over
        its part (B / num_replicas_in_sync rows of a batch of B)."""
        if dataset is None or not hasattr(dataset, "__iter__"):
            raise TypeError(f"experimental_distribute_dataset expects a tf.data.Dataset; received {dataset!r}.")
        return DistributedDataset(dataset, max(self._position.rank, 0), self.num_replicas_in_sync)

    def distribute_datasets_from_function(self, dataset_fn: Callable, options: Any = None
                                          ) -> DistributedDatasetsFromFunction:
        """Calls `dataset_fn(input_context)` for this worker: the function shards its input with
        `input_context.num_input_pipelines` / `input_pipeline_id` and batches with
        `input_context.get_per_replica_batch_size(global_batch_size)`."""
        return DistributedDatasetsFromFunction(dataset_fn, self._input_context())

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        """`value_fn(context)` for this replica (`context.replica_id_in_sync_group`)."""
        return value_fn(_ValueContext(max(self._position.rank, 0), self.num_replicas_in_sync))

    def __repr__(self) -> str:
        p = self._position
        return (f"{type(self).__name__}(replicas={self.num_replicas_in_sync}, rank={max(p.rank, 0)}, "
                f"device={self._device}, source={p.source})")


class _ValueContext:
    """What `experimental_distribute_values_from_function` passes (`tf.distribute.ValueContext`)."""

    def __init__(self, replica_id: int, num_replicas: int) -> None:
        self.replica_id_in_sync_group = replica_id
        self.num_replicas_in_sync = num_replicas


def _default_device(position: ClusterPosition) -> torch.device:
    device = default_device()
    if device.type == "cuda" and device.index is None and position.world_size > 1:
        return torch.device("cuda", position.local_rank)
    return device


class _DefaultStrategy(Strategy):
    """The strategy in effect when none is in scope: one replica, no communication."""


_DEFAULT = _DefaultStrategy()


def get_strategy() -> Strategy:
    """Returns the current `tf.distribute.Strategy` object (the default single-replica strategy
    outside every `strategy.scope()`)."""
    stack = _stack()
    return stack[-1] if stack else _DEFAULT


def has_strategy() -> bool:
    """Return if there is a current non-default `tf.distribute.Strategy`."""
    return bool(_stack())


def in_cross_replica_context() -> bool:
    """True inside a strategy's scope but outside `strategy.run`."""
    return bool(_stack()) and getattr(_STATE, "replica", None) is None


def get_replica_context() -> ReplicaContext | None:
    """The current replica's context inside `strategy.run`; None in a cross-replica context
    (inside a scope, outside `run`); the default strategy's context outside every scope."""
    replica = getattr(_STATE, "replica", None)
    if replica is not None:
        return replica
    if _stack():
        return None
    return ReplicaContext(_DEFAULT, 0)


def get_cross_replica_context() -> Strategy | None:
    """The current strategy in a cross-replica context, else None."""
    return get_strategy() if getattr(_STATE, "replica", None) is None else None
