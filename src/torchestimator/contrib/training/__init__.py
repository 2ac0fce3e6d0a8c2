"""`tf.contrib.training`: `HParams` (the same class as `tf.training.HParams`)."""

from torchestimator.training import HParams, parse_values
