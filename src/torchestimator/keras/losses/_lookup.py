"""Finding losses by name: `get`, `serialize`, `deserialize`, and the names Keras knows them by."""

from __future__ import annotations

from typing import Any

from torchestimator.keras import _registry
from torchestimator.keras.losses import _crossentropy as ce
from torchestimator.keras.losses import _loss
from torchestimator.keras.losses import _regression as rg
from torchestimator.keras.losses._classes import LOSS_CLASSES
from torchestimator.keras.losses._loss import Loss, LossFunctionWrapper
from torchestimator.keras.losses._torch import from_torch, is_torch_loss

#: Loss functions by every name Keras 2.15 exports them under (aliases included).
LOSS_FUNCTIONS: dict[str, Any] = {
    "mean_squared_error": rg.mean_squared_error,
    "mse": rg.mean_squared_error,
    "MSE": rg.mean_squared_error,
    "mean_absolute_error": rg.mean_absolute_error,
    "mae": rg.mean_absolute_error,
    "MAE": rg.mean_absolute_error,
    "mean_absolute_percentage_error": rg.mean_absolute_percentage_error,
    "mape": rg.mean_absolute_percentage_error,
    "MAPE": rg.mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": rg.mean_squared_logarithmic_error,
    "msle": rg.mean_squared_logarithmic_error,
    "MSLE": rg.mean_squared_logarithmic_error,
    "huber": rg.huber,
    "huber_loss": rg.huber,
    "log_cosh": rg.log_cosh,
    "logcosh": rg.log_cosh,
    "kl_divergence": rg.kl_divergence,
    "kullback_leibler_divergence": rg.kl_divergence,
    "kld": rg.kl_divergence,
    "KLD": rg.kl_divergence,
    "poisson": rg.poisson,
    "cosine_similarity": rg.cosine_similarity,
    "hinge": rg.hinge,
    "squared_hinge": rg.squared_hinge,
    "categorical_hinge": rg.categorical_hinge,
    "binary_crossentropy": ce.binary_crossentropy,
    "bce": ce.binary_crossentropy,
    "BCE": ce.binary_crossentropy,
    "binary_focal_crossentropy": ce.binary_focal_crossentropy,
    "categorical_crossentropy": ce.categorical_crossentropy,
    "categorical_focal_crossentropy": ce.categorical_focal_crossentropy,
    "sparse_categorical_crossentropy": ce.sparse_categorical_crossentropy,
}

#: Everything `get` and `deserialize` resolve by name: classes, then functions.
MODULE_OBJECTS: dict[str, Any] = {
    "Loss": Loss,
    "LossFunctionWrapper": LossFunctionWrapper,
    **{cls.__name__: cls for cls in LOSS_CLASSES},
    **LOSS_FUNCTIONS,
}


def _register_builtins() -> None:
    """Registers every loss class and function with the saving registry (idempotent)."""
    for name, obj in MODULE_OBJECTS.items():
        if _registry.get_registered_object(name) is None:
            _registry.register_builtin(obj, name)


def _known_names() -> str:
    return ", ".join(sorted(MODULE_OBJECTS, key=str.lower))


def serialize(loss: Any, use_legacy_format: bool = False) -> Any:
    """Serializes a loss function or `Loss` instance.

    Returns the function's name, or `{'class_name', 'config', 'registered_name'}`
    for a `Loss` instance (`{'class_name', 'config'}` with `use_legacy_format=True`, Keras
    2.15's legacy format); None for None.
    """
    if loss is None:
        return None
    serialized = _registry.serialize_keras_object(loss)
    return _registry.legacy_form(serialized) if use_legacy_format else serialized


def deserialize(name: Any, custom_objects: dict[str, Any] | None = None,
                use_legacy_format: bool = False) -> Any:
    """Turns a serialized loss (a name or a config dict) back into a function or `Loss` instance.

    Names of loss classes give a new instance with default arguments; names of
    functions give the function. Both config formats are read whatever `use_legacy_format`
    says. Raises ValueError for unknown names, listing the known ones.
    """
    del use_legacy_format
    if isinstance(name, str):
        found = (custom_objects or {}).get(name) or MODULE_OBJECTS.get(name)
        if found is None:
            found = _registry.get_registered_object(name, custom_objects)
        if found is None:
            raise ValueError(
                f"Unknown loss function: {name!r}. Known losses: {_known_names()}. For a custom "
                "loss, pass the function or Loss instance itself, pass it in custom_objects, or "
                "register it with tf.keras.saving.register_keras_serializable()."
            )
        return found() if isinstance(found, type) else found
    if isinstance(name, dict):
        return _registry.deserialize_keras_object(
            name, custom_objects=custom_objects, module_objects=MODULE_OBJECTS
        )
    raise ValueError(f"Could not interpret serialized loss function: {name!r}")


def get(identifier: Any) -> Any:
    """Retrieves a Keras loss as a function or `Loss` instance.

    `identifier` is None, the name of a loss function ('mse',
    'categorical_crossentropy', ...) or class ('CategoricalCrossentropy'), a
    config dict `{'class_name': ..., 'config': {...}}`, a function or a `Loss`
    instance. Returns None, the function, or the instance. Raises ValueError
    when the identifier cannot be interpreted. A PyTorch loss (a `torch.nn` loss
    module or a `torch.nn.functional` function) gives a `TorchLoss`, which calls it
    in torch's order, `fn(y_pred, y_true)`.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if not isinstance(identifier, Loss) and is_torch_loss(identifier):
        return from_torch(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret loss function identifier: {identifier!r}. Pass a loss name "
        "(e.g. 'mse'), a config dict, a function or a tf.keras.losses.Loss instance."
    )


_loss.register_function_lookup(get)
