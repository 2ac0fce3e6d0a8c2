"""`InputContext`: what an input function needs to know to feed one worker of a cluster
(`tf.distribute.InputContext`), and `InputOptions` / `InputReplicationMode`."""

from __future__ import annotations

import enum
from typing import Any


class InputReplicationMode(enum.Enum):
    """How an input function is replicated: `PER_WORKER` (once per worker, TF's default and
    the only mode here: one process is one worker with one replica), `PER_REPLICA`."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputContext:
    """A class wrapping information needed by an input function.

    It is passed to the `input_fn` given to `distribute_datasets_from_function`
    (and to an Estimator's `input_fn` that declares `input_context`) so that it can
    shard its input and choose its per-replica batch size:

        def input_fn(input_context):
            batch_size = input_context.get_per_replica_batch_size(global_batch_size)
            d = tf.data.Dataset.from_tensor_slices(...).batch(batch_size)
            return d.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    """

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1) -> None:
        for name, value, low in (("num_input_pipelines", num_input_pipelines, 1),
                                 ("input_pipeline_id", input_pipeline_id, 0),
                                 ("num_replicas_in_sync", num_replicas_in_sync, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"InputContext: {name} must be an integer >= {low}; received {value!r}.")
        if input_pipeline_id >= num_input_pipelines:
            raise ValueError(
                f"InputContext: input_pipeline_id must be < num_input_pipelines ({num_input_pipelines}); "
                f"received {input_pipeline_id}."
            )
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        """Returns the number of compute replicas in sync."""
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        """Returns the input pipeline ID (this worker's index among the input pipelines)."""
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        """Returns the number of input pipelines (one per worker)."""
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """Returns the per-replica batch size.

        Raises ValueError if `global_batch_size` is not divisible by `num_replicas_in_sync`.
        """
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                f"`num_replicas_in_sync` {self._num_replicas_in_sync!r}"
            )
        return global_batch_size // self._num_replicas_in_sync

    def __repr__(self) -> str:
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")


class InputOptions:
    """Options for `experimental_distribute_dataset` / `distribute_datasets_from_function`
    (`tf.distribute.InputOptions`). Accepted for compatibility; batches are placed on the
    replica's device by the training loop whatever `experimental_fetch_to_device` says."""

    def __init__(self, experimental_fetch_to_device: bool | None = None,
                 experimental_replication_mode: InputReplicationMode = InputReplicationMode.PER_WORKER,
                 experimental_place_dataset_on_device: bool = False,
                 experimental_per_replica_buffer_size: int = 1, **kwargs: Any) -> None:
        self.experimental_fetch_to_device = experimental_fetch_to_device
        self.experimental_replication_mode = experimental_replication_mode
        self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
        self.experimental_per_replica_buffer_size = experimental_per_replica_buffer_size
