"""`tf.sets`: `intersection`, `union`, `difference` and `size` of the sets along the last
dimension of dense or sparse tensors."""

from torchestimator._ops.set_ops import difference, intersection, size, union

__all__ = ["difference", "intersection", "size", "union"]
