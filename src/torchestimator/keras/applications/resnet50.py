"""`tf.keras.applications.resnet50`: ResNet50 and its input preprocessing."""

from torchestimator.keras.applications._resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
