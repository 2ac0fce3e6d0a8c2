"""Where this process sits in a training cluster, and the `torch.distributed` process group.

Two sources describe a cluster, whichever the environment has:

* torchrun's variables (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`,
  `MASTER_PORT`), also set by Kubernetes' PyTorchJob;
* `TF_CONFIG` (`{"cluster": {"chief": [...], "worker": [...]}, "task": {...}}`),
  as set by Kubeflow's TFJob: the training tasks are the chief (rank 0; the
  legacy `master` job likewise) and the workers in index order; the chief's
  `host:port` is the rendezvous. `ps` tasks are not training tasks (PyTorch has
  no parameter-server runtime: they have nothing to do) and an `evaluator` is
  outside the cluster.

`init_process_group` joins the group: the rendezvous (a `TCPStore`) waits
`TORCHESTIMATOR_RENDEZVOUS_TIMEOUT_SECS` (default 600) for every task and fails
with an error naming the address, never hangs for ever.
"""

from __future__ import annotations

import atexit
import datetime
import json
import logging
import os
import sys
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from torchestimator._engine import loop
from torchestimator.train._cluster_spec import ClusterSpec

_log = logging.getLogger("torchestimator")

RENDEZVOUS_TIMEOUT_ENV = "TORCHESTIMATOR_RENDEZVOUS_TIMEOUT_SECS"
DEFAULT_RENDEZVOUS_TIMEOUT_SECS = 600.0
DEFAULT_COLLECTIVE_TIMEOUT_SECS = 1800.0
TRAINING_JOBS = ("chief", "master", "worker")


class RendezvousError(RuntimeError):
    """This task could not meet the other tasks of its cluster at the rendezvous address."""


@dataclass(frozen=True)
class ClusterPosition:
    """This process's place in the training cluster.

    `rank` / `world_size`: its index among the training processes and their
    number; `local_rank`: its index on this machine (its GPU); `master_addr` /
    `master_port`: the rendezvous; `source`: 'torchrun', 'TF_CONFIG' or 'local';
    `task_type` / `task_id`: its TF role ('chief', 'worker', 'ps', 'evaluator').
    """

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    master_addr: str = "127.0.0.1"
    master_port: int = 0
    source: str = "local"
    task_type: str | None = None
    task_id: int | None = None
    cluster: ClusterSpec | None = None

    @property
    def is_chief(self) -> bool:
        """True for rank 0 (the chief) and for a process outside any cluster."""
        return self.rank == 0 and self.task_type not in ("ps", "evaluator")

    @property
    def address(self) -> str:
        """The rendezvous as `host:port`."""
        return f"{self.master_addr}:{self.master_port}"


def _env_int(name: str) -> int:
    raw = os.environ[name]
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"The environment variable {name} must be an integer; received {raw!r}.") from None


def _from_torchrun() -> ClusterPosition:
    rank, world_size = _env_int("RANK"), _env_int("WORLD_SIZE")
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(
            f"RANK must be in [0, WORLD_SIZE) and WORLD_SIZE >= 1; received RANK={rank}, WORLD_SIZE={world_size}."
        )
    local_rank = _env_int("LOCAL_RANK") if "LOCAL_RANK" in os.environ else 0
    missing = [name for name in ("MASTER_ADDR", "MASTER_PORT") if world_size > 1 and not os.environ.get(name)]
    if missing:
        raise ValueError(
            f"RANK and WORLD_SIZE are set but {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
            "not: set the rendezvous address (MASTER_ADDR=host MASTER_PORT=port), or start the program "
            "with torchrun / `torchestimator launch`."
        )
    port = _env_int("MASTER_PORT") if world_size > 1 else 0
    return ClusterPosition(rank, world_size, local_rank, os.environ.get("MASTER_ADDR", "127.0.0.1"), port,
                           "torchrun", "chief" if rank == 0 else "worker", rank)


def read_tf_config() -> dict[str, Any]:
    """The parsed `TF_CONFIG` (an empty dict when unset); ValueError naming the variable when
    it is not a JSON object."""
    raw = os.environ.get("TF_CONFIG", "")
    if not raw.strip():
        return {}
    try:
        config = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"The TF_CONFIG environment variable is not valid JSON ({e}); received {raw!r}.") from e
    if not isinstance(config, dict):
        raise ValueError(f"The TF_CONFIG environment variable must hold a JSON object; received {raw!r}.")
    return config


def training_tasks(cluster: ClusterSpec) -> list[tuple[str, int, str]]:
    """The training tasks of `cluster` in rank order: the chief (or legacy master), then the
    workers by index; each `(job, index, address)`."""
    tasks = []
    for job in TRAINING_JOBS:
        if job in cluster.jobs:
            for index in cluster.task_indices(job):
                tasks.append((job, index, cluster.task_address(job, index)))
    return tasks


def position_from_tf_config(tf_config: dict[str, Any]) -> ClusterPosition:
    """This task's position from a parsed TF_CONFIG; ValueError naming the field that is wrong."""
    cluster_value = tf_config.get("cluster")
    if not cluster_value:
        return ClusterPosition()
    if not isinstance(cluster_value, dict):
        raise ValueError(
            f'TF_CONFIG["cluster"] must map job names to lists of "host:port"; received {cluster_value!r}.'
        )
    cluster = ClusterSpec(cluster_value)
    task = tf_config.get("task")
    if not isinstance(task, dict):
        raise ValueError(
            'TF_CONFIG has a "cluster" but no "task": add "task": {"type": "worker", "index": 0} naming this '
            f"process's role; received task={task!r}."
        )
    task_type, task_id = task.get("type"), task.get("index", 0)
    if not task_type:
        raise ValueError(f'TF_CONFIG["task"]["type"] must be set (chief, worker, ps or evaluator); received {task!r}.')
    try:
        task_id = int(task_id)
    except (TypeError, ValueError):
        raise ValueError(f'TF_CONFIG["task"]["index"] must be an integer; received {task_id!r}.') from None
    if task_type == "evaluator":
        return ClusterPosition(task_type="evaluator", task_id=task_id, source="TF_CONFIG")
    if task_type not in cluster.jobs:
        raise ValueError(
            f'TF_CONFIG["task"]["type"] is {task_type!r}, which is not a job of TF_CONFIG["cluster"] '
            f"(jobs: {cluster.jobs})."
        )
    if task_id not in cluster.task_indices(task_type):
        raise ValueError(
            f'TF_CONFIG["task"]["index"] is {task_id}, out of range for job {task_type!r}, which has '
            f"{cluster.num_tasks(task_type)} task(s) in TF_CONFIG[\"cluster\"]."
        )
    chiefs = [job for job in ("chief", "master") if job in cluster.jobs]
    if len(chiefs) > 1 or any(cluster.num_tasks(job) > 1 for job in chiefs):
        raise ValueError(f'TF_CONFIG["cluster"] must have at most one chief (or master) task; received {cluster}.')
    tasks = training_tasks(cluster)
    if not tasks:
        raise ValueError(f'TF_CONFIG["cluster"] has no training task (chief or worker); received {cluster}.')
    host, port = _split_address(tasks[0][2], f'TF_CONFIG["cluster"]["{tasks[0][0]}"][{tasks[0][1]}]')
    if task_type == "ps":
        return ClusterPosition(-1, len(tasks), 0, host, port, "TF_CONFIG", task_type, task_id, cluster)
    rank = next(r for r, (job, index, _) in enumerate(tasks) if job == task_type and index == task_id)
    local_rank = _env_int("LOCAL_RANK") if "LOCAL_RANK" in os.environ else 0
    return ClusterPosition(rank, len(tasks), local_rank, host, port, "TF_CONFIG", task_type, task_id, cluster)


def _split_address(address: str, field: str) -> tuple[str, int]:
    host, sep, port = str(address).rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f'{field} must be a "host:port" address; received {address!r}.')
    return host.strip("[]"), int(port)


def current_position() -> ClusterPosition:
    """This process's position: from torchrun's variables when `RANK` and `WORLD_SIZE` are set,
    else from `TF_CONFIG`, else a single local process."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        return _from_torchrun()
    return position_from_tf_config(read_tf_config())


def rendezvous_timeout() -> float:
    """Seconds a task waits at the rendezvous (`TORCHESTIMATOR_RENDEZVOUS_TIMEOUT_SECS`)."""
    raw = os.environ.get(RENDEZVOUS_TIMEOUT_ENV)
    if not raw:
        return DEFAULT_RENDEZVOUS_TIMEOUT_SECS
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{RENDEZVOUS_TIMEOUT_ENV} must be a number of seconds; received {raw!r}.") from None
    if value <= 0:
        raise ValueError(f"{RENDEZVOUS_TIMEOUT_ENV} must be > 0; received {raw!r}.")
    return value


def init_process_group(position: ClusterPosition, backend: str,
                       collective_timeout: float | None = None, gpu: torch.device | None = None) -> None:
    """Joins (or creates, on the chief) the default process group of `position`'s cluster.

    With NCCL the process first makes its GPU current: `gpu`, else the one of its local rank.

    Nothing to do for one process, or when a group already exists (its size must match).
    Raises RendezvousError naming the address when the tasks do not meet within the
    rendezvous timeout.
    """
    if dist.is_initialized():
        if dist.get_world_size() != position.world_size:
            raise RuntimeError(
                f"A torch.distributed process group of {dist.get_world_size()} processes already exists, "
                f"but the cluster ({position.source}) has {position.world_size} training tasks."
            )
        return
    if position.world_size <= 1:
        return
    wait = rendezvous_timeout()
    # Under torchrun's agent the store already runs at MASTER_ADDR:MASTER_PORT: every rank is a client.
    agent_store = os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"
    is_master = position.rank == 0 and not agent_store
    where = (f"{position.address} (from {'MASTER_ADDR/MASTER_PORT' if position.source == 'torchrun' else 'the chief address in TF_CONFIG'})")
    _log.info("Joining the training cluster as rank %d of %d at %s (%s backend).", position.rank,
              position.world_size, where, backend)
    try:
        store = dist.TCPStore(position.master_addr, position.master_port, position.world_size, is_master,
                              timeout=datetime.timedelta(seconds=wait), wait_for_workers=True)
    except (RuntimeError, OSError) as e:
        role = "host the rendezvous at" if is_master else "reach the rendezvous at"
        raise RendezvousError(
            f"Rank {position.rank} of {position.world_size} could not {role} {where} within {wait:g} s "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else e}). Check that the chief is "
            f"running and that the address is reachable from this host, or raise {RENDEZVOUS_TIMEOUT_ENV}."
        ) from None
    if agent_store:  # torchrun's store outlives a restart: each attempt gets its own keys (as env://)
        store = dist.PrefixStore(f"/worker/attempt_{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}", store)
    timeout = datetime.timedelta(seconds=collective_timeout or DEFAULT_COLLECTIVE_TIMEOUT_SECS)
    if backend == "nccl":  # this process's GPU first: the group, and every default, use it
        torch.cuda.set_device(gpu if gpu is not None else position.local_rank)
        loop.forget_op_device()
    dist.init_process_group(group_backend(backend), store=store, rank=position.rank,
                            world_size=position.world_size, timeout=timeout)
    atexit.register(_leave_process_group)


def group_backend(backend: str) -> str:
    """The `init_process_group` backend for `backend`: NCCL serves CUDA tensors only, so an NCCL
    group also gets gloo for the host tensors the run reduces (the end-of-data vote, summed
    counts, gathered sizes): 'cpu:gloo,cuda:nccl'. Gloo serves both devices itself."""
    return "cpu:gloo,cuda:nccl" if backend == "nccl" else backend


# How long a process ending cleanly waits at exit for the other processes of its gloo group.
LEAVE_BARRIER_SECS = 10.0


def _leave_process_group() -> None:
    """Destroys the default group at exit (a clean shutdown of its transport threads). On gloo, a
    program that ends cleanly first waits (at most `LEAVE_BARRIER_SECS`) until every process got
    there: a process that tore its connections down while a peer still used them made that peer
    abort after its interpreter had ended ('terminate called without an active exception', exit
    code -6), now and then. A program ending with an uncaught exception leaves at once: its
    peers may be gone or stuck."""
    if not dist.is_initialized():
        return
    ended_cleanly = getattr(sys, "last_value", None) is None  # set when Python prints an uncaught error
    try:
        if ended_cleanly and dist.get_backend() == "gloo" and dist.get_world_size() > 1:
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=LEAVE_BARRIER_SECS))
    except Exception:  # noqa: BLE001 - at exit, a peer may be gone or busy: leave anyway
        pass
    try:
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001 - at exit, a peer may already be gone
        pass


def shares_a_gpu() -> bool:
    """Whether more training processes run on this machine (torchrun's `LOCAL_WORLD_SIZE`) than
    it has GPUs: NCCL refuses two ranks on one GPU."""
    local = int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1)
    return torch.cuda.is_available() and local > torch.cuda.device_count()


def pick_backend(implementation: str, device_type: str) -> str:
    """The torch.distributed backend of a `CommunicationImplementation` value ('AUTO', 'RING',
    'NCCL') on `device_type`: NCCL for CUDA (AUTO, NCCL), gloo otherwise."""
    if implementation == "NCCL":
        if not torch.cuda.is_available():
            raise ValueError(
                "CommunicationImplementation.NCCL needs CUDA GPUs, and none is available; use AUTO or RING "
                "(gloo) on CPU."
            )
        return "nccl"
    if implementation == "AUTO" and device_type == "cuda" and dist.is_nccl_available():
        return "nccl"
    return "gloo"
