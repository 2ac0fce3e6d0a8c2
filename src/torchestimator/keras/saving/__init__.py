"""`tf.keras.saving`: saving models and weights, registering custom objects."""

from torchestimator.keras._registry import (
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    in_safe_mode,
    register_keras_serializable,
    safe_mode_scope,
    serialize_keras_object,
)
from torchestimator.keras.saving.saving_lib import load_model, save_model
from torchestimator.keras.utils._custom_objects import get_custom_objects  # noqa: E402 (after the names utils imports)
