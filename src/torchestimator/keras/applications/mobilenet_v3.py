"""`tf.keras.applications.mobilenet_v3`: MobileNetV3Small/Large and their (identity) input
preprocessing."""

from torchestimator.keras.applications._mobilenet_v3 import (
    MobileNetV3Large,
    MobileNetV3Small,
    decode_predictions,
    preprocess_input,
)

__all__ = ["MobileNetV3Large", "MobileNetV3Small", "decode_predictions", "preprocess_input"]
