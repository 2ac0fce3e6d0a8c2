"""Feature columns to and from JSON-able configs.

`serialize_feature_column(column)` returns `{"class_name": ..., "config": ...}`
as TF's `tensorflow/python/feature_column/serialization.py` does; nested
columns are serialized inside their parent's config; dtypes become their
names ('string', 'int64', 'float32'); functions and initializers go through
the Keras object registry, so only registered or `get_config()`-able ones
survive (a Python lambda cannot: the error says what to use instead).

The Keras object registry (`torchestimator.keras._registry`) sits above this
package, so Keras hands it down: the registry calls
`register_object_codec(serialize, deserialize, lookup)` when it loads (as it
calls `saved_model._layout.register_layer_codec`). Until then — no Keras
object can exist then — plain columns serialize as always, a
`ZScoreNormalizer` is handled here, and a config naming another object is
rebuilt from `custom_objects` or refused with an error saying to load tf.keras.

Each column's preprocessing state — vocabularies, boundaries, bucket sizes,
normalizers — is in its config, so an export can rebuild the preprocessing
without the code that trained the model.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from torchestimator import _dtypes
from torchestimator.feature_column import _base  # names read at call time (_base imports this)

_COLUMN_CLASSES: dict[str, type] = {}


class ObjectCodec(NamedTuple):
    """How columns store the objects they hold (a `normalizer_fn`, an `initializer`): Keras's
    `serialize_keras_object(obj)`, `deserialize_keras_object(config, custom_objects,
    module_objects=...)` and `get_registered_object(name, custom_objects)`."""

    serialize: Callable[[Any], Any]
    deserialize: Callable[..., Any]
    lookup: Callable[..., Any]


_OBJECT_CODEC: ObjectCodec | None = None


def register_object_codec(serialize: Callable[[Any], Any], deserialize: Callable[..., Any],
                          lookup: Callable[..., Any]) -> None:
    """Installs the Keras object registry's functions (Keras' object registry calls this when it loads).

    Args:
        serialize: `serialize_keras_object(obj)` -> JSON-able config.
        deserialize: `deserialize_keras_object(config, custom_objects, module_objects=...)`.
        lookup: `get_registered_object(name, custom_objects)` -> the class, or None.
    """
    global _OBJECT_CODEC
    _OBJECT_CODEC = ObjectCodec(serialize, deserialize, lookup)


#: The serializable objects of this package that a column may hold (`ZScoreNormalizer`), by
#: class name; `register_object` fills it when their modules load.
_PACKAGE_OBJECTS: dict[str, type] = {}


def register_object(cls: type) -> type:
    """Class decorator: makes a serializable object of this package (a `normalizer_fn` such as
    `ZScoreNormalizer`) known to `deserialize_feature_column` without Keras."""
    _PACKAGE_OBJECTS[cls.__name__] = cls
    return cls


def _serialize_without_keras(value: Any) -> Any:
    """`serialize_keras_object`'s output for what can exist before Keras loads (no registered
    object can): a `ZScoreNormalizer`, another `get_config()`-able object; else ValueError."""
    if hasattr(value, "get_config") and not isinstance(value, type):
        name = type(value).__name__
        return {"class_name": name, "config": value.get_config(), "registered_name": name}
    if isinstance(value, types.FunctionType) and value.__name__ != "<lambda>":
        return {"module": "builtins", "class_name": "function", "config": value.__name__,
                "registered_name": "function"}
    raise ValueError(f"Cannot serialize {value!r}: it is neither a registered Keras object nor an "
                     "object with get_config().")


def _deserialize_without_keras(value: Any, custom_objects: Mapping[str, Any] | None, column: str,
                               field_name: str) -> Any:
    """Rebuilds a `ZScoreNormalizer` or a `custom_objects` entry; anything else needs Keras."""
    custom = dict(custom_objects or {})
    if isinstance(value, Mapping) and value.get("class_name") == "function":
        value = value.get("config")
    if isinstance(value, str):
        if value in custom:
            return custom[value]
    elif isinstance(value, Mapping) and isinstance(value.get("class_name"), str):
        class_name = value["class_name"]
        cls = _PACKAGE_OBJECTS.get(class_name) or custom.get(
            value.get("registered_name") or class_name) or custom.get(class_name)
        if cls is not None:
            inner = value.get("config", {})
            return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
    raise ValueError(
        f"Cannot deserialize the {field_name} of {column} ({str(value)[:200]}): it names "
        "a Keras object, and the Keras object registry is not loaded. Import tf.keras "
        "(torchestimator.keras.saving) before deserializing, or pass the object in custom_objects."
    )


# Field metadata kinds (dataclasses.field(metadata={"kind": ...})).
DTYPE = "dtype"
COLUMN = "column"
COLUMNS = "columns"
KEYS = "keys"  # a mix of feature names (str) and columns
OBJECT = "object"  # a Keras-serializable callable (normalizer_fn, initializer)


def register_column(cls: type) -> type:
    """Class decorator: makes a column class known to `deserialize_feature_column`."""
    _COLUMN_CLASSES[cls.__name__] = cls
    return cls


def _kind(field: dataclasses.Field) -> str | None:
    return field.metadata.get("kind")


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


def _serialize_object(value: Any, column: Any, field_name: str) -> Any:
    if value is None:
        return None
    serialize = _OBJECT_CODEC.serialize if _OBJECT_CODEC is not None else _serialize_without_keras
    try:
        return serialize(value)
    except ValueError:
        label = getattr(value, "__qualname__", None) or repr(value)
        if field_name == "normalizer_fn":
            hint = (
                "Use a serializable normalizer instead: "
                "tf.feature_column.ZScoreNormalizer(mean=..., std=...), a Keras "
                "Normalization layer, or a function registered with "
                "tf.keras.saving.register_keras_serializable()."
            )
        else:
            hint = (
                "Use a Keras initializer object (e.g. tf.keras.initializers.TruncatedNormal(...)) "
                "or a function registered with tf.keras.saving.register_keras_serializable()."
            )
        raise ValueError(
            f"Cannot serialize column {column.name!r}: its {field_name} {label} is a Python "
            f"function, and Python code cannot be saved as data. {hint}"
        ) from None


def default_column_config(column: Any) -> dict[str, Any]:
    """Returns the config of a dataclass column: every field, made JSON-able."""
    config: dict[str, Any] = {}
    for field in dataclasses.fields(column):
        if field.name.startswith("_"):
            continue
        value = getattr(column, field.name)
        kind = _kind(field)
        if kind == DTYPE:
            config[field.name] = _dtypes.dtype_name(value)
        elif kind == COLUMN:
            config[field.name] = serialize_feature_column(value)
        elif kind == COLUMNS:
            config[field.name] = [serialize_feature_column(c) for c in value]
        elif kind == KEYS:
            config[field.name] = [k if isinstance(k, str) else serialize_feature_column(k) for k in value]
        elif kind == OBJECT:
            config[field.name] = _serialize_object(value, column, field.name)
        else:
            config[field.name] = _jsonable(value)
    return config


def default_column_from_config(
    cls: type,
    config: Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None,
    columns_by_name: dict[str, Any] | None,
) -> Any:
    """Rebuilds a dataclass column of type `cls` from `default_column_config`'s output."""
    if not isinstance(config, Mapping):
        raise ValueError(f"{cls.__name__}.from_config expects a dict, got {type(config).__name__}")
    kwargs: dict[str, Any] = {}
    fields = {f.name: f for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    unknown = set(config) - set(fields)
    if unknown:
        raise ValueError(
            f"{cls.__name__}.from_config got unknown keys {sorted(unknown)}; expected keys "
            f"{sorted(fields)}"
        )
    for name, value in config.items():
        kind = _kind(fields[name])
        if kind == DTYPE:
            kwargs[name] = _dtypes.as_dtype(value)
        elif kind == COLUMN:
            kwargs[name] = deserialize_feature_column(value, custom_objects, columns_by_name)
        elif kind == COLUMNS:
            kwargs[name] = tuple(
                deserialize_feature_column(c, custom_objects, columns_by_name) for c in value
            )
        elif kind == KEYS:
            kwargs[name] = tuple(
                k if isinstance(k, str)
                else deserialize_feature_column(k, custom_objects, columns_by_name)
                for k in value
            )
        elif kind == OBJECT and value is not None:
            if _OBJECT_CODEC is None:
                key = config.get("key")
                label = f"column {key!r}" if isinstance(key, str) else f"a {cls.__name__}"
                kwargs[name] = _deserialize_without_keras(value, custom_objects, label, name)
            else:
                kwargs[name] = _OBJECT_CODEC.deserialize(
                    value, dict(custom_objects or {}),
                    module_objects=dict(_PACKAGE_OBJECTS),
                )
        else:
            kwargs[name] = value
    return cls(**kwargs)


def serialize_feature_column(fc: Any) -> dict[str, Any]:
    """Serializes a feature column: returns `{"class_name": <class>, "config": fc.get_config()}`.

    Raises ValueError for something that is not a feature column, or a column
    holding a Python function (see the message for the serializable choice).
    """
    if not isinstance(fc, _base.FeatureColumn):
        raise ValueError(f"Instance: {fc!r} is not a FeatureColumn")
    return {"class_name": type(fc).__name__, "config": fc.get_config()}


def deserialize_feature_column(
    config: Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None = None,
    columns_by_name: dict[str, Any] | None = None,
) -> Any:
    """Deserializes a config written by `serialize_feature_column` into a feature column.

    `custom_objects` maps class names to user column classes (and names to
    custom normalizers/initializers). `columns_by_name` (a dict, updated in
    place) lets columns that share a parent get one equal parent object.
    Returns the column.
    """
    if isinstance(config, str):
        raise ValueError(
            f"Expected a serialized feature column dict with 'class_name' and 'config', got the "
            f"string {config!r}"
        )
    if not isinstance(config, Mapping) or "class_name" not in config or "config" not in config:
        raise ValueError(
            f"Improper config format for a feature column: {config!r}; expected a dict with "
            "'class_name' and 'config' keys"
        )
    class_name = config["class_name"]
    cls = (custom_objects or {}).get(class_name) or _COLUMN_CLASSES.get(class_name)
    if cls is None and _OBJECT_CODEC is not None:  # a column class registered with Keras
        cls = _OBJECT_CODEC.lookup(class_name, dict(custom_objects or {}))
    if cls is None:
        raise ValueError(
            f"Unknown feature column class {class_name!r}; known classes are "
            f"{sorted(_COLUMN_CLASSES)}. Pass a custom class in custom_objects."
        )
    column = cls.from_config(
        config["config"], custom_objects=custom_objects, columns_by_name=columns_by_name
    )
    if columns_by_name is not None:
        existing = columns_by_name.get(column.name)
        if existing is not None and existing == column:
            return existing
        columns_by_name.setdefault(column.name, column)
    return column


def serialize_feature_columns(feature_columns: Iterable[Any]) -> list[dict[str, Any]]:
    """Serializes a list of feature columns; returns a list of configs."""
    return [serialize_feature_column(c) for c in feature_columns]


def deserialize_feature_columns(
    configs: Iterable[Mapping[str, Any]], custom_objects: Mapping[str, Any] | None = None
) -> list[Any]:
    """Deserializes a list of configs; columns sharing a parent share one parent object."""
    columns_by_name: dict[str, Any] = {}
    return [deserialize_feature_column(c, custom_objects, columns_by_name) for c in configs]
