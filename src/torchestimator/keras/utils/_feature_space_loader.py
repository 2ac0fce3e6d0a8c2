"""Registers the name `FeatureSpace` for `load_model` before the class is imported.

`FeatureSpace` is a `Layer`, and `keras.utils` is imported while `base_layer` is still
loading, so the package cannot import the class eagerly; this stand-in lets a process that
only loads a saved FeatureSpace find it. Defining the real class replaces the stand-in."""

from __future__ import annotations

from typing import Any

from torchestimator.keras._registry import register_builtin


class _FeatureSpaceLoader:
    """Stand-in registered as `FeatureSpace`: `from_config` imports the real class."""

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """Returns `FeatureSpace.from_config(config)`."""
        from torchestimator.keras.utils._feature_space import (  # lazy: subclass (keras.utils._feature_space.FeatureSpace subclasses Layer, whose module keras.engine.base_layer loads this one first)
            FeatureSpace,
        )

        return FeatureSpace.from_config(config)

    def get_config(self) -> dict:
        """The stand-in has no state; returns {} (never instantiated)."""
        return {}


register_builtin(_FeatureSpaceLoader, name="FeatureSpace")
