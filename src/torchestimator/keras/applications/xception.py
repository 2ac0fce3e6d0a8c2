"""`tf.keras.applications.xception`: the Xception model and its input preprocessing."""

from torchestimator.keras.applications._xception import (
    Xception,
    decode_predictions,
    preprocess_input,
)

__all__ = ["Xception", "decode_predictions", "preprocess_input"]
