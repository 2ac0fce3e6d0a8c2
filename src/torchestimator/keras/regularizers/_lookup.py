"""`get`, `serialize` and `deserialize` for regularizers, and their registration by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from torchestimator.keras import _registry
from torchestimator.keras._object_lookup import (
    instantiate,
    lookup_object,
    resolve_config_class,
)
from torchestimator.keras.regularizers._regularizers import (
    L1,
    L1L2,
    L2,
    OrthogonalRegularizer,
    Regularizer,
    l1_l2,
)

ALL_REGULARIZERS: dict[str, Any] = {
    "Regularizer": Regularizer,
    "L1": L1,
    "L2": L2,
    "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "l1": L1,
    "l2": L2,
    "l1_l2": l1_l2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}
for _name, _obj in ALL_REGULARIZERS.items():
    _registry.register_builtin(_obj, _name)


def serialize(regularizer: Any, use_legacy_format: bool = False) -> Any:
    """Returns the config of a regularizer: `{"class_name": "L2", "config": {"l2": 0.01}, ...}`.

    None serializes to None. `use_legacy_format` is accepted for Keras 2.15
    compatibility and changes nothing.
    """
    del use_legacy_format
    if regularizer is None:
        return None
    return _registry.serialize_keras_object(regularizer)


def deserialize(
    config: str | Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None = None,
    use_legacy_format: bool = False,
) -> Any:
    """Returns a regularizer from its config (as written by `serialize`) or its name.

    A name gives an instance with default arguments: `"l1"` is `L1(0.01)`,
    `"l2"` is `L2(0.01)`, `"l1_l2"` is `L1L2(l1=0.01, l2=0.01)`.
    `use_legacy_format` is accepted for Keras 2.15 compatibility; ignored.

    Raises ValueError naming the unknown regularizer and listing the known names.
    """
    del use_legacy_format
    if isinstance(config, str):
        obj = lookup_object(config, ALL_REGULARIZERS, custom_objects, "regularizer")
        if obj is l1_l2:
            return l1_l2()
        return obj() if isinstance(obj, type) else obj
    if not isinstance(config, Mapping):
        raise ValueError(
            f"Could not interpret regularizer identifier: {config!r}; expected a name or a "
            "serialized config dict."
        )
    obj, inner = resolve_config_class(config, ALL_REGULARIZERS, custom_objects, "regularizer")
    if obj is l1_l2:
        return l1_l2(**(inner or {}))
    return instantiate(obj, inner)


def get(identifier: Any) -> Callable | None:
    """Retrieves a regularizer instance from an identifier.

    Args:
        identifier: None (returns None), a name (`"l2"`), a serialized config
            dict, or a callable (returned as is).

    Returns:
        A regularizer (any callable mapping a weight to a scalar penalty) or None.

    Raises ValueError for an identifier it cannot interpret.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, Mapping)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret regularizer identifier: {identifier!r} (of type "
        f"{type(identifier).__name__}); expected None, a name such as 'l2', a config dict "
        "or a callable."
    )
