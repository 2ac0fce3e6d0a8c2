"""`tf.distribute.cluster_resolver`: where the tasks of a training cluster are."""

from torchestimator.distribute.cluster_resolver._resolvers import (
    ClusterResolver,
    SimpleClusterResolver,
    TFConfigClusterResolver,
)

__all__ = ["ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver"]
