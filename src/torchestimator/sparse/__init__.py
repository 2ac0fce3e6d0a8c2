"""`tf.sparse`: `SparseTensor` and conversions to and from dense tensors."""

from torchestimator._sparse_tensor import SparseTensor, from_dense, to_dense
