"""The registry of serializable Keras classes, and (de)serialization of config dicts.

Every built-in layer, initializer, regularizer, optimizer, loss, metric and
callback class registers itself here by class name, so a config dict
`{"class_name": "Dense", "config": {...}}` turns back into an object without
importing the code that wrote it and without unpickling anything.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

_BUILTIN: dict[str, Any] = {}
_CUSTOM: dict[str, Any] = {}
_SCOPE = threading.local()


#: (Keras module, name) -> object, for the names two kinds share (`Identity` is a layer and
#: an initializer); configs name the module (`"module": "keras.layers"`), as Keras 2.15's do.
_BY_MODULE: dict[tuple[str, str], Any] = {}


def _keras_module(obj: Any) -> str:
    """'keras.layers', 'keras.initializers', ... : the Keras namespace `obj` belongs to."""
    parts = getattr(obj, "__module__", "").split(".")
    return ".".join(parts[1:3]) if len(parts) > 2 and parts[1] == "keras" else ""


def register_builtin(obj: Any, name: str | None = None, owns_bare_name: bool = False) -> Any:
    """Registers a built-in class or function under `name` (default: its `__name__`). A name
    already registered for another kind of object keeps its first object, unless
    `owns_bare_name` (the object Keras resolves the bare name to, as the premade LinearModel
    over the feature-column layer of that name); both stay reachable by their Keras module."""
    name = name or obj.__name__
    _BY_MODULE[(_keras_module(obj), name)] = obj
    if owns_bare_name or (_BUILTIN.setdefault(name, obj) is not obj
                          and _keras_module(_BUILTIN[name]) == _keras_module(obj)):
        _BUILTIN[name] = obj  # a newer definition of the same kind replaces the old one
    return obj


def _shared_name(name: str) -> bool:
    return sum(1 for (_, n) in _BY_MODULE if n == name) > 1


def _by_module(config: dict, name: str) -> Any:
    """The built-in object a config means when its class name is shared by two kinds: the one
    of its `module`, else a layer when the config looks like a layer's (it has `trainable`),
    else the other kind."""
    module = config.get("module")
    if isinstance(module, str) and (module, name) in _BY_MODULE:
        return _BY_MODULE[(module, name)]
    inner = config.get("config")
    layer_like = isinstance(inner, dict) and "trainable" in inner
    for (kind, shared), obj in _BY_MODULE.items():
        if shared == name and (kind == "keras.layers") == layer_like:
            return obj
    return None


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
    "constraints", "models", "premade_models",
)
_builtins_loaded = False


def _load_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        for name in _BUILTIN_MODULES:
            module = importlib.import_module(f"torchestimator.keras.{name}")
            import_all = getattr(module, "_import_all", None)  # namespaces that load lazily
            if import_all is not None:
                import_all()
        _builtins_loaded = True


def get_registered_object(
    name: str, custom_objects: dict[str, Any] | None = None, module_objects: dict | None = None
) -> Any:
    """Returns the class or function registered under `name`, or None.

    Looked up, in TF's order, in `custom_objects`, an active `custom_object_scope`, the
    objects registered with `register_keras_serializable`, then `module_objects` (a dict of
    name -> object the caller knows), then the package's own.
    """
    found = get_user_object(name, custom_objects)
    if found is not None or not isinstance(name, str):
        return found
    if module_objects and name in module_objects:
        return module_objects[name]
    return _BUILTIN.get(name)


def legacy_form(serialized: Any) -> Any:
    """`serialized` (a `serialize_keras_object` result) as Keras 2.15's legacy format writes
    it (`use_legacy_format=True`): a dict without its `module` and `registered_name` fields."""
    if isinstance(serialized, dict):
        return {k: v for k, v in serialized.items() if k not in ("module", "registered_name")}
    return serialized


def get_user_object(name: str, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns the object the user made loadable under `name` (in `custom_objects`, an active
    `custom_object_scope`, or registered with `register_keras_serializable`), or None."""
    if not isinstance(name, str):
        return None
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    scoped = getattr(_SCOPE, "objects", {})
    if name in scoped:
        return scoped[name]
    return _CUSTOM.get(name)


def get_builtin_object(name: str) -> Any:
    """Returns the package's own class or function registered under `name` (loading the
    namespaces that register themselves first), or None."""
    if not isinstance(name, str):
        return None
    if name not in _BUILTIN and not _builtins_loaded:
        _load_builtins()
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
        out = {
            "class_name": type(obj).__name__,
            "config": obj.get_config(),
            "registered_name": get_registered_name(obj),
        }
        if _shared_name(out["class_name"]) and _keras_module(type(obj)):
            out["module"] = _keras_module(type(obj))  # which `Identity` this is
        return out
    if callable(obj):
        name = getattr(obj, "_registered_name", None) or getattr(obj, "__name__", None)
        if name and get_registered_object(name) is obj:
            return name
        if isinstance(obj, types.FunctionType) and name and name != "<lambda>":
            # Keras 2.15's form of a plain, unregistered function (a TextVectorization's
            # `standardize`): its name, found again at load through `custom_objects`.
            return {"module": "builtins", "class_name": "function", "config": name,
                    "registered_name": "function"}
        raise ValueError(
            f"Cannot serialize {obj!r}: it is neither a registered Keras object nor an object with "
            "get_config(). Register it with tf.keras.saving.register_keras_serializable()."
        )
    raise ValueError(f"Cannot serialize object of type {type(obj).__name__}: {obj!r}")


def deserialize_keras_object(
    config: Any, custom_objects: dict[str, Any] | None = None, safe_mode: bool = True,
    **kwargs: Any,
) -> Any:
    """Turns a description written by `serialize_keras_object` back into an object.

    A string names a registered function or class; a dict with `class_name`
    and `config` calls the class's `from_config`. Names are looked up only among
    the package's own objects, `module_objects` (a keyword argument, as TF's legacy
    form) and the user's (`custom_objects`, `custom_object_scope`,
    `register_keras_serializable`): a `module` field is never imported. Raises ValueError
    naming the class (and the layer) when it is unknown, or, in safe mode, when it resolves
    to a function that could switch safe mode off or touch files, processes or the network.

    `safe_mode` (TF's default True) decides for this call, as in TF, unless an enclosing
    `SafeModeScope`/`safe_mode_scope` or `enable_unsafe_deserialization()` has set it (those
    win). The other keyword arguments TF's takes (`module_objects`, `printable_module_name`)
    are accepted; any other raises ValueError, as TF's.
    """
    module_objects = kwargs.pop("module_objects", None)
    kwargs.pop("printable_module_name", None)
    if kwargs:
        raise ValueError(f"Arguments not recognized: {kwargs}")
    if getattr(_SAFE_MODE, "value", None) is None and not _UNSAFE_GLOBALLY:
        with safe_mode_scope(safe_mode):
            return _deserialize(config, custom_objects, module_objects)
    return _deserialize(config, custom_objects, module_objects)


def _deserialize(config: Any, custom_objects: dict[str, Any] | None, module_objects: dict | None) -> Any:
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
        check_not_gadget(found, f"object {config!r}")
        return found
    if (isinstance(config, dict) and config.get("class_name") == "function"
            and isinstance(config.get("config"), str)):  # a function, by name (Keras 2.15/3)
        return _deserialize(config["config"], custom_objects, module_objects)
    if isinstance(config, dict) and "class_name" in config:
        class_name, name = config["class_name"], config.get("registered_name") or config["class_name"]
        if not isinstance(class_name, str) or not isinstance(name, str):
            raise ValueError(
                f"Cannot deserialize {str(config)[:200]}: its class_name and registered_name must "
                "be strings."
            )
        cls = (module_objects or {}).get(class_name) or get_user_object(name, custom_objects) or (
            _by_module(config, class_name) if _shared_name(class_name) else None
        ) or get_registered_object(name, custom_objects) or get_registered_object(class_name, custom_objects)
        if cls is None and not _builtins_loaded:
            _load_builtins()
            cls = get_registered_object(name, custom_objects) or get_registered_object(
                class_name, custom_objects)
        inner = config.get("config", {})
        if cls is None:
            raise ValueError(
                f"Unknown class {class_name!r} (registered name {name!r}){_layer_of(inner)}. "
                "Classes are looked up among the package's own and the registered ones, never "
                "imported from a module the config names: pass it in custom_objects or decorate "
                "it with tf.keras.saving.register_keras_serializable()."
            )
        check_not_gadget(cls, f"class {class_name!r}{_layer_of(inner)}")
        if hasattr(cls, "from_config"):
            return cls.from_config(inner) if not custom_objects else _from_config(cls, inner, custom_objects)
        return cls(**inner)
    raise ValueError(f"Cannot deserialize {config!r}: expected a name or a class_name/config dict")


def _layer_of(inner: Any) -> str:
    """`" in layer 'name'"` for a config naming its layer, else ""."""
    name = inner.get("name") if isinstance(inner, dict) else None
    return f" in layer {name!r}" if isinstance(name, str) else ""


#: Modules whose functions are "gadgets" for a crafted config: they read or write files, reach
#: the network, start processes, or change how the package loads things.
_GADGET_MODULE_PREFIXES = (
    "torchestimator.io", "torchestimator.gfile", "torchestimator.keras.utils",
    "torchestimator.keras.saving", "torchestimator.keras.layers.core._function_serialization",
    "torchestimator.keras.backend", "torchestimator.keras.callbacks", "torchestimator.saved_model",
    "torchestimator.serving", "torchestimator.data", "torchestimator.config",
    "torchestimator._ops.control_ops", "torchestimator._ops.string_ops", "torchestimator._engine",
    "os", "sys", "subprocess", "builtins", "importlib", "shutil", "socket", "pathlib", "io",
    "pickle", "marshal", "ctypes", "runpy", "code", "pty", "webbrowser", "urllib", "http",
)


def is_gadget(obj: Any) -> bool:
    """True when `obj` is a function a crafted file could abuse: one that switches safe mode
    off (`enable_unsafe_deserialization`, `safe_mode_scope`, `SafeModeScope`), or that comes
    from the package's file, network, process or configuration modules, or from the standard
    library's."""
    if obj in (safe_mode_scope, enable_unsafe_deserialization) or getattr(
            obj, "__name__", None) in ("SafeModeScope", "enable_unsafe_deserialization",
                                       "safe_mode_scope"):
        return True
    if isinstance(obj, type) and hasattr(obj, "get_config"):
        return False  # a serializable class: building it runs only its own constructor
    module = getattr(obj, "__module__", None) or ""
    return any(module == p or module.startswith(p + ".") for p in _GADGET_MODULE_PREFIXES)


def check_not_gadget(obj: Any, what: str) -> None:
    """In safe mode, raises ValueError when `obj` (described by `what`) is a gadget
    (`is_gadget`); returns None otherwise."""
    if in_safe_mode() and is_gadget(obj):
        module = getattr(obj, "__module__", "?")
        raise ValueError(
            f"Refusing {what}: it resolves to {module}.{getattr(obj, '__qualname__', obj)!s}, a "
            "function that touches files, processes, the network or the loading settings, which "
            "safe mode never loads from a file. If you trust the file, load it with "
            "safe_mode=False."
        )


def _from_config(cls: Any, config: dict, custom_objects: dict[str, Any]) -> Any:
    with custom_object_scope(custom_objects):
        return cls.from_config(config)


_SAFE_MODE = threading.local()
_UNSAFE_GLOBALLY = False


@contextlib.contextmanager
def safe_mode_scope(safe_mode: bool | None = True) -> Iterator[None]:
    """Within this scope `in_safe_mode()` returns `safe_mode` (load_model sets it), whatever
    `enable_unsafe_deserialization()` said; None leaves the current setting. Yields nothing."""
    previous = getattr(_SAFE_MODE, "value", None)
    if safe_mode is not None:
        _SAFE_MODE.value = bool(safe_mode)
    try:
        yield
    finally:
        _SAFE_MODE.value = previous


def enable_unsafe_deserialization() -> None:
    """Turns safe mode off outside any `safe_mode_scope` (like Keras'
    `keras.config.enable_unsafe_deserialization()`): `Lambda.from_config` then loads lambdas
    saved as source. `load_model(..., safe_mode=True)` (its default) still refuses them, as in
    Keras 3. Returns None."""
    global _UNSAFE_GLOBALLY
    _UNSAFE_GLOBALLY = True


def in_safe_mode() -> bool:
    """The active `safe_mode_scope`'s value; outside any, True unless
    `enable_unsafe_deserialization()` was called. In safe mode, deserializing Python code (a
    Lambda layer's source) or importing a module a config names is refused."""
    value = getattr(_SAFE_MODE, "value", None)
    return (not _UNSAFE_GLOBALLY) if value is None else value


# An export's preprocessing layers are stored as Keras configs: saved_model (below keras) reads
# and writes them with the functions registered here (saved_model/_layout.py's docstring). Every
# Keras layer's module loads this one, so the codec is there once any layer class exists.
from torchestimator.saved_model import _layout as _export_layout  # noqa: E402

_export_layout.register_layer_codec(serialize_keras_object, deserialize_keras_object)

# Feature columns (below keras) store their normalizers and initializers as Keras configs with
# the functions registered here (feature_column/serialization.py's docstring).
from torchestimator.feature_column import serialization as _fc_serialization  # noqa: E402

_fc_serialization.register_object_codec(serialize_keras_object, deserialize_keras_object,
                                        get_registered_object)
