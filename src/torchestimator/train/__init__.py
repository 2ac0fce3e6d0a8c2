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
from torchestimator.train import _protos
from torchestimator.train._checkpoint import Checkpoint, CheckpointManager, CheckpointOptions
from torchestimator.train._checkpoint_state import get_checkpoint_state
from torchestimator.train._checkpoints_iterator import checkpoints_iterator
from torchestimator.train._cluster_spec import ClusterSpec
from torchestimator.train._coordinator import Coordinator
from torchestimator.train._latest_checkpoint import latest_checkpoint
from torchestimator.train._moving_averages import ExponentialMovingAverage
from torchestimator.train._tf1_global_step import get_global_step, get_or_create_global_step


def __getattr__(name: str) -> Any:
    """Loaded on first use: `ClusterDef` / `JobDef` (TF's message classes, from TensorBoard)."""
    if name in ("ClusterDef", "JobDef"):
        return _protos.train_proto(name)
    raise AttributeError(f"module 'torchestimator.train' has no attribute {name!r}")
