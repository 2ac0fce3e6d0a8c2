"""`tf.keras.preprocessing.sequence`: `pad_sequences` (the same function as
`tf.keras.utils.pad_sequences`)."""

from torchestimator.keras.utils._sequence_utils import pad_sequences

__all__ = ["pad_sequences"]
