"""`tf.keras.dtensor`: TF 2.15 lists `experimental` (`LayoutMap`, DTensor optimizers) here.

DTensor is TensorFlow's mesh runtime and is not provided: the namespaces exist so that
programs importing them get an error naming DTensor and what to use instead
(`tf.distribute` strategies) when they use a name.
"""

from torchestimator.keras.dtensor import experimental

__all__ = ["experimental"]
