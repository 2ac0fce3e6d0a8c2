"""`tf.keras.utils.legacy`: the legacy (Keras 2 / h5) `serialize_keras_object` and
`deserialize_keras_object`."""

from torchestimator.keras.utils._legacy_serialization import (
    deserialize_keras_object,
    serialize_keras_object,
)

__all__ = ["deserialize_keras_object", "serialize_keras_object"]
