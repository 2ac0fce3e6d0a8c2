"""`tf.keras.applications.nasnet`: NASNetMobile / NASNetLarge and their input preprocessing."""

from torchestimator.keras.applications._nasnet import (
    NASNetLarge,
    NASNetMobile,
    decode_predictions,
    preprocess_input,
)

__all__ = ["NASNetLarge", "NASNetMobile", "decode_predictions", "preprocess_input"]
