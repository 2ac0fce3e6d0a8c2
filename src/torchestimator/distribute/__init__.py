"""`tf.distribute`: distribution strategies on `torch.distributed`.

One process is one replica (DistributedDataParallel's model): start a program with
`torchrun` / `torchestimator launch`, or under a `TF_CONFIG` cluster, and the
strategies average the replicas' gradients so that every replica applies the same
update. `RunConfig(train_distribute=..., eval_distribute=...)` distributes an
Estimator; `with strategy.scope(): model.compile(...)` a Keras model.
"""

from torchestimator.distribute import cluster_resolver, experimental
from torchestimator.distribute._cross_device_ops import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    ReductionToOneDevice,
    Server,
    coordinator,
    experimental_set_strategy,
)
from torchestimator.distribute._distributed_dataset import (
    DistributedDataset,
    DistributedDatasetsFromFunction,
)
from torchestimator.distribute._distributed_values import (
    DistributedIterator,
    DistributedValues,
    RunOptions,
)
from torchestimator.distribute._input_context import (
    InputContext,
    InputOptions,
    InputReplicationMode,
)
from torchestimator.distribute._reduce_op import ReduceOp
from torchestimator.distribute._strategies import (
    MirroredStrategy,
    MultiWorkerMirroredStrategy,
    OneDeviceStrategy,
    ParameterServerStrategy,
    TPUStrategy,
)
from torchestimator.distribute._strategy import (
    ReplicaContext,
    Strategy,
    StrategyExtended,
    get_cross_replica_context,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)

__all__ = [
    "CrossDeviceOps",
    "DistributedIterator",
    "DistributedValues",
    "HierarchicalCopyAllReduce",
    "NcclAllReduce",
    "ParameterServerStrategy",
    "ReductionToOneDevice",
    "RunOptions",
    "Server",
    "coordinator",
    "experimental_set_strategy",
    "DistributedDataset",
    "DistributedDatasetsFromFunction",
    "InputContext",
    "InputOptions",
    "InputReplicationMode",
    "MirroredStrategy",
    "MultiWorkerMirroredStrategy",
    "OneDeviceStrategy",
    "ReduceOp",
    "ReplicaContext",
    "Strategy",
    "StrategyExtended",
    "TPUStrategy",
    "cluster_resolver",
    "experimental",
    "get_cross_replica_context",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]
