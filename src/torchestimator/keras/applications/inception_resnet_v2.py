"""`tf.keras.applications.inception_resnet_v2`: the InceptionResNetV2 model and its input
preprocessing."""

from torchestimator.keras.applications._inception_resnet_v2 import (
    InceptionResNetV2,
    decode_predictions,
    preprocess_input,
)

__all__ = ["InceptionResNetV2", "decode_predictions", "preprocess_input"]
