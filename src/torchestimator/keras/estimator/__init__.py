"""`tf.keras.estimator`: `model_to_estimator`, a compiled Keras model as an Estimator."""

from torchestimator.keras.estimator._model_to_estimator import model_to_estimator
