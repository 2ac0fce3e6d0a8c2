"""`tf.keras.applications.inception_v3`: the InceptionV3 model and its input preprocessing."""

from torchestimator.keras.applications._inception_v3 import (
    InceptionV3,
    decode_predictions,
    preprocess_input,
)

__all__ = ["InceptionV3", "decode_predictions", "preprocess_input"]
