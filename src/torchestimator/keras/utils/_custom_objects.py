"""`get_custom_objects`: the live dict of globally registered custom objects."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import _registry


def get_custom_objects() -> dict[str, Any]:
    """Retrieves a live reference to the global dictionary of custom objects.

    Custom objects set using `custom_object_scope` are not added to the global dictionary
    of custom objects, and will not appear in the returned dictionary. Updating and clearing
    custom objects using `custom_object_scope` is preferred, but `get_custom_objects` can be
    used to directly access the current collection of custom objects:
    `get_custom_objects()["MyObject"] = MyObject` makes `MyObject` loadable by name, as
    `register_keras_serializable` does.

    Returns:
        The global dictionary mapping registered class names to classes (the same dict
        `register_keras_serializable` writes into and deserialization reads).
    """
    return _registry._CUSTOM
