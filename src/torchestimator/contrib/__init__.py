"""`tf.contrib`: what TF 1's contrib held that TF programs still use here
(`tf.contrib.training.HParams`)."""

from torchestimator.contrib import training
