"""`tf.compat.v1.train`: TF1's optimizers (with TF1's update rules), the global step,
`Scaffold`, the session-run hooks, the learning-rate decays (`exponential_decay`, ...;
see `_learning_rate_decay.py`) and the checkpoint-state functions.

Inside a `model_fn`, `optimizer.minimize(loss, global_step=...)` returns the
train op the Estimator runs (`global_step` is accepted; the Estimator
advances it); `compute_gradients` / `apply_gradients` work as in TF1 (see
`compat/v1/optimizers/_base.py`). Outside a `model_fn` the optimizers run
eagerly.
"""

from __future__ import annotations

from typing import Any

import torchestimator.train as train
from torchestimator._engine.checkpoint import checkpoint_exists
from torchestimator._tf_formats.checkpoint_reader import load_checkpoint  # noqa: F401
from torchestimator.compat.v1 import _train_checkpoint, _train_extras, _train_extras2
from torchestimator.compat.v1._checkpoint_state import (  # noqa: F401
    generate_checkpoint_state_proto,
    get_checkpoint_state,
    update_checkpoint_state,
)
from torchestimator.compat.v1._learning_rate_decay import (  # noqa: F401
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
)
from torchestimator.compat.v1._train_extras import summary_iterator
from torchestimator.compat.v1._train_global_step import (  # noqa: F401
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)
from torchestimator.compat.v1._train_monitored import (  # noqa: F401
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    SessionCreator,
    SingularMonitoredSession,
    WorkerSessionCreator,
    basic_train_loop,
)
from torchestimator.compat.v1._train_protos import train_proto
from torchestimator.compat.v1._train_refusals import refused_train_name
from torchestimator.compat.v1._train_saver import Saver  # noqa: F401
from torchestimator.compat.v1.optimizers import (  # noqa: F401
    AdadeltaOptimizer,
    AdagradOptimizer,
    AdamOptimizer,
    FtrlOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
    RMSPropOptimizer,
)
from torchestimator.compat.v1.optimizers._base import GATE_GRAPH, GATE_NONE, GATE_OP  # noqa: F401
from torchestimator.estimator import hooks
from torchestimator.estimator.warm_starting import VocabInfo
from torchestimator.train._scaffold import Scaffold

_HOOKS = (
    "CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook",
    "GlobalStepWaiterHook", "LoggingTensorHook", "NanLossDuringTrainingError", "NanTensorHook",
    "ProfilerHook", "SecondOrStepTimer", "SessionRunArgs", "SessionRunContext", "SessionRunHook",
    "SessionRunValues", "StepCounterHook", "StopAtStepHook", "SummarySaverHook",
)


# TF 2.15's tf.compat.v1.train also holds the object-based checkpoint API and the readers.
_FROM_TF_TRAIN = (
    "CheckpointManager", "CheckpointOptions", "latest_checkpoint",
    "list_variables", "load_variable", "load_checkpoint", "checkpoint_exists", "ClusterSpec",
    "ExponentialMovingAverage", "checkpoints_iterator", "Coordinator", "BytesList", "Example", "Feature",
    "FeatureList", "FeatureLists", "Features", "FloatList", "Int64List", "SequenceExample",
)


def __getattr__(name: str) -> Any:
    """`tf.compat.v1.train.<Hook>` (the session-run hooks, shared with `tf.estimator`),
    `Scaffold`, and `tf.train`'s checkpoint names, loaded on first use."""
    if name in _HOOKS:
        return getattr(hooks, name)
    if name == "Scaffold":
        return Scaffold
    if name == "checkpoint_exists":  # TF1 only: not in tf.train
        return checkpoint_exists
    if name in ("Checkpoint", "NewCheckpointReader"):  # TF1's own (TF's CheckpointV1: a `session`)
        return _train_checkpoint.CheckpointV1 if name == "Checkpoint" else _train_checkpoint.NewCheckpointReader
    if name in _FROM_TF_TRAIN:
        return getattr(train, name)
    if name in ("ClusterDef", "JobDef", "SaverDef"):
        return train_proto(name)
    if name == "summary_iterator":
        return summary_iterator
    if name in ("replica_device_setter", "remove_checkpoint", "get_checkpoint_mtimes"):
        return getattr(_train_extras, name)
    if name in ("AdagradDAOptimizer", "Optimizer", "ServerDef", "experimental", "init_from_checkpoint", "sdca_fprint",
                "sdca_optimizer", "sdca_shrink_l1", "warm_start"):
        return getattr(_train_extras2, name)
    if name == "VocabInfo":
        return VocabInfo
    refused = refused_train_name(name)
    if refused is not None:
        return refused
    raise AttributeError(f"module 'torchestimator.compat.v1.train' has no attribute {name!r}")
