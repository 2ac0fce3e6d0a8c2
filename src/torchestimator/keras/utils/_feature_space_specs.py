"""`Feature` and `Cross`: the specifications a `FeatureSpace` is built from (Keras 2.15).

A `Feature` pairs an input dtype with a preprocessing layer and an output mode; a `Cross`
names features to hash together. Both serialize to plain configs (`get_config`)."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import _registry


class Cross:
    """A feature cross: `feature_names` hashed together into `crossing_dim` bins.

    `output_mode` is "one_hot" (the default, a multi-hot vector of size `crossing_dim`)
    or "int" (the bin index). `name` is the feature names joined by "_X_"."""

    def __init__(self, feature_names: Any, crossing_dim: int, output_mode: str = "one_hot"):
        if output_mode not in {"int", "one_hot"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of {'int', 'one_hot'}. "
                f"Received: output_mode={output_mode}"
            )
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        """The cross's name: its feature names joined by "_X_"."""
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict:
        """Returns the constructor arguments."""
        return {"feature_names": list(self.feature_names), "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict) -> Cross:
        """Returns a `Cross` made from `get_config()`'s output."""
        return cls(**config)


class Feature:
    """One feature of a `FeatureSpace`: its input `dtype` ("float32", "int64" or "string"),
    the `preprocessor` layer applied to it and its `output_mode` ("int", "one_hot" or
    "float"). `preprocessor` may also be a serialized layer config."""

    def __init__(self, dtype: str, preprocessor: Any, output_mode: str):
        if output_mode not in {"int", "one_hot", "float"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of "
                f"{{'int', 'one_hot', 'float'}}. Received: output_mode={output_mode}"
            )
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = _registry.deserialize_keras_object(preprocessor)
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict:
        """Returns the constructor arguments, the preprocessor serialized."""
        return {"dtype": self.dtype,
                "preprocessor": _registry.serialize_keras_object(self.preprocessor),
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict) -> Feature:
        """Returns a `Feature` made from `get_config()`'s output."""
        return cls(**config)


def deserialize_spec(config: Any, kind: type) -> Any:
    """Returns the `Feature`/`Cross` (`kind`) a serialized `{"class_name", "config"}` describes;
    other configs go through the Keras registry."""
    if isinstance(config, dict) and config.get("class_name") == kind.__name__:
        return kind.from_config(config.get("config", {}))
    return _registry.deserialize_keras_object(config)
