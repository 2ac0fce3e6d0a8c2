"""`tf.distribute.CrossDeviceOps` and its implementations (`ReductionToOneDevice`,
`NcclAllReduce`, `HierarchicalCopyAllReduce`), `experimental_set_strategy`, and the refused
`Server` and `coordinator` names.

Here one process is one replica: a reduction first combines this process's replica values (a
`DistributedValues`' `.values`, or the one tensor given) and then all-reduces the result over
the processes of the default `torch.distributed` group (the project's collectives: NCCL on
GPUs, gloo on CPU). Without a process group the result is the local one. `MirroredStrategy(
cross_device_ops=...)` accepts any of these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.distributed as dist

from torchestimator._refused import refuse, refused_module
from torchestimator.distribute import _collectives, _strategy
from torchestimator.distribute._distributed_values import (
    DistributedValues,
    Mirrored,
    as_tensor,
    local_values,
)
from torchestimator.distribute._reduce_op import ReduceOp


def _reduce_op(value: Any) -> ReduceOp:
    if isinstance(value, ReduceOp):
        return value
    if isinstance(value, str):
        try:
            return ReduceOp(value.upper())
        except ValueError:
            pass
    raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or MEAN (or 'SUM'/'MEAN'); got {value!r}.")


def _destination_device(destinations: Any, fallback: torch.device) -> torch.device:
    """The device a value reduced to `destinations` lands on: a device string, a tensor or
    variable (its device), a DistributedValues (its first value's device) or None (the value's)."""
    if destinations is None:
        return fallback
    if isinstance(destinations, DistributedValues):
        destinations = destinations.values[0]
    if isinstance(destinations, torch.Tensor):
        return destinations.device
    if isinstance(destinations, (list, tuple)):
        if not destinations:
            raise ValueError("destinations must not be empty.")
        destinations = destinations[0]
    if isinstance(destinations, str) and not destinations:
        raise ValueError("destinations can not be empty")
    return _strategy.torch_device(destinations)


class CrossDeviceOps:
    """Base class for cross-device reduction and broadcasting algorithms (TF's
    `tf.distribute.CrossDeviceOps`). Subclasses implement `reduce_implementation`,
    `batch_reduce_implementation` and `broadcast_implementation`."""

    def __init__(self) -> None:
        self._canonicalize_devices = True

    def reduce(self, reduce_op: ReduceOp | str, per_replica_value: Any, destinations: Any,
               options: Any = None) -> torch.Tensor:
        """Reduces `per_replica_value` (a `DistributedValues` or this replica's tensor) over every
        replica with `reduce_op` (SUM or MEAN) and returns the result on `destinations`."""
        op = _reduce_op(reduce_op)
        values = local_values(per_replica_value)
        if len(values) == 1 and _collectives.world_size() <= 1:  # TF: nothing to reduce
            tensor = as_tensor(values[0])
            return tensor.to(_destination_device(destinations, tensor.device))
        return self.reduce_implementation(op, per_replica_value, destinations, options)

    def batch_reduce(self, reduce_op: ReduceOp | str, value_destination_pairs: Sequence[tuple[Any, Any]],
                     options: Any = None) -> list[torch.Tensor]:
        """Reduces several `(per_replica_value, destinations)` pairs at once; returns the list of
        reduced values in the same order."""
        op = _reduce_op(reduce_op)
        pairs = list(value_destination_pairs)
        for pair in pairs:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                raise ValueError("value_destination_pairs must be a list of (value, destinations) pairs; "
                                 f"got {pair!r}.")
        return self.batch_reduce_implementation(op, pairs, options)

    def broadcast(self, tensor: Any, destinations: Any) -> Mirrored:
        """Mirrors `tensor` to `destinations`: every replica gets the value of the chief's
        (process 0's) replica; returns it as a `Mirrored` value."""
        return self.broadcast_implementation(tensor, destinations)

    # -- implementations -----------------------------------------------------------------------

    def reduce_implementation(self, reduce_op: ReduceOp, per_replica_value: Any, destinations: Any,
                              options: Any) -> torch.Tensor:
        """The reduction itself: combine this worker's values, all-reduce over the workers."""
        return self.batch_reduce_implementation(reduce_op, [(per_replica_value, destinations)], options)[0]

    def batch_reduce_implementation(self, reduce_op: ReduceOp, value_destination_pairs: list,
                                    options: Any) -> list[torch.Tensor]:
        """Reduces every pair; the local sums are all-reduced together (one bucketed collective)."""
        local, counts, devices = [], [], []
        for value, destinations in value_destination_pairs:
            values = [as_tensor(v) for v in local_values(value)]
            local.append(self._accumulate(values))
            counts.append(len(values))
            devices.append(_destination_device(destinations, values[0].device))
        totals = _collectives.sum_(local)
        if reduce_op is ReduceOp.MEAN:
            replicas = _collectives.sum_values([sum(counts) / max(len(counts), 1)])[0]
            totals = [t / replicas if t.is_floating_point() or t.is_complex()
                      else t.to(torch.float32) / replicas for t in totals]
        return [t.to(device) for t, device in zip(totals, devices)]

    def broadcast_implementation(self, tensor: Any, destinations: Any) -> Mirrored:
        """Sends process 0's value to every process."""
        value = as_tensor(local_values(tensor)[0]).detach().clone()
        if _collectives.world_size() > 1:
            _collectives.broadcast_([value], 0)
        return Mirrored(value.to(_destination_device(destinations, value.device)))

    def _accumulate(self, values: list[torch.Tensor]) -> torch.Tensor:
        total = values[0].clone()
        for v in values[1:]:
            total = total + v.to(total.device)
        return total


class ReductionToOneDevice(CrossDeviceOps):
    """Always do reduction to one device first and then do broadcasting (TF's
    `tf.distribute.ReductionToOneDevice(reduce_to_device=None, accumulation_fn=None)`): the
    values are summed with `accumulation_fn` (default `tf.math.add_n`) on `reduce_to_device`
    (default: the destination's device), reduced to process 0 and broadcast back."""

    def __init__(self, reduce_to_device: Any = None, accumulation_fn: Callable | None = None) -> None:
        super().__init__()
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn

    def _accumulate(self, values: list[torch.Tensor]) -> torch.Tensor:
        if self.reduce_to_device is not None:
            device = _strategy.torch_device(self.reduce_to_device)
            values = [v.to(device) for v in values]
        if self.accumulation_fn is not None:
            return as_tensor(self.accumulation_fn(values))
        return super()._accumulate(values)

    def batch_reduce_implementation(self, reduce_op: ReduceOp, value_destination_pairs: list,
                                    options: Any) -> list[torch.Tensor]:
        """Reduces to process 0 (`torch.distributed.reduce`), then broadcasts the result."""
        if _collectives.world_size() <= 1:
            return super().batch_reduce_implementation(reduce_op, value_destination_pairs, options)
        results = []
        for value, destinations in value_destination_pairs:
            values = [as_tensor(v) for v in local_values(value)]
            total = self._accumulate(values).detach().clone()
            device = _destination_device(destinations, values[0].device)
            count = torch.tensor([float(len(values))], dtype=torch.float64, device=total.device)
            dist.reduce(total, dst=0, op=dist.ReduceOp.SUM)
            dist.reduce(count, dst=0, op=dist.ReduceOp.SUM)
            _collectives.broadcast_([total, count], 0)
            if reduce_op is ReduceOp.MEAN:
                n = count.item()
                total = total / n if total.is_floating_point() or total.is_complex() else total.to(torch.float32) / n
            results.append(total.to(device))
        return results


class _AllReduceCrossDeviceOps(CrossDeviceOps):
    def __init__(self, all_reduce_alg: str, num_packs: int = 1) -> None:
        super().__init__()
        if num_packs < 0:
            raise ValueError(f"NCCL all-reduce requires num_packs >= 0, but {num_packs} is specified")
        self._all_reduce_alg = all_reduce_alg
        self._num_packs = num_packs


class NcclAllReduce(_AllReduceCrossDeviceOps):
    """NCCL all-reduce implementation of CrossDeviceOps (TF's `tf.distribute.NcclAllReduce(
    num_packs=1)`): one all-reduce of the (packed) values over the processes; NCCL on GPUs, the
    process group's backend (gloo) on CPU."""

    def __init__(self, num_packs: int = 1) -> None:
        super().__init__("nccl", num_packs)


class HierarchicalCopyAllReduce(_AllReduceCrossDeviceOps):
    """Hierarchical copy all-reduce implementation of CrossDeviceOps (TF's
    `tf.distribute.HierarchicalCopyAllReduce(num_packs=1)`, built for DGX-1 topologies): here the
    same all-reduce over the processes as `NcclAllReduce`."""

    def __init__(self, num_packs: int = 1) -> None:
        super().__init__("hierarchical_copy", num_packs)


# --------------------------------------------------------------------------------------------
# experimental_set_strategy
# --------------------------------------------------------------------------------------------
_GLOBAL_SCOPE: dict[str, Any] = {"strategy": None, "scope": None}


def experimental_set_strategy(strategy: Any) -> None:
    """Set a `tf.distribute.Strategy` as current without `with strategy.scope()` (TF's
    `tf.distribute.experimental_set_strategy(strategy)`): `tf.distribute.get_strategy()` returns
    it until it is set to another or to None (back to the default). Must not be called
    inside a `strategy.scope()`."""
    stack = _strategy._stack()  # looked up per call: tests replace it
    current = _GLOBAL_SCOPE["strategy"]
    if stack and not (current is not None and len(stack) == 1 and stack[0] is current):
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None and not isinstance(strategy, _strategy.Strategy):
        raise TypeError(f"strategy must be a tf.distribute.Strategy or None; got {strategy!r}.")
    if _GLOBAL_SCOPE["scope"] is not None:
        _GLOBAL_SCOPE["scope"].__exit__(None, None, None)
        _GLOBAL_SCOPE.update(strategy=None, scope=None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _GLOBAL_SCOPE.update(strategy=strategy, scope=scope)


# --------------------------------------------------------------------------------------------
# Refused: TF's gRPC server and the parameter-server coordinator
# --------------------------------------------------------------------------------------------
_SERVER = ("TensorFlow's in-process gRPC server does not exist here: start the processes with "
           "`torchestimator launch` or `torchrun` (or a TF_CONFIG cluster), and the strategies join "
           "them over torch.distributed")
_COORDINATOR = ("asynchronous parameter-server training with a ClusterCoordinator is not provided: "
                "tf.distribute.ParameterServerStrategy here trains synchronously; use "
                "tf.distribute.MultiWorkerMirroredStrategy with model.fit or strategy.run")

Server = refuse("tf.distribute.Server", _SERVER)
coordinator = refused_module("tf.distribute.coordinator", "TF's ClusterCoordinator API (refused).", {
    name: _COORDINATOR for name in ("ClusterCoordinator", "PerWorkerValue", "RemoteValue",
                                    "experimental_get_current_worker_index")})
