"""`get`, `serialize` and `deserialize` for constraints, and their registration by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from torchestimator.keras import _registry
from torchestimator.keras._object_lookup import deserialize_from_table
from torchestimator.keras.constraints._constraints import (
    Constraint,
    MaxNorm,
    MinMaxNorm,
    NonNeg,
    RadialConstraint,
    UnitNorm,
)

ALL_CONSTRAINTS: dict[str, type[Constraint]] = {
    "Constraint": Constraint,
    "MaxNorm": MaxNorm,
    "MinMaxNorm": MinMaxNorm,
    "NonNeg": NonNeg,
    "RadialConstraint": RadialConstraint,
    "UnitNorm": UnitNorm,
    "max_norm": MaxNorm,
    "min_max_norm": MinMaxNorm,
    "non_neg": NonNeg,
    "radial_constraint": RadialConstraint,
    "unit_norm": UnitNorm,
}
for _name, _cls in ALL_CONSTRAINTS.items():
    _registry.register_builtin(_cls, _name)
# Names of Keras 1 configs.
ALL_CONSTRAINTS.update({"maxnorm": MaxNorm, "nonneg": NonNeg, "unitnorm": UnitNorm})


def serialize(constraint: Any, use_legacy_format: bool = False) -> Any:
    """Returns the config of a constraint: `{"class_name": "MaxNorm", "config": {...}, ...}`.

    None serializes to None. `use_legacy_format` is accepted for Keras 2.15
    compatibility and changes nothing.
    """
    del use_legacy_format
    if constraint is None:
        return None
    return _registry.serialize_keras_object(constraint)


def deserialize(
    config: str | Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None = None,
    use_legacy_format: bool = False,
) -> Any:
    """Returns a constraint from its config (as written by `serialize`) or its name.

    A name gives an instance with default arguments (`"max_norm"` is
    `MaxNorm(max_value=2, axis=0)`). `use_legacy_format` is accepted for Keras
    2.15 compatibility; ignored.

    Raises ValueError naming the unknown constraint and listing the known names.
    """
    del use_legacy_format
    return deserialize_from_table(config, ALL_CONSTRAINTS, custom_objects, "constraint")


def get(identifier: Any) -> Callable | None:
    """Retrieves a Keras constraint function.

    Args:
        identifier: None (returns None), a name (`"non_neg"`), a serialized
            config dict, or a callable (returned as is).

    Returns:
        A constraint (any callable mapping a weight to the constrained weight) or None.

    Raises ValueError for an identifier it cannot interpret.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, Mapping)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret constraint function identifier: {identifier!r} (of type "
        f"{type(identifier).__name__}); expected None, a name such as 'max_norm', a config dict "
        "or a callable."
    )
