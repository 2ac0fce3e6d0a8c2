"""`tf.RaggedTensor` and `tf.RaggedTensorSpec` (defined in `torchestimator._ragged`).

TensorFlow's layout: `values` (a torch tensor, a numpy object array for strings, or
another RaggedTensor for more ragged dimensions) partitioned into rows by `row_splits`
(int64 by default, or int32): row `i` is `values[row_splits[i]:row_splits[i + 1]]`.

    rt = tf.RaggedTensor.from_row_splits([1, 2, 3, 4, 5, 6], [0, 2, 3, 3, 6])
    rt.to_list()    # [[1, 2], [3], [], [4, 5, 6]]
    rt.to_tensor()  # [[1, 2, 0], [3, 0, 0], [0, 0, 0], [4, 5, 6]]
"""

from torchestimator._ragged._spec import RaggedTensorSpec
from torchestimator._ragged._tensor import RaggedTensor, is_ragged

__all__ = ["RaggedTensor", "RaggedTensorSpec", "is_ragged"]
