"""`tf.keras.optimizers.get`, `serialize` and `deserialize` (Keras 2.15 semantics).

Strings are case-insensitive (`'sgd'`, `'Adam'`, `'RMSProp'`, TF Estimator's
`'Adagrad'`, `'Ftrl'`, ...) and give the new optimizers with their defaults;
`use_legacy_optimizer=True` gives `tf.keras.optimizers.legacy.*`. A config
without `is_legacy_optimizer` (one written by a legacy optimizer) loads as a
legacy optimizer, as in Keras.
"""

from __future__ import annotations

import warnings
from typing import Any

from torchestimator.keras import _registry
from torchestimator.keras.optimizers._torch import TorchOptimizer, torch_optimizer_of
from torchestimator.keras.optimizers.adadelta import Adadelta
from torchestimator.keras.optimizers.adagrad import Adagrad
from torchestimator.keras.optimizers.adam import Adam
from torchestimator.keras.optimizers.adamax import Adamax
from torchestimator.keras.optimizers.adamw import AdamW
from torchestimator.keras.optimizers.ftrl import Ftrl
from torchestimator.keras.optimizers.legacy.optimizers import LEGACY_CLASSES
from torchestimator.keras.optimizers.nadam import Nadam
from torchestimator.keras.optimizers.optimizer import Optimizer
from torchestimator.keras.optimizers.rmsprop import RMSprop
from torchestimator.keras.optimizers.sgd import SGD

NEW_CLASSES: dict[str, type[Optimizer]] = {
    "adadelta": Adadelta,
    "adagrad": Adagrad,
    "adam": Adam,
    "adamax": Adamax,
    "adamw": AdamW,
    "ftrl": Ftrl,
    "nadam": Nadam,
    "rmsprop": RMSprop,
    "sgd": SGD,
    "experimentaladadelta": Adadelta,
    "experimentaladagrad": Adagrad,
    "experimentaladam": Adam,
    "experimentalsgd": SGD,
}
_LEGACY_LOOKUP: dict[str, type[Optimizer]] = {**NEW_CLASSES, **LEGACY_CLASSES}
_BUILTIN_TYPES = frozenset(NEW_CLASSES.values()) | frozenset(LEGACY_CLASSES.values())
KNOWN_NAMES = ("adadelta", "adagrad", "adam", "adamax", "adamw", "ftrl", "nadam", "rmsprop", "sgd")


#: Optimizer wrappers that are not `Optimizer` subclasses (`tf.keras.mixed_precision.
#: LossScaleOptimizer`): their module registers them when it loads, so any instance that exists
#: is of a registered class.
_WRAPPER_CLASSES: list[type] = []


def register_optimizer_wrapper(cls: type) -> type:
    """Class decorator: `serialize`, `get` and `deserialize` accept instances of `cls` (an
    optimizer wrapper such as `LossScaleOptimizer`) as optimizers."""
    _WRAPPER_CLASSES.append(cls)
    return cls


def _is_loss_scale_optimizer(obj: Any) -> bool:
    return isinstance(obj, tuple(_WRAPPER_CLASSES))


def _unknown(identifier: Any) -> ValueError:
    return ValueError(
        f"Could not interpret optimizer identifier: {identifier!r}. Known optimizers (case-insensitive): "
        f"{', '.join(KNOWN_NAMES)}; or pass a tf.keras.optimizers.Optimizer instance, a "
        "torch.optim.Optimizer (or (optimizer, lr_scheduler)), a config dict "
        "{'class_name': ..., 'config': {...}}, or a custom optimizer registered with "
        "tf.keras.saving.register_keras_serializable()."
    )


def serialize(optimizer: Optimizer | None, use_legacy_format: bool = False) -> dict[str, Any] | None:
    """Serializes the optimizer configuration to a JSON-compatible dict.

    Returns `{'module': 'keras.optimizers', 'class_name': 'Adam', 'config':
    {...}, 'registered_name': None}` for a built-in optimizer (module
    `keras.optimizers.legacy` for a legacy one), `{'class_name', 'config'}`
    in the legacy format, None for None.
    """
    if optimizer is None:
        return None
    if not isinstance(optimizer, Optimizer) and not _is_loss_scale_optimizer(optimizer):
        warnings.warn(
            "The `keras.optimizers.serialize()` API should only be used for objects of type "
            f"`keras.optimizers.Optimizer`. Found an instance of type {type(optimizer)}, which may lead "
            "to improper serialization.",
            UserWarning,
            stacklevel=2,
        )
    if use_legacy_format:
        return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}
    if type(optimizer) in _BUILTIN_TYPES:
        return {
            "module": optimizer._keras_module,
            "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(),
            "registered_name": None,
        }
    return _registry.serialize_keras_object(optimizer)


def deserialize(
    config: dict[str, Any],
    custom_objects: dict[str, Any] | None = None,
    use_legacy_format: bool = False,
    **kwargs: Any,
) -> Optimizer:
    """Inverse of `serialize`: returns the optimizer a config dict describes.

    Built-in class names are matched case-insensitively; custom optimizers
    come from `custom_objects` or the registry. `use_legacy_optimizer=True`
    selects the legacy classes for an empty config.
    """
    use_legacy_optimizer = kwargs.pop("use_legacy_optimizer", False)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {kwargs}")
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(
            "An optimizer config must be a dict with 'class_name' and 'config' keys, as written by "
            f"tf.keras.optimizers.serialize(). Received: {config!r}."
        )
    inner = dict(config.get("config") or {})
    if inner:
        use_legacy_optimizer = inner.get("is_legacy_optimizer", True)
    classes = _LEGACY_LOOKUP if use_legacy_optimizer else NEW_CLASSES
    name = str(config["class_name"])
    cls = classes.get(name.lower())
    if cls is not None and not (custom_objects and name in custom_objects):
        return cls.from_config(inner, custom_objects=custom_objects)
    try:
        optimizer = _registry.deserialize_keras_object(config, custom_objects=custom_objects)
    except ValueError:
        raise _unknown(name) from None
    if not isinstance(optimizer, Optimizer) and not _is_loss_scale_optimizer(optimizer):
        raise ValueError(
            f"{name!r} does not name an optimizer (it deserialized to {type(optimizer).__name__}). "
            f"Known optimizers: {', '.join(KNOWN_NAMES)}."
        )
    return optimizer


def get(identifier: Any, **kwargs: Any) -> Optimizer | TorchOptimizer:
    """Retrieves a Keras Optimizer instance.

    `identifier` is an optimizer name (`'adam'`, `'SGD'`, `'RMSProp'`, ...;
    a new instance with default arguments), a config dict (as written by
    `serialize`), or an `Optimizer` instance (returned unchanged).
    `use_legacy_optimizer=True` gives the legacy optimizer for a name.
    A `torch.optim.Optimizer`, `(optimizer, lr_scheduler)` or Lightning's
    `{"optimizer": ..., "lr_scheduler": ...}` gives a `TorchOptimizer` (see
    `from_torch`). Raises ValueError for anything else, listing the known names.
    """
    use_legacy_optimizer = kwargs.pop("use_legacy_optimizer", False)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {kwargs}")
    if isinstance(identifier, Optimizer) or _is_loss_scale_optimizer(identifier):
        return identifier
    torch_optimizer = torch_optimizer_of(identifier)
    if torch_optimizer is not None:
        return torch_optimizer
    if isinstance(identifier, dict):
        return deserialize(identifier, use_legacy_optimizer=use_legacy_optimizer)
    if isinstance(identifier, str):
        return deserialize({"class_name": identifier, "config": {}}, use_legacy_optimizer=use_legacy_optimizer)
    raise _unknown(identifier)
