"""`tf.ragged`: ops on `tf.RaggedTensor` (tensors whose rows have different lengths).

    rt = tf.ragged.constant([[1, 2], [3]])
    tf.ragged.range([3, 1])                       # [[0, 1, 2], [0]]
    tf.ragged.map_flat_values(tf.ones_like, rt)   # [[1, 1], [1]]
"""

from torchestimator._ragged._ops import (
    boolean_mask,
    constant,
    cross,
    cross_hashed,
    map_flat_values,
    range,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack,
    stack_dynamic_partitions,
)

__all__ = [
    "boolean_mask", "constant", "cross", "cross_hashed",
    "map_flat_values", "range", "row_splits_to_segment_ids", "segment_ids_to_row_splits",
    "stack", "stack_dynamic_partitions",
]
