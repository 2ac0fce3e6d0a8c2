"""`get`, `serialize` and `deserialize` for activation functions.

Activations are plain functions: a built-in one serializes to its name
(`"relu"`), and a name, a `{"class_name": "function", "config": "relu"}` dict
(Keras 2.15's saving format), a callable or None (the linear activation) turns
back into a function with `get`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras import _registry
from torchestimator.keras._object_lookup import lookup_object, resolve_config_class
from torchestimator.keras.activations import _functions as fn

ALL_ACTIVATIONS: dict[str, Callable] = {
    "softmax": fn.softmax,
    "log_softmax": fn.log_softmax,
    "elu": fn.elu,
    "selu": fn.selu,
    "softplus": fn.softplus,
    "softsign": fn.softsign,
    "swish": fn.swish,
    "silu": fn.silu,
    "relu": fn.relu,
    "relu6": fn.relu6,
    "leaky_relu": fn.leaky_relu,
    "gelu": fn.gelu,
    "tanh": fn.tanh,
    "sigmoid": fn.sigmoid,
    "exponential": fn.exponential,
    "hard_sigmoid": fn.hard_sigmoid,
    "hard_silu": fn.hard_silu,
    "hard_swish": fn.hard_swish,
    "linear": fn.linear,
    "mish": fn.mish,
}

# tf.nn's softmax is called `softmax_v2`; Keras saves it as "softmax".
_ALIASES: dict[str, str] = {"softmax_v2": "softmax"}

# torch's own functions that compute a Keras activation serialize to its name,
# so `Dense(4, activation=torch.relu)` saves as `"relu"`.
_TORCH_EQUIVALENTS: dict[Callable, str] = {
    torch.relu: "relu", F.relu: "relu", torch.tanh: "tanh", F.tanh: "tanh",
    torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid", torch.exp: "exponential",
    F.elu: "elu", F.selu: "selu", torch.selu: "selu", F.softplus: "softplus",
    F.softsign: "softsign", F.silu: "silu", F.gelu: "gelu", F.relu6: "relu6",
    F.leaky_relu: "leaky_relu", F.mish: "mish", F.hardswish: "hard_silu",
    torch.softmax: "softmax", F.softmax: "softmax", torch.log_softmax: "log_softmax",
    F.log_softmax: "log_softmax",
}

# Keras 2.15's activations.deserialize also builds the advanced activation layers.
_ACTIVATION_LAYERS = ("ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax", "ThresholdedReLU")

for _name, _function in ALL_ACTIVATIONS.items():
    if _name != "hard_swish":
        _registry.register_builtin(_function, _name)


def serialize(activation: Callable | None, use_legacy_format: bool = False) -> Any:
    """Returns the string identifier of an activation function.

    Built-in activations serialize to their name (`serialize(relu) == "relu"`);
    `None` to `None`; an activation registered with
    `register_keras_serializable` to its registered name; an object with
    `get_config` (an activation layer) to its `{"class_name", "config"}` dict.
    `use_legacy_format` is accepted for Keras 2.15 compatibility and changes nothing.

    Raises ValueError for a function that is neither built in nor registered.
    """
    del use_legacy_format
    if activation is None:
        return None
    name = getattr(activation, "__name__", None)
    try:
        if activation in _TORCH_EQUIVALENTS:
            return _TORCH_EQUIVALENTS[activation]
    except TypeError:  # unhashable callable object
        pass
    if name in _ALIASES:
        return _ALIASES[name]
    for known, function in ALL_ACTIVATIONS.items():
        if activation is function:
            return "hard_silu" if known == "hard_swish" else known
    try:
        return _registry.serialize_keras_object(activation)
    except ValueError as err:
        raise ValueError(
            f"Cannot serialize activation {activation!r}: it is not a built-in activation "
            f"({', '.join(sorted(ALL_ACTIVATIONS))}) and not registered. Decorate it with "
            "tf.keras.saving.register_keras_serializable() so it can be saved and loaded."
        ) from err


def deserialize(
    name: str | Mapping[str, Any],
    custom_objects: Mapping[str, Any] | None = None,
    use_legacy_format: bool = False,
) -> Callable:
    """Returns the activation function named by `name` (a string or a serialized dict).

    Args:
        name: An activation name (`"relu"`), or a dict as written by Keras'
            serializer (`{"class_name": "function", "config": "relu"}`, or the
            config of an activation layer such as LeakyReLU or of a registered
            activation class). A class name gives an instance with default arguments.
        custom_objects: Optional dict of names to custom activation functions.
        use_legacy_format: Accepted for Keras 2.15 compatibility; ignored.

    Returns:
        The activation function (or activation object, for a class config).

    Raises ValueError naming the unknown activation and listing the known ones.
    """
    del use_legacy_format
    if isinstance(name, str):
        name = _ALIASES.get(name, name)
        found = lookup_object(
            name, ALL_ACTIVATIONS, custom_objects, "activation function", _ACTIVATION_LAYERS
        )
        return found() if isinstance(found, type) else found
    if isinstance(name, Mapping):
        if name.get("class_name") == "function" and isinstance(name.get("config"), str):
            registered = name.get("registered_name")
            target = name["config"] if registered in (None, "function") else registered
            return deserialize(target, custom_objects)
        cls, inner = resolve_config_class(
            name, ALL_ACTIVATIONS, custom_objects, "activation function", _ACTIVATION_LAYERS
        )
        if isinstance(cls, type):
            return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
        return cls
    raise TypeError(
        f"Could not interpret activation function identifier: {name!r} (of type "
        f"{type(name).__name__}); expected a name such as 'relu' or a serialized config dict."
    )


def get(identifier: Any) -> Callable:
    """Returns an activation function from an identifier.

    Args:
        identifier: None (returns the `linear` activation), a function name
            (`"relu"`), a serialized config dict, or a callable (returned as is).

    Returns:
        The activation function.

    Raises:
        ValueError: for an unknown name (the message lists the known names).
        TypeError: for anything that is neither None, a string, a dict nor callable.
    """
    if identifier is None:
        return fn.linear
    if isinstance(identifier, (str, Mapping)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(
        f"Could not interpret activation function identifier: {identifier!r} (of type "
        f"{type(identifier).__name__}); expected None, a name such as 'relu', a config dict "
        "or a callable."
    )
