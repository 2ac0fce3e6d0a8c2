"""Moving TensorFlow models here without retraining (see docs/migrating-from-tensorflow.md).

TensorFlow's checkpoints open directly (`tf.train.load_checkpoint`, an Estimator's
`model_dir`, `warm_start_from`); `convert_checkpoint` writes them once in our format.
"""

from torchestimator._tf_formats.convert import convert_checkpoint

__all__ = ["convert_checkpoint"]
