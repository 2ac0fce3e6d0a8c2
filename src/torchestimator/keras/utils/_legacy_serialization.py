"""`tf.keras.utils.legacy`: Keras 2's legacy (pre-`.keras`) object serialization format.

A legacy config is `{"class_name": name, "config": {...}}`; objects nested in a config are
serialized the same way and marked `"__passive_serialization__": True`. Names are resolved
only among the package's own objects, `module_objects` and the user's registered ones:
nothing is imported from a module named in the config.
"""

from __future__ import annotations

import inspect
from typing import Any

from torchestimator.keras import _registry


def serialize_keras_object(instance: Any) -> Any:
    """Serialize a Keras object into a JSON-compatible representation (legacy format).

    Args:
        instance: an object with `get_config()`, a function (serialized to its registered
            name) or None.

    Returns:
        `{"class_name": ..., "config": ...}` for objects, the registered name for functions,
        None for None. Raises ValueError for anything else.
    """
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        config = instance.get_config()
        serialization_config: dict[str, Any] = {}
        for key, item in config.items():
            if isinstance(item, str):
                serialization_config[key] = item
                continue
            try:
                serialized_item = serialize_keras_object(item)
                if isinstance(serialized_item, dict) and not isinstance(item, dict):
                    serialized_item["__passive_serialization__"] = True
                serialization_config[key] = serialized_item
            except ValueError:
                serialization_config[key] = item
        name = _registry.get_registered_name(type(instance))
        return {"class_name": name, "config": serialization_config}
    if hasattr(instance, "__name__"):
        return _registry.get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance} because it doesn't implement `get_config()`.")


def _lookup(name: Any, custom_objects: dict | None, module_objects: dict | None) -> Any:
    found = _registry.get_user_object(name, custom_objects)
    if found is None and module_objects and isinstance(name, str):
        found = module_objects.get(name)
    if found is None:
        found = _registry.get_builtin_object(name)
    return found


def deserialize_keras_object(
    identifier: Any,
    module_objects: dict[str, Any] | None = None,
    custom_objects: dict[str, Any] | None = None,
    printable_module_name: str = "object",
) -> Any:
    """Turns the legacy serialized form of a Keras object back into an actual object.

    Args:
        identifier: the serialized form of the object (a config dict, a name, or None).
        module_objects: a dictionary of built-in objects to look the name up in.
        custom_objects: a dictionary of custom objects to look the name up in.
        printable_module_name: a human-readable string representing the type of the object,
            used in error messages.

    Returns:
        The deserialized object (None for None; a callable `identifier` is returned as is).
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(
                f"Improper config format for {identifier}. Expecting python dict contains "
                "`class_name` and `config` as keys"
            )
        class_name = identifier["class_name"]
        cls = _lookup(class_name, custom_objects, module_objects)
        if cls is None:
            raise ValueError(
                f"Unknown {printable_module_name}: '{class_name}'. Please ensure you are using a "
                "`keras.utils.custom_object_scope` and that this object is included in the scope."
            )
        _registry.check_not_gadget(cls, f"{printable_module_name} {class_name!r}")
        cls_config = identifier["config"]
        if isinstance(cls_config, dict):
            cls_config = dict(cls_config)
            for key, item in list(cls_config.items()):
                if key == "name":
                    continue
                if isinstance(item, dict) and "__passive_serialization__" in item:
                    item = {k: v for k, v in item.items() if k != "__passive_serialization__"}
                    cls_config[key] = deserialize_keras_object(
                        item, module_objects, custom_objects, "config_item"
                    )
                elif isinstance(item, str):
                    found = _registry.get_user_object(item, custom_objects)
                    if inspect.isfunction(found):
                        cls_config[key] = found
        with _registry.custom_object_scope(custom_objects or {}):
            if hasattr(cls, "from_config"):
                return cls.from_config(cls_config)
            return cls(**cls_config)
    if isinstance(identifier, str):
        found = _lookup(identifier, custom_objects, module_objects)
        if found is None:
            raise ValueError(
                f"Unknown {printable_module_name}: '{identifier}'. Please ensure you are using a "
                "`keras.utils.custom_object_scope` and that this object is included in the scope."
            )
        _registry.check_not_gadget(found, f"{printable_module_name} {identifier!r}")
        return found
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")
