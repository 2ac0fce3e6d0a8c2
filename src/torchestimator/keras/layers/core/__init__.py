"""Keras layers: core (Dense, Activation, Dropout, Flatten, Reshape, Permute, RepeatVector,
Lambda, Embedding, Masking).

`SafeModeScope`, `enable_unsafe_deserialization` and `in_safe_mode` (not layers,
so not in `__all__`) control whether `Lambda` layers saved as source may be loaded.
"""

from torchestimator.keras.layers.core._function_serialization import (
    SafeModeScope,
    enable_unsafe_deserialization,
    in_safe_mode,
)
from torchestimator.keras.layers.core.activation import Activation
from torchestimator.keras.layers.core.dense import Dense
from torchestimator.keras.layers.core.dropout import Dropout
from torchestimator.keras.layers.core.einsum_dense import EinsumDense
from torchestimator.keras.layers.core.embedding import Embedding
from torchestimator.keras.layers.core.flatten import Flatten
from torchestimator.keras.layers.core.identity import Identity
from torchestimator.keras.layers.core.lambda_layer import Lambda
from torchestimator.keras.layers.core.masking import Masking
from torchestimator.keras.layers.core.permute import Permute
from torchestimator.keras.layers.core.repeat_vector import RepeatVector
from torchestimator.keras.layers.core.reshape import Reshape

__all__ = [
    "Activation", "Dense", "Dropout", "EinsumDense", "Embedding", "Flatten", "Identity", "Lambda",
    "Masking", "Permute", "RepeatVector", "Reshape",
]
