"""Cluster resolvers (`tf.distribute.cluster_resolver`): where the tasks of a cluster are."""

from __future__ import annotations

import json
from typing import Any

import torch

from torchestimator.distribute._cluster import position_from_tf_config, read_tf_config
from torchestimator.train._cluster_spec import ClusterSpec


class ClusterResolver:
    """The interface of cluster resolvers: `cluster_spec()`, `master()`, `task_type`,
    `task_id`, `environment`, `num_accelerators()`, `rpc_layer`."""

    task_type: str | None = None
    task_id: int | None = None
    rpc_layer: str | None = None
    environment: str = ""

    def cluster_spec(self) -> ClusterSpec:
        """The cluster (job name -> task addresses)."""
        raise NotImplementedError

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """The address of task `task_type`/`task_id` (this task by default), with `rpc_layer://`
        in front when one is set; '' outside a cluster."""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        cluster = self.cluster_spec()
        if not cluster or task_type is None or task_type not in cluster.jobs:
            return ""
        address = cluster.task_address(task_type, int(task_id or 0))
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{address}" if layer else address

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        """The accelerators of this machine by type (`{'GPU': n}`; empty without GPUs)."""

        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
        return {"GPU": n} if n else {}


class TFConfigClusterResolver(ClusterResolver):
    """Implementation of a ClusterResolver which reads the TF_CONFIG environment variable.

    `cluster_spec()` is `TF_CONFIG["cluster"]`; `task_type` / `task_id` are
    `TF_CONFIG["task"]` unless given; `rpc_layer` and `environment` are read from
    TF_CONFIG too. The variable is read on every call, as TF does.
    """

    def __init__(self, task_type: str | None = None, task_id: int | None = None,
                 rpc_layer: str | None = None, environment: str | None = None) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self) -> str | None:  # type: ignore[override]
        """This task's job name, from the argument or `TF_CONFIG["task"]["type"]`."""
        if self._task_type is not None:
            return self._task_type
        task = read_tf_config().get("task") or {}
        return str(task["type"]) if isinstance(task, dict) and task.get("type") is not None else None

    @task_type.setter
    def task_type(self, value: str | None) -> None:
        self._task_type = value

    @property
    def task_id(self) -> int | None:  # type: ignore[override]
        """This task's index, from the argument or `TF_CONFIG["task"]["index"]`."""
        if self._task_id is not None:
            return self._task_id
        task = read_tf_config().get("task") or {}
        if isinstance(task, dict) and task.get("index") is not None:
            try:
                return int(task["index"])
            except (TypeError, ValueError):
                raise ValueError(f'TF_CONFIG["task"]["index"] must be an integer; received {task["index"]!r}.') from None
        return None

    @task_id.setter
    def task_id(self, value: int | None) -> None:
        self._task_id = value

    @property
    def rpc_layer(self) -> str | None:  # type: ignore[override]
        """The RPC layer (argument, else `TF_CONFIG["rpc_layer"]`)."""
        return self._rpc_layer if self._rpc_layer is not None else read_tf_config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, value: str | None) -> None:
        self._rpc_layer = value

    @property
    def environment(self) -> str | None:  # type: ignore[override]
        """The environment given to the constructor (None when not given: TF's
        `TFConfigClusterResolver` does not read it from TF_CONFIG)."""
        return self._environment

    def cluster_spec(self) -> ClusterSpec:
        """Returns a ClusterSpec based on the TF_CONFIG environment variable."""
        return ClusterSpec(read_tf_config().get("cluster") or {})

    def _tf_config(self) -> dict[str, Any]:
        config = dict(read_tf_config())
        if self._task_type is not None or self._task_id is not None:
            config["task"] = {"type": self.task_type, "index": self.task_id}
        return config

    def _position(self) -> Any:
        return position_from_tf_config(self._tf_config())


class SimpleClusterResolver(ClusterResolver):
    """A cluster resolver holding a given cluster (`tf.distribute.cluster_resolver.SimpleClusterResolver`)."""

    def __init__(self, cluster_spec: Any, master: str = "", task_type: str | None = None,
                 task_id: int | None = None, environment: str = "", num_accelerators: dict | None = None,
                 rpc_layer: str | None = None) -> None:
        self._cluster_spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self.environment = environment
        self._num_accelerators = num_accelerators
        self.rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        """The cluster given."""
        return self._cluster_spec

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """The given master, or the address of `task_type`/`task_id`."""
        if task_type is None and task_id is None and self._master:
            return self._master
        return super().master(task_type, task_id, rpc_layer)

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: Any = None) -> dict[str, int]:
        """The accelerators given to the constructor (`{}` when none were: TF's
        `SimpleClusterResolver` does not look at the machine)."""
        return dict(self._num_accelerators) if self._num_accelerators is not None else {}

    def _position(self) -> Any:
        config = {"cluster": self._cluster_spec.as_dict(), "task": {"type": self.task_type, "index": self.task_id}}
        return position_from_tf_config(json.loads(json.dumps(config)) if self._cluster_spec else {})


