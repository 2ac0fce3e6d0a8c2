"""The `compile()` arguments as JSON (Keras 2.15's `get_compile_config()` /
`compile_from_config()`): what `model.save()` writes and `load_model` compiles from.

Loss and metric objects (Keras' or registered custom ones) are written with
`serialize_keras_object` (`{"class_name", "config", "registered_name"}`), names as
strings, in the structure `compile()` got (a single value, a list or a dict by output
name). Reading turns only `{"class_name", "config"}` entries back into objects, through
the safe registry (`deserialize_keras_object`): nothing is imported and no code runs.
"""

from __future__ import annotations

import warnings
from typing import Any

from torchestimator.keras import _registry

#: The compile() arguments that take losses or metrics.
_OBJECT_ARGS = ("loss", "metrics", "weighted_metrics")


def _serialize(value: Any, what: str) -> Any:
    """`value` (a name, an object, or a list or dict of them) as JSON; raises ValueError for an
    object that has no Keras config (a torch loss, a lambda)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_serialize(v, what) for v in value]
    if isinstance(value, dict):
        return {str(k): _serialize(v, what) for k, v in value.items()}
    return _registry.serialize_keras_object(value)


def serialize_compile_config(
    optimizer: Any, loss: Any, metrics: Any, loss_weights: Any, weighted_metrics: Any,
    run_eagerly: Any = None, steps_per_execution: Any = None, jit_compile: Any = None,
) -> tuple[dict, list[str]]:
    """Returns `(config, problems)`: the JSON-able compile config (`optimizer` as a name, or
    None for an optimizer object, whose state is saved apart; `loss`, `metrics`,
    `loss_weights`, `weighted_metrics`, `run_eagerly`, `steps_per_execution`,
    `jit_compile`) and a message for each argument written as None because it holds an
    object without a Keras config (e.g. a `torch.nn` loss).

    `compile()` takes this snapshot before its metric containers prefix metric names with
    output names, so a reloaded model gets the names the user gave.
    """
    config: dict[str, Any] = {"optimizer": optimizer if isinstance(optimizer, str) else None}
    problems: list[str] = []
    for name, value in (("loss", loss), ("metrics", metrics),
                        ("loss_weights", loss_weights), ("weighted_metrics", weighted_metrics)):
        try:
            config[name] = _serialize(value, name)
        except (ValueError, TypeError, NotImplementedError) as error:
            problems.append(
                f"compile(): `{name}` cannot be saved with the model ({error}); model.save() "
                f"writes {name}=None and a reloaded model must be compiled again with it."
            )
            config[name] = None
    config.update(
        {"run_eagerly": run_eagerly, "steps_per_execution": steps_per_execution,
         "jit_compile": jit_compile}
    )
    return config, problems


def warn_problems(problems: list[str]) -> None:
    """Warns (UserWarning) once per argument that `model.save()` cannot write."""
    for message in problems:
        warnings.warn(message, UserWarning, stacklevel=4)


def _is_serialized_object(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("class_name"), str) and (
        "config" in value)


def _deserialize(value: Any, custom_objects: dict | None) -> Any:
    if _is_serialized_object(value):
        return _registry.deserialize_keras_object(value, custom_objects=custom_objects)
    if isinstance(value, list):
        return [_deserialize(v, custom_objects) for v in value]
    if isinstance(value, dict):
        return {k: _deserialize(v, custom_objects) for k, v in value.items()}
    return value


def deserialize_compile_args(config: dict, custom_objects: dict | None = None) -> dict:
    """Returns `compile()`'s `loss`, `metrics`, `loss_weights` and `weighted_metrics` from a
    compile config (ours or Keras 2.15's): serialized loss and metric objects rebuilt through
    the safe registry. Raises ValueError naming an unknown class."""
    args = {name: _deserialize(config.get(name), custom_objects) for name in _OBJECT_ARGS}
    args["loss_weights"] = config.get("loss_weights")
    return args


def unnest_single_output_metrics(args: dict, n_outputs: int) -> dict:
    """Keras 2's h5 `training_config` lists metrics per output (`[[AUC]]` for one output);
    returns `args` with that outer list removed for a single-output model."""
    if n_outputs != 1:
        return args
    args = dict(args)
    for name in ("metrics", "weighted_metrics"):
        value = args.get(name)
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
            args[name] = value[0]
    return args
