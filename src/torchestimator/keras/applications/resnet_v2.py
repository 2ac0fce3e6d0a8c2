"""`tf.keras.applications.resnet_v2`: ResNet50V2/101V2/152V2 and their input preprocessing."""

from torchestimator.keras.applications._resnet import (
    ResNet50V2,
    ResNet101V2,
    ResNet152V2,
    decode_predictions,
)
from torchestimator.keras.applications._resnet import preprocess_input_v2 as preprocess_input

__all__ = ["ResNet101V2", "ResNet152V2", "ResNet50V2", "decode_predictions", "preprocess_input"]
