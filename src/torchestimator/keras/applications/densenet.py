"""`tf.keras.applications.densenet`: DenseNet121/169/201 and their input preprocessing."""

from torchestimator.keras.applications._densenet import (
    DenseNet121,
    DenseNet169,
    DenseNet201,
    decode_predictions,
    preprocess_input,
)

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "decode_predictions", "preprocess_input"]
