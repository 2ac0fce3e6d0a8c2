"""`tf.keras.applications.efficientnet`: EfficientNetB0-B7 and their (identity) input
preprocessing."""

from torchestimator.keras.applications._efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
    decode_predictions,
    preprocess_input,
)

__all__ = ["EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
           "decode_predictions", "preprocess_input"]
