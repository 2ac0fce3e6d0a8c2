"""`tf.train`: object-based checkpoints, checkpoint utilities and the global step."""

from torchestimator._engine.checkpoint import latest_checkpoint, list_variables, load_variable
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
from torchestimator.train._cluster_spec import ClusterSpec
from torchestimator.train._global_step import get_global_step, get_or_create_global_step
