"""`tf.train`: object-based checkpoints, checkpoint utilities and the global step."""

from torchestimator._engine.checkpoint import latest_checkpoint, list_variables, load_variable
from torchestimator.train._checkpoint import Checkpoint, CheckpointManager, CheckpointOptions
from torchestimator.train._cluster_spec import ClusterSpec
from torchestimator.train._global_step import get_global_step, get_or_create_global_step
