"""`tf.nn.experimental`: TF's experimental dropouts (`stateless_dropout`, `general_dropout`)."""

from torchestimator._ops.nn_ops._nn_extras import general_dropout, stateless_dropout

__all__ = ["general_dropout", "stateless_dropout"]
