"""`tf.keras.applications.mobilenet_v2`: the MobileNetV2 model and its input preprocessing."""

from torchestimator.keras.applications._mobilenet_v2 import (
    MobileNetV2,
    decode_predictions,
    preprocess_input,
)

__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]
