"""`tf.sparse`: `SparseTensor`, conversions to and from dense tensors, and sparse ops."""

from torchestimator._sparse_tensor import SparseTensor, from_dense
from torchestimator.sparse._ops import (
    add,
    concat,
    expand_dims,
    eye,
    fill_empty_rows,
    map_values,
    maximum,
    minimum,
    reduce_max,
    reduce_sum,
    reorder,
    reset_shape,
    reshape,
    retain,
    segment_mean,
    segment_sqrt_n,
    segment_sum,
    slice,
    softmax,
    sparse_dense_matmul,
    split,
    to_dense,
    to_indicator,
    transpose,
)

__all__ = [
    "SparseTensor", "add", "concat", "expand_dims", "eye", "fill_empty_rows", "from_dense",
    "map_values", "maximum", "minimum", "reduce_max", "reduce_sum", "reorder", "reset_shape",
    "reshape", "retain", "segment_mean", "segment_sqrt_n", "segment_sum", "slice", "softmax",
    "sparse_dense_matmul", "split", "to_dense", "to_indicator", "transpose",
]
