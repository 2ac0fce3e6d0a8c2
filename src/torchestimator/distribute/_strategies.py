"""The strategies: `OneDeviceStrategy`, `MirroredStrategy`, `MultiWorkerMirroredStrategy`,
`CentralStorageStrategy`, `ParameterServerStrategy` and `TPUStrategy`.

How TF's strategies map onto PyTorch (one replica per process):

* `MirroredStrategy`: the replicas of one machine. Started by `torchrun
  --nproc_per_node=N` (or `torchestimator launch`), each process drives one
  device and the processes average their gradients (NCCL on GPUs, gloo on CPU).
  Started as a plain `python train.py` with several replica devices (all GPUs,
  or a `devices` list), it starts the other replica processes itself
  (`_self_launch`).
* `MultiWorkerMirroredStrategy`: the same across machines; the cluster comes from
  torchrun's variables or from `TF_CONFIG` (chief = rank 0, workers after it; the
  chief's `host:port` is the rendezvous).
* `CentralStorageStrategy`: Mirrored (every replica holds the variables).
* `ParameterServerStrategy`: PyTorch has no parameter-server runtime worth using,
  so a `TF_CONFIG` with `ps` tasks trains **synchronously**: `ps` tasks log that
  they are not needed and exit with status 0, chief and workers train data
  parallel as MultiWorkerMirrored, with a one-line warning. An existing TFJob spec
  keeps working.
* `TPUStrategy`: not available (PyTorch/XLA is another runtime): a clear error.
"""

from __future__ import annotations

import logging
import os
import warnings
from typing import Any

import torch

from torchestimator._engine import loop
from torchestimator.distribute._cluster import (
    ClusterPosition,
    current_position,
    init_process_group,
    pick_backend,
    shares_a_gpu,
)
from torchestimator.distribute._communication import (
    CommunicationImplementation,
    CommunicationOptions,
)
from torchestimator.distribute._self_launch import (
    backend_device_type,
    maybe_start_replicas,
    replica_devices,
    watch_parent,
)
from torchestimator.distribute._strategy import Strategy, torch_device
from torchestimator.distribute.cluster_resolver import TFConfigClusterResolver

_log = logging.getLogger("torchestimator")


def _leave_if_ps(position: ClusterPosition) -> None:
    if position.task_type == "ps":
        _log.warning(
            "This is ps task %s: parameter servers are not needed here (chief and workers train "
            "synchronously with data parallelism over torch.distributed); exiting with status 0.",
            position.task_id,
        )
        raise SystemExit(0)


def _join(position: ClusterPosition, options: CommunicationOptions | None, device: torch.device) -> str:
    options = options or CommunicationOptions()
    backend = pick_backend(options.implementation.value, device.type)
    if backend == "nccl" and options.implementation.value == "AUTO" and shares_a_gpu():
        _log.warning("%s processes on this machine share its %d GPU(s); NCCL takes one GPU a process, "
                     "so the replicas reduce over gloo (CUDA tensors) instead.",
                     os.environ.get("LOCAL_WORLD_SIZE"), torch.cuda.device_count())
        backend = "gloo"
    gpu = device if device.type == "cuda" and device.index is not None else None
    init_process_group(position, backend, options.timeout_seconds, gpu)
    return backend


def _position_of(cluster_resolver: Any) -> ClusterPosition:
    if cluster_resolver is None:
        return current_position()
    position = getattr(cluster_resolver, "_position", None)
    if position is None:
        raise TypeError(
            "cluster_resolver must be a tf.distribute.cluster_resolver.TFConfigClusterResolver or "
            f"SimpleClusterResolver; received {cluster_resolver!r}."
        )
    return position()


def _process_device(position: ClusterPosition) -> torch.device:
    name = os.environ.get("TORCHESTIMATOR_DEVICE")
    if name:
        return torch.device(name)
    if torch.cuda.is_available():
        return torch.device("cuda", position.local_rank % max(torch.cuda.device_count(), 1))
    return torch.device("cpu")


class OneDeviceStrategy(Strategy):
    """A distribution strategy for running on a single device (`tf.distribute.OneDeviceStrategy`).

    Args:
        device: the device string ('/cpu:0', '/gpu:0', 'cuda:1').
    """

    def __init__(self, device: str) -> None:
        super().__init__(ClusterPosition(), torch_device(device))


def _default_resolver(position: ClusterPosition) -> Any:
    """MultiWorkerMirroredStrategy's resolver when none is given, as TF's: it reads TF_CONFIG;
    under torchrun it names this process's role (rank 0 `chief`, rank r `worker` r); alone,
    task_type and task_id are None."""
    if position.source == "torchrun":
        return TFConfigClusterResolver(task_type=position.task_type, task_id=position.task_id)
    return TFConfigClusterResolver()


class MultiWorkerMirroredStrategy(Strategy):
    """A distribution strategy for synchronous training on multiple workers
    (`tf.distribute.MultiWorkerMirroredStrategy`).

    The cluster comes from `cluster_resolver`, else from torchrun's variables (`RANK`,
    `WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT`), else from `TF_CONFIG`; without either
    it is one replica. Constructing it joins the process group (the chief hosts the
    rendezvous and waits for every worker). A `ps` task exits with status 0.

    Args:
        cluster_resolver: a `TFConfigClusterResolver` or `SimpleClusterResolver`.
        communication_options: a `tf.distribute.experimental.CommunicationOptions`
            (implementation AUTO/RING/NCCL, collective timeout).
    """

    def __init__(self, cluster_resolver: Any = None,
                 communication_options: CommunicationOptions | None = None) -> None:
        if communication_options is not None and not isinstance(communication_options, CommunicationOptions):
            raise TypeError(
                "communication_options must be a tf.distribute.experimental.CommunicationOptions; received "
                f"{communication_options!r}."
            )
        position = _position_of(cluster_resolver)
        _leave_if_ps(position)
        if position.task_type == "evaluator":
            position = ClusterPosition(task_type="evaluator", task_id=position.task_id, source=position.source)
        device = _process_device(position)
        backend = _join(position, communication_options, device) if position.world_size > 1 else None
        if cluster_resolver is None:  # as TF's: a TFConfigClusterResolver, never None
            cluster_resolver = _default_resolver(position)
        super().__init__(position, device, backend, cluster_resolver)
        self._communication_options = communication_options or CommunicationOptions()


class MirroredStrategy(Strategy):
    """Synchronous training across multiple replicas on one machine (`tf.distribute.MirroredStrategy`).

    One process per device, averaging gradients with the others (NCCL on GPUs, gloo on
    CPU). Started by `torchrun --nproc_per_node=N` (or `torchestimator launch
    --nproc_per_node=N`), each process drives the device of its local rank. Started as
    a plain `python train.py` with N > 1 replica devices (every GPU when `devices` is
    None, or the `devices` list, e.g. `["/gpu:0", "/gpu:1"]` or `["/cpu:0", "/cpu:1"]`),
    the program becomes replica 0 and starts N - 1 copies of itself (same command,
    directory and environment, plus torchrun's variables), as TF's MirroredStrategy used
    every GPU: the copies stop when it dies, and it exits with status 1 when one of them
    fails. A program that cannot be started again (`python -c`, an interactive session,
    a notebook) trains one replica and logs the `torchestimator launch` command;
    `TORCHESTIMATOR_NO_SELF_LAUNCH=1` turns self-launching off.

    Args:
        devices: the devices of the replicas (TF device strings); None: every GPU, else
            the CPU.
        cross_device_ops: accepted for compatibility (NCCL on GPUs, gloo on CPU).
    """

    def __init__(self, devices: Any = None, cross_device_ops: Any = None) -> None:
        self._devices = tuple(str(d) for d in devices) if devices else None
        replicas = replica_devices(self._devices)
        if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
            position = current_position()
            watch_parent()  # a copy started by a MirroredStrategy stops when its parent is gone
        else:
            position = maybe_start_replicas(replicas) or ClusterPosition()
        if self._devices and "TORCHESTIMATOR_DEVICE" not in os.environ:
            device = replicas[position.local_rank % len(replicas)]
        else:
            device = _process_device(position)
        backend = None
        if position.world_size > 1:
            kind = backend_device_type(replicas) if self._devices else device.type
            backend = _join(position, None, device if device.type == kind else torch.device(kind))
            if device.type == "cuda" and device.index is not None:  # also in a group made before
                torch.cuda.set_device(device)
                loop.forget_op_device()
        super().__init__(position, device, backend)


class CentralStorageStrategy(MirroredStrategy):
    """`tf.distribute.experimental.CentralStorageStrategy`: here the same as MirroredStrategy
    (every replica holds the variables; gradients are averaged)."""

    def __init__(self, compute_devices: Any = None, parameter_device: Any = None) -> None:
        super().__init__(devices=compute_devices)


class ParameterServerStrategy(MultiWorkerMirroredStrategy):
    """`tf.distribute.experimental.ParameterServerStrategy`, run as synchronous data parallelism.

    PyTorch has no parameter-server runtime worth using: `ps` tasks exit with status 0,
    and the chief and workers of the `TF_CONFIG` cluster train synchronously, averaging
    their gradients (MultiWorkerMirroredStrategy). A warning says so once.
    """

    def __init__(self, cluster_resolver: Any = None, variable_partitioner: Any = None) -> None:
        position = _position_of(cluster_resolver)
        _leave_if_ps(position)
        warnings.warn(
            "ParameterServerStrategy: asynchronous parameter-server training runs as synchronous data "
            "parallelism (MultiWorkerMirroredStrategy) on the chief and workers; ps tasks exit.",
            UserWarning, stacklevel=2,
        )
        super().__init__(cluster_resolver=cluster_resolver)


class TPUStrategy(Strategy):
    """`tf.distribute.TPUStrategy` is not available: PyTorch on TPUs is PyTorch/XLA, another runtime."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "tf.distribute.TPUStrategy is not supported by torchestimator: TPUs need PyTorch/XLA. Use "
            "MirroredStrategy (GPUs of one machine) or MultiWorkerMirroredStrategy (several machines)."
        )


__all__ = [
    "CentralStorageStrategy",
    "CommunicationImplementation",
    "MirroredStrategy",
    "MultiWorkerMirroredStrategy",
    "OneDeviceStrategy",
    "ParameterServerStrategy",
    "TPUStrategy",
]
