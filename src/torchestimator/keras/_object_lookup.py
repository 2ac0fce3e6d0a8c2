"""Name resolution shared by `activations`, `initializers`, `regularizers`, `constraints`.

Each of those modules keeps its own table of built-in names (so `"Identity"` is
the initializer inside `initializers.get`, whatever else shares the name in the
global registry). A name is looked up, in order, in the explicit
`custom_objects`, the module's own table, then the objects registered with
`tf.keras.saving.register_keras_serializable` or made visible by
`custom_object_scope`. Built-ins of *other* modules are never returned.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from torchestimator.keras import _registry


def lookup_object(
    name: str,
    builtins: Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None,
    kind: str,
    shared_builtins: Collection[str] = (),
) -> Any:
    """Returns the object called `name` for a module of objects of `kind`.

    `shared_builtins` names globally registered built-ins of other modules that
    this module also accepts (activation layers such as "LeakyReLU" are valid
    activations). Raises ValueError naming the unknown `name`, listing the known built-in
    names and saying how to make a custom object known.
    """
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in builtins:
        return builtins[name]
    found = _registry.get_registered_object(name)
    if found is not None and (
        name in shared_builtins or found is not _registry._BUILTIN.get(name)
    ):
        return found
    raise ValueError(
        f"Unknown {kind}: {name!r}. Known built-in {kind}s: {', '.join(sorted(builtins))}. "
        f"To use a custom {kind}, pass it in `custom_objects`, use "
        "tf.keras.saving.custom_object_scope(), or decorate it with "
        "tf.keras.saving.register_keras_serializable()."
    )


def class_and_config(config: Mapping[str, Any], kind: str) -> tuple[str, Any]:
    """Splits a `{"class_name": ..., "config": ...}` dict into the name to look up and its config.

    The name is `registered_name` when present and not None (Keras 2.15's
    format writes `"Custom>Name"` there for registered objects), else `class_name`.
    """
    if "class_name" not in config:
        raise ValueError(
            f"Cannot deserialize {kind} from {dict(config)!r}: a config dict needs a "
            "'class_name' key (and usually 'config'), as written by serialize()."
        )
    registered = config.get("registered_name")
    class_name = config["class_name"]
    name = class_name if registered in (None, class_name) else registered
    return name, config.get("config", {})


def resolve_config_class(
    config: Mapping[str, Any],
    builtins: Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None,
    kind: str,
    shared_builtins: Collection[str] = (),
) -> tuple[Any, Any]:
    """Returns `(class_or_function, inner_config)` for a serialized config dict.

    Tries `registered_name`, then falls back to the plain `class_name`.
    """
    name, inner = class_and_config(config, kind)
    try:
        return lookup_object(name, builtins, custom_objects, kind, shared_builtins), inner
    except ValueError:
        if name == config["class_name"]:
            raise
        found = lookup_object(config["class_name"], builtins, custom_objects, kind, shared_builtins)
        return found, inner


def instantiate(obj: Any, inner: Any) -> Any:
    """A class found for a config becomes an instance (through `from_config` when it has one,
    else its constructor); a function or instance is returned as it is."""
    if isinstance(obj, type):
        if hasattr(obj, "from_config"):
            return obj.from_config(dict(inner or {}))
        return obj(**(inner or {}))
    return obj


def deserialize_from_table(
    config: Any, builtins: Mapping[str, Any], custom_objects: Mapping[str, Any] | None, kind: str
) -> Any:
    """Deserializes a `kind` (an initializer, a constraint) from a name or a config dict, looking
    names up in the module's `builtins` table. Raises ValueError for anything else."""
    if isinstance(config, str):
        config = {"class_name": config, "config": {}}
    if not isinstance(config, Mapping):
        raise ValueError(
            f"Could not interpret {kind} identifier: {config!r}; expected a name or a "
            "serialized config dict."
        )
    obj, inner = resolve_config_class(config, builtins, custom_objects, kind)
    return instantiate(obj, inner)
