"""`tf.keras.applications.vgg19`: the VGG19 model and its input preprocessing."""

from torchestimator.keras.applications._vgg import VGG19, decode_predictions, preprocess_input

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]
