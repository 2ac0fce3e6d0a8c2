"""`tf.keras.layers`: the layer library, each layer a `torch.nn.Module` that builds lazily."""

from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_layer import Input, InputLayer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.layers.activation import *  # noqa: F403
from torchestimator.keras.layers.attention import *  # noqa: F403
from torchestimator.keras.layers.convolutional import *  # noqa: F403
from torchestimator.keras.layers.core import *  # noqa: F403
from torchestimator.keras.layers.merging import *  # noqa: F403
from torchestimator.keras.layers.normalization import *  # noqa: F403
from torchestimator.keras.layers.pooling import *  # noqa: F403
from torchestimator.keras.layers.preprocessing import *  # noqa: F403
from torchestimator.keras.layers.regularization import *  # noqa: F403
from torchestimator.keras.layers.reshaping import *  # noqa: F403
from torchestimator.keras.layers.rnn import *  # noqa: F403


def __getattr__(name: str):
    # Feature-column layers live with the feature columns; loaded on first use.
    if name == "DenseFeatures":
        from torchestimator.feature_column import DenseFeatures

        return DenseFeatures
    if name == "experimental":  # tf.keras.layers.experimental.SyncBatchNormalization
        import importlib

        return importlib.import_module("torchestimator.keras.layers.experimental")
    raise AttributeError(f"module 'torchestimator.keras.layers' has no attribute {name!r}")
