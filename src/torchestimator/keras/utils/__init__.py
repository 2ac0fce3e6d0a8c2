"""`tf.keras.utils`: `to_categorical`, `normalize`, `set_random_seed`, `get_file`, `Sequence`,
`pad_sequences`, and the
serialization helpers Keras also exposes here (`register_keras_serializable`,
`custom_object_scope`, `serialize_keras_object`, `deserialize_keras_object`, ...)."""

import torchestimator.keras.utils._feature_space_loader  # noqa: F401  (registers FeatureSpace)
from torchestimator.keras._io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from torchestimator.keras.callbacks.progbar import Progbar
from torchestimator.keras.saving import (
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from torchestimator.keras.utils import experimental, legacy
from torchestimator.keras.utils._audio import audio_dataset_from_directory
from torchestimator.keras.utils._custom_objects import get_custom_objects
from torchestimator.keras.utils._data_tuples import pack_x_y_sample_weight, unpack_x_y_sample_weight
from torchestimator.keras.utils._data_utils import Sequence, get_file
from torchestimator.keras.utils._dataset_from_directory import (
    image_dataset_from_directory,
    text_dataset_from_directory,
)
from torchestimator.keras.utils._embedding_utils import warmstart_embedding_matrix
from torchestimator.keras.utils._enqueuers import (
    GeneratorEnqueuer,
    OrderedEnqueuer,
    SequenceEnqueuer,
)
from torchestimator.keras.utils._image_utils import array_to_img, img_to_array, load_img, save_img
from torchestimator.keras.utils._layer_utils import get_source_inputs
from torchestimator.keras.utils._numerical import normalize, to_categorical
from torchestimator.keras.utils._ordinal import to_ordinal
from torchestimator.keras.utils._random_seed import set_random_seed
from torchestimator.keras.utils._sequence_utils import pad_sequences
from torchestimator.keras.utils._sidecar_evaluator import SidecarEvaluator
from torchestimator.keras.utils._spe_tuning import StepsPerExecutionTuner
from torchestimator.keras.utils._split_dataset import split_dataset
from torchestimator.keras.utils._timed_threads import TimedThread
from torchestimator.keras.utils._timeseries import timeseries_dataset_from_array
from torchestimator.keras.utils._vis_utils import model_to_dot, plot_model

CustomObjectScope = custom_object_scope


__all__ = [
    "CustomObjectScope", "Progbar", "custom_object_scope", "deserialize_keras_object", "get_registered_name",
    "get_registered_object", "normalize", "register_keras_serializable", "serialize_keras_object",
    "set_random_seed", "to_categorical",
    "array_to_img", "image_dataset_from_directory", "img_to_array", "load_img", "save_img",
    "text_dataset_from_directory",
    "Sequence", "get_file", "pad_sequences",
    "split_dataset", "timeseries_dataset_from_array",
    "GeneratorEnqueuer", "OrderedEnqueuer", "SequenceEnqueuer",
    "audio_dataset_from_directory",
    "get_custom_objects", "pack_x_y_sample_weight", "unpack_x_y_sample_weight",
    "warmstart_embedding_matrix", "disable_interactive_logging", "enable_interactive_logging",
    "is_interactive_logging_enabled", "get_source_inputs", "to_ordinal", "experimental", "legacy",
    "SidecarEvaluator", "StepsPerExecutionTuner", "TimedThread",
    "model_to_dot", "plot_model",
    "FeatureSpace",
]


def __getattr__(name: str) -> object:
    # FeatureSpace is a Layer: imported on first use, since keras.saving (which base_layer
    # loads) imports this package before base_layer is complete.
    if name == "FeatureSpace":
        from torchestimator.keras.utils._feature_space import (  # lazy: subclass (keras.utils._feature_space.FeatureSpace subclasses Layer, whose module keras.engine.base_layer loads this one first)
            FeatureSpace,
        )

        globals()[name] = FeatureSpace
        return FeatureSpace
    raise AttributeError(f"module 'torchestimator.keras.utils' has no attribute {name!r}")
