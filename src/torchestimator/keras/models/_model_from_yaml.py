"""`tf.keras.models.model_from_yaml`: removed in TF 2.6; raises as Keras 2.15 does."""

from __future__ import annotations

from typing import Any


def model_from_yaml(yaml_string: Any, custom_objects: dict | None = None) -> Any:
    """Parses a YAML model configuration -- no longer supported (since TF 2.6).

    Raises:
        RuntimeError: always, as Keras 2.15: the method posed a security risk.
    """
    raise RuntimeError(
        "Method `model_from_yaml()` has been removed due to security risk of "
        "arbitrary code execution. Please use `Model.to_json()` and "
        "`model_from_json()` instead."
    )
