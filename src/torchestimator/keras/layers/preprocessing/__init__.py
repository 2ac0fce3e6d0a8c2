"""Keras layers: preprocessing — `Rescaling`, `Normalization`, `CategoryEncoding`, `Hashing`,
`StringLookup`, `IntegerLookup`. Layers with `adapt(data)` learn their state from data."""

from torchestimator.keras.layers.preprocessing.category_encoding import CategoryEncoding
from torchestimator.keras.layers.preprocessing.discretization import Discretization
from torchestimator.keras.layers.preprocessing.hashed_crossing import HashedCrossing
from torchestimator.keras.layers.preprocessing.hashing import Hashing
from torchestimator.keras.layers.preprocessing.integer_lookup import IntegerLookup
from torchestimator.keras.layers.preprocessing.normalization import Normalization
from torchestimator.keras.layers.preprocessing.rescaling import Rescaling
from torchestimator.keras.layers.preprocessing.string_lookup import StringLookup
from torchestimator.keras.layers.preprocessing.text_vectorization import TextVectorization

__all__ = [
    "CategoryEncoding", "Hashing", "IntegerLookup", "Normalization", "Rescaling", "StringLookup",
    "Discretization", "HashedCrossing", "TextVectorization",
]
