"""`tf.audio`: TensorFlow's WAV codec (`decode_wav`, `encode_wav`), 16-bit PCM, over the
stdlib `wave` module; encoded audio is `bytes` (TF's string tensor)."""

from torchestimator.audio._wav import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]
