"""`tf.keras.applications.imagenet_utils`: ImageNet preprocessing and prediction decoding."""

from torchestimator.keras.applications._imagenet_utils import decode_predictions, preprocess_input

__all__ = ["decode_predictions", "preprocess_input"]
