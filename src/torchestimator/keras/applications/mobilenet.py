"""`tf.keras.applications.mobilenet`: the MobileNet model and its input preprocessing."""

from torchestimator.keras.applications._mobilenet import (
    MobileNet,
    decode_predictions,
    preprocess_input,
)

__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]
