"""`tf.keras.saving`: saving models and weights, registering custom objects."""

from torchestimator.keras.saving._registry import (
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

# An export's preprocessing layers are stored as Keras configs: saved_model (below keras) reads
# and writes them with the functions registered here (saved_model/_layout.py's docstring).
from torchestimator.saved_model import _layout as _export_layout  # noqa: E402

_export_layout.register_layer_codec(serialize_keras_object, deserialize_keras_object,
                                    get_registered_object)

# Feature columns (below keras) store their normalizers and initializers as Keras configs with
# the functions registered here (feature_column/serialization.py's docstring).
from torchestimator.feature_column import serialization as _fc_serialization  # noqa: E402

_fc_serialization.register_object_codec(serialize_keras_object, deserialize_keras_object,
                                        get_registered_object)
