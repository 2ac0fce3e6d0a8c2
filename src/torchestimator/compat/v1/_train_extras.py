"""`tf.compat.v1.train.summary_iterator` and `replica_device_setter`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from tensorboard.compat.proto import event_pb2

from torchestimator._engine import storage
from torchestimator._engine.checkpoint._format import _delete_checkpoint, _remove
from torchestimator.io._tfrecord import tf_record_iterator


def summary_iterator(path: str) -> Iterator[Any]:
    """Yields the `Event` protocol buffers of the TensorBoard event file `path`, in order
    (tensorboard's `event_pb2.Event`: `wall_time`, `step`, `summary.value`, ...)."""

    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)


def replica_device_setter(ps_tasks: int = 0, ps_device: str = "/job:ps",
                          worker_device: str = "/job:worker", merge_devices: bool = True,
                          cluster: Any = None, ps_ops: Any = None,
                          ps_strategy: Any = None) -> Callable[[Any], str]:
    """Returns a device function, as TF 1.x, for `tf.device(...)`. Device placement of graph
    ops has no meaning here (ops run eagerly where their tensors are; distribute with
    `tf.distribute` strategies), so the function returns `''` (no placement) for every op."""

    def device_function(op: Any = None) -> str:
        return ""

    return device_function


def remove_checkpoint(checkpoint_prefix: str, checkpoint_format_version: Any = 2,
                      meta_graph_suffix: str = "meta") -> None:
    """Removes checkpoint `checkpoint_prefix` and its `<prefix>.<meta_graph_suffix>` file, as
    TF's: with `checkpoint_format_version` 2 (TF's V2, the default) the checkpoint's files (its
    `.safetensors` and `.json`), with 1 or 0 (TF's V1 / LEGACY) the file `checkpoint_prefix`
    itself; files that do not exist are skipped."""

    prefix = os.fspath(checkpoint_prefix)
    _remove_if_exists(f"{prefix}.{meta_graph_suffix}")
    if checkpoint_format_version == 2:
        _delete_checkpoint(prefix)
    else:
        _remove_if_exists(prefix)


def _remove_if_exists(path: str) -> None:
    local = storage.local(path)
    if storage.is_url(local):
        _remove(local)
    elif os.path.isfile(local):
        os.remove(local)


def get_checkpoint_mtimes(checkpoint_prefixes: list[str]) -> list[float]:
    """The modification times of the checkpoints `checkpoint_prefixes` (those that exist)."""


    out = []
    for prefix in checkpoint_prefixes:
        path = storage.local(os.fspath(prefix)) + ".json"
        if os.path.exists(path):
            out.append(os.path.getmtime(path))
    return out
