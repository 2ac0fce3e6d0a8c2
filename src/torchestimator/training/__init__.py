"""`tf.training` (and `tf.contrib.training`): `HParams`, the hyperparameters passed to a
`model_fn` as `params`."""

from torchestimator.training._hparam import HParams, parse_values
