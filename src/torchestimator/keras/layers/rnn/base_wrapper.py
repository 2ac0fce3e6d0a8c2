"""`Wrapper`: the abstract base of layers that wrap another layer."""

from __future__ import annotations

import copy
from typing import Any

from torchestimator.keras._registry import (
    deserialize_keras_object,
    serialize_keras_object,
)
from torchestimator.keras.engine.base_layer import Layer


class Wrapper(Layer):
    """Abstract wrapper base class.

    Wrappers take another layer and augment it in various ways. Do not use
    this class as a layer, it is only an abstract base class; two usable
    wrappers are `TimeDistributed` and `Bidirectional`.

    Args:
        layer: The layer to be wrapped.

    Raises:
        ValueError: if `layer` is not a Keras layer.
    """

    def __init__(self, layer: Layer, **kwargs: Any):
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Layer {layer!r} supplied to wrapper is not a supported layer type. Please "
                "ensure wrapped layer is a valid Keras layer."
            )
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape: Any = None) -> None:
        """Builds the wrapped layer (if it is not built yet)."""
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def get_config(self) -> dict:
        """Returns the base layer's config with the serialized wrapped layer under `layer`."""
        config = super().get_config()
        config["layer"] = serialize_keras_object(self.layer)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Wrapper:
        """Creates the wrapper from `get_config()`'s output (the wrapped layer is deserialized
        through the registry)."""
        config = copy.deepcopy(config)
        layer = deserialize_keras_object(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)
