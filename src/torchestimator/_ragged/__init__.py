"""Private helpers of `tf.RaggedTensor` (see `torchestimator._ragged_tensor`)."""
