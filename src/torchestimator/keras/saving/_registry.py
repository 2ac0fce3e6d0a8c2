"""The registry of serializable Keras classes, and (de)serialization of config dicts.

Every built-in layer, initializer, regularizer, optimizer, loss, metric and
callback class registers itself here by class name, so a config dict
`{"class_name": "Dense", "config": {...}}` turns back into an object without
importing the code that wrote it and without unpickling anything.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

_BUILTIN: dict[str, Any] = {}
_CUSTOM: dict[str, Any] = {}
_SCOPE = threading.local()


def register_builtin(obj: Any, name: str | None = None) -> Any:
    """Registers a built-in class or function under `name` (default: its `__name__`)."""
    _BUILTIN[name or obj.__name__] = obj
    return obj


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable:
    """Decorator registering a custom class or function as `package>name` for loading.

    Returns the decorated object unchanged.
    """

    def decorator(obj: Any) -> Any:
        registered = f"{package}>{name or obj.__name__}"
        if isinstance(obj, type) and not hasattr(obj, "get_config"):
            raise ValueError(
                f"Cannot register {obj.__name__}: a class must define get_config() to be serializable"
            )
        _CUSTOM[registered] = obj
        _CUSTOM[name or obj.__name__] = obj
        obj._registered_name = registered
        return obj

    return decorator


@contextlib.contextmanager
def custom_object_scope(*dicts: dict[str, Any]) -> Iterator[None]:
    """Within this scope, `deserialize_keras_object` also finds the objects in `dicts`."""
    previous = getattr(_SCOPE, "objects", {})
    merged = dict(previous)
    for d in dicts:
        merged.update(d or {})
    _SCOPE.objects = merged
    try:
        yield
    finally:
        _SCOPE.objects = previous


# The namespaces whose classes and functions register themselves as built-ins when imported
# (tf.keras loads them on first use): a process that only loads a model has not imported them,
# so deserializing imports them when a name is not found.
_BUILTIN_MODULES = (
    "layers", "optimizers", "losses", "metrics", "activations", "initializers", "regularizers",
    "constraints", "models",
)
_builtins_loaded = False


def _load_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        import importlib

        for name in _BUILTIN_MODULES:
            module = importlib.import_module(f"torchestimator.keras.{name}")
            import_all = getattr(module, "_import_all", None)  # namespaces that load lazily
            if import_all is not None:
                import_all()
        _builtins_loaded = True


def get_registered_object(name: str, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns the class or function registered under `name`, or None."""
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    scoped = getattr(_SCOPE, "objects", {})
    if name in scoped:
        return scoped[name]
    if name in _CUSTOM:
        return _CUSTOM[name]
    return _BUILTIN.get(name)


def get_registered_name(obj: Any) -> str:
    """Returns the name `obj`'s class (or `obj`, a function) is registered under."""
    target = obj if isinstance(obj, type) or callable(obj) and not hasattr(obj, "get_config") else type(obj)
    return getattr(target, "_registered_name", None) or target.__name__


def serialize_keras_object(obj: Any) -> Any:
    """Returns a JSON-able description of `obj`: `{"class_name", "config", "registered_name"}`.

    Plain values (None, numbers, strings, lists, dicts) are returned as they are;
    functions registered by name serialize to their name.
    """
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(v) for v in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if hasattr(obj, "get_config") and not isinstance(obj, type):
        return {
            "class_name": type(obj).__name__,
            "config": obj.get_config(),
            "registered_name": get_registered_name(obj),
        }
    if callable(obj):
        name = getattr(obj, "_registered_name", None) or getattr(obj, "__name__", None)
        if name and get_registered_object(name) is obj:
            return name
        raise ValueError(
            f"Cannot serialize {obj!r}: it is neither a registered Keras object nor an object with "
            "get_config(). Register it with tf.keras.saving.register_keras_serializable()."
        )
    raise ValueError(f"Cannot serialize object of type {type(obj).__name__}: {obj!r}")


def deserialize_keras_object(
    config: Any, custom_objects: dict[str, Any] | None = None, module_objects: dict | None = None
) -> Any:
    """Turns a description written by `serialize_keras_object` back into an object.

    A string names a registered function or class; a dict with `class_name`
    and `config` calls the class's `from_config`. Raises ValueError naming the
    class when it is unknown, with what to do about it.
    """
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        found = (module_objects or {}).get(config) or get_registered_object(config, custom_objects)
        if found is None and not _builtins_loaded:
            _load_builtins()
            found = get_registered_object(config, custom_objects)
        if found is None:
            raise ValueError(
                f"Unknown object {config!r}. Pass it in custom_objects or register it with "
                "tf.keras.saving.register_keras_serializable()."
            )
        return found
    if isinstance(config, dict) and "class_name" in config:
        name = config.get("registered_name") or config["class_name"]
        cls = (module_objects or {}).get(config["class_name"]) or get_registered_object(
            name, custom_objects
        ) or get_registered_object(config["class_name"], custom_objects)
        if cls is None and not _builtins_loaded:
            _load_builtins()
            cls = get_registered_object(name, custom_objects) or get_registered_object(
                config["class_name"], custom_objects)
        if cls is None:
            raise ValueError(
                f"Unknown class {config['class_name']!r} (registered name {name!r}). Pass it in "
                "custom_objects or decorate it with tf.keras.saving.register_keras_serializable()."
            )
        inner = config.get("config", {})
        if hasattr(cls, "from_config"):
            return cls.from_config(inner) if not custom_objects else _from_config(cls, inner, custom_objects)
        return cls(**inner)
    raise ValueError(f"Cannot deserialize {config!r}: expected a name or a class_name/config dict")


def _from_config(cls: Any, config: dict, custom_objects: dict[str, Any]) -> Any:
    with custom_object_scope(custom_objects):
        return cls.from_config(config)


_SAFE_MODE = threading.local()


@contextlib.contextmanager
def safe_mode_scope(safe_mode: bool = True) -> Iterator[None]:
    """Within this scope `in_safe_mode()` returns `safe_mode` (load_model sets it)."""
    previous = getattr(_SAFE_MODE, "value", True)
    _SAFE_MODE.value = bool(safe_mode)
    try:
        yield
    finally:
        _SAFE_MODE.value = previous


def in_safe_mode() -> bool:
    """True unless a `safe_mode_scope(False)` is active: deserializing Python code (a Lambda
    layer's function) is then refused."""
    return getattr(_SAFE_MODE, "value", True)
