"""`tf.keras.applications.resnet`: ResNet50/101/152 and their input preprocessing."""

from torchestimator.keras.applications._resnet import (
    ResNet50,
    ResNet101,
    ResNet152,
    decode_predictions,
    preprocess_input,
)

__all__ = ["ResNet101", "ResNet152", "ResNet50", "decode_predictions", "preprocess_input"]
