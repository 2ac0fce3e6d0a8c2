"""`tf.train`: object-based checkpoints, checkpoint utilities and the global step."""

from typing import Any

from torchestimator._engine.checkpoint import list_variables, load_variable
from torchestimator._tf_formats.checkpoint_reader import load_checkpoint
from torchestimator.io._example_proto import (
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)
from torchestimator.train._checkpoint import Checkpoint, CheckpointManager, CheckpointOptions
from torchestimator.train._checkpoints_iterator import checkpoints_iterator
from torchestimator.train._cluster_spec import ClusterSpec
from torchestimator.train._coordinator import Coordinator
from torchestimator.train._latest_checkpoint import latest_checkpoint
from torchestimator.train._moving_averages import ExponentialMovingAverage


def __getattr__(name: str) -> Any:
    """Loaded on first use (they live with TF1's names, which import this package):
    `ClusterDef` / `JobDef` (TF's message classes), `get_checkpoint_state`, and the global step
    (`get_global_step`, `get_or_create_global_step`: the Estimator's inside a model_fn, else
    TF1's `global_step` variable, which tf.compat.v1.train.create_global_step and
    MonitoredSession create)."""
    if name in ("ClusterDef", "JobDef"):
        from torchestimator.compat.v1._train_protos import (  # lazy: upward dependency (train → compat), loaded when used
            train_proto,
        )

        return train_proto(name)
    if name == "get_checkpoint_state":
        from torchestimator.compat.v1._checkpoint_state import (  # lazy: upward dependency (train → compat), loaded when used
            get_checkpoint_state,
        )

        return get_checkpoint_state
    if name in ("get_global_step", "get_or_create_global_step"):
        from torchestimator.compat.v1 import (  # lazy: compat.v1._train_global_step imports this module at load time
            _train_global_step,
        )

        return getattr(_train_global_step, name)
    raise AttributeError(f"module 'torchestimator.train' has no attribute {name!r}")
