"""`tf.keras.applications.vgg16`: the VGG16 model and its input preprocessing."""

from torchestimator.keras.applications._vgg import VGG16, decode_predictions, preprocess_input

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]
