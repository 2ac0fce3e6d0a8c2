"""`get`, `serialize` and `deserialize` for initializers, and their registration by name.

Every class is known by its class name (`"GlorotUniform"`) and its
snake_case alias (`"glorot_uniform"`), as in Keras 2.15.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from torchestimator.keras import _registry
from torchestimator.keras._object_lookup import deserialize_from_table
from torchestimator.keras.initializers._base import Initializer
from torchestimator.keras.initializers._constant import Constant, Identity, Ones, Zeros
from torchestimator.keras.initializers._random import (
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
)
from torchestimator.keras.initializers._variance_scaling import (
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
    VarianceScaling,
)

_CLASSES: dict[str, type[Initializer]] = {
    "constant": Constant,
    "glorot_normal": GlorotNormal,
    "glorot_uniform": GlorotUniform,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
    "identity": Identity,
    "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform,
    "ones": Ones,
    "orthogonal": Orthogonal,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling,
    "zeros": Zeros,
}

ALL_INITIALIZERS: dict[str, type[Initializer]] = {}
for _alias, _cls in _CLASSES.items():
    ALL_INITIALIZERS[_cls.__name__] = _cls
    ALL_INITIALIZERS[_alias] = _cls
    # Keras 2.x also wrote these names into saved configs.
    ALL_INITIALIZERS[f"{_cls.__name__}V2"] = _cls
for _name, _cls in ALL_INITIALIZERS.items():
    _registry.register_builtin(_cls, _name)
# Aliases Keras 1 / tf.keras 1.x configs used.
ALL_INITIALIZERS.update({"normal": RandomNormal, "uniform": RandomUniform, "one": Ones, "zero": Zeros})


def serialize(initializer: Any, use_legacy_format: bool = False) -> Any:
    """Returns the configuration of an initializer: `{"class_name", "config", ...}`.

    None serializes to None. `use_legacy_format` is accepted for Keras 2.15
    compatibility and changes nothing.
    """
    del use_legacy_format
    if initializer is None:
        return None
    return _registry.serialize_keras_object(initializer)


def deserialize(
    config: str | Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None = None,
    use_legacy_format: bool = False,
) -> Any:
    """Returns an initializer object from its config (or from a name).

    Args:
        config: A dict as written by `serialize` (`{"class_name": "GlorotUniform",
            "config": {"seed": None}}`), or a name (`"glorot_uniform"`, which
            gives an instance with default arguments).
        custom_objects: Optional dict of names to custom initializer classes or functions.
        use_legacy_format: Accepted for Keras 2.15 compatibility; ignored.

    Returns:
        An initializer instance (or a custom initializer function).

    Raises ValueError naming the unknown initializer and listing the known names.
    """
    del use_legacy_format
    return deserialize_from_table(config, ALL_INITIALIZERS, custom_objects, "initializer")


def get(identifier: Any) -> Callable | None:
    """Retrieves a Keras initializer by the identifier.

    Args:
        identifier: None (returns None), a name (`"he_normal"`: an instance with
            default arguments), a serialized config dict, an initializer class
            (instantiated with no arguments) or any callable (returned as is).

    Returns:
        An initializer instance, a callable, or None.

    Raises ValueError for an identifier it cannot interpret.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, Mapping)):
        return deserialize(identifier)
    if callable(identifier):
        if isinstance(identifier, type):
            return identifier()
        return identifier
    raise ValueError(
        f"Could not interpret initializer identifier: {identifier!r} (of type "
        f"{type(identifier).__name__}); expected None, a name such as 'glorot_uniform', a "
        "config dict, an initializer class or a callable."
    )
