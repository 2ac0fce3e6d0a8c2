"""The helpers of `Layer.__call__` and `Layer.add_weight`: input conversion, shapes, masks,
torch hook detection, the fast input-spec check, and resolving initializers, regularizers and
constraints by name."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.modules.module as _torch_module

from torchestimator._ops import nest
from torchestimator._torch_private import is_tracing
from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.backend._state import _snake_case
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.engine.keras_tensor import KerasTensor


def _shape_of(value: Any) -> Any:
    """The shape (batch dim None) of a tensor, or a structure of shapes."""
    if isinstance(value, KerasTensor):
        return value.shape
    if isinstance(value, (torch.Tensor, np.ndarray)):
        shape = tuple(value.shape)
        return (None,) + shape[1:] if shape else shape
    if isinstance(value, dict):
        return {k: _shape_of(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (int, np.integer, float, str)) for v in value):
            return (None,)
        return [_shape_of(v) for v in value]
    return None


def _check_object_array(array: np.ndarray) -> None:
    """Raises TF's ValueError for a numpy object array of numbers or bools (TF converts an
    object array only when it holds str/bytes; a pandas frame of mixed int/float/bool columns
    gives one). Only the first item is looked at, so a string array costs nothing."""
    if array.size:
        item = array.flat[0]
        if isinstance(item, (bool, int, float, complex, np.number, np.bool_)):
            raise ValueError(
                "Failed to convert a NumPy array to a Tensor (Unsupported object type "
                f"{type(item).__name__}). The array has dtype object and shape {array.shape}; "
                "convert it to a numeric dtype first, e.g. `np.asarray(x).astype('float32')`."
            )


def _to_tensor(value: Any, dtype: torch.dtype | None) -> Any:
    """Converts numeric numpy arrays (also inside lists/dicts) to tensors; strings stay numpy."""
    if type(value) is torch.Tensor or isinstance(value, torch.Tensor):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OUS":
            if value.dtype.kind == "O":
                _check_object_array(value)
            return value
        # np.ascontiguousarray makes a 0-d array 1-d; a 0-d array is contiguous as it is
        t = torch.from_numpy(np.ascontiguousarray(value) if value.ndim else value.copy())
        if dtype is not None and t.is_floating_point() and dtype.is_floating_point and t.dtype != dtype:
            t = t.to(dtype)
        return t
    if isinstance(value, dict):
        # No cache across calls: a dict of numpy arrays may be written in place between two
        # calls, and nothing cheap tells. Inside fit/model_fn batches arrive as tensors (the loop
        # converts them), so this conversion changes nothing there and the caller's dict is kept,
        # which is what lets layers share per-batch caches keyed on it (FeatureTransformationCache).
        if all(type(v) is torch.Tensor for v in value.values()):
            return value  # nothing to convert (the usual case inside fit and model_fn)
        converted = {k: _to_tensor(v, dtype) for k, v in value.items()}
        if all(converted[k] is v for k, v in value.items()):
            return value  # nothing changed: keep the caller's dict (layers may key caches on it)
        return converted
    if isinstance(value, list) and value and all(
        isinstance(v, (torch.Tensor, np.ndarray, KerasTensor)) for v in value
    ):
        return [_to_tensor(v, dtype) for v in value]
    if isinstance(value, tuple) and value and all(
        isinstance(v, (torch.Tensor, np.ndarray, KerasTensor)) for v in value
    ):
        return tuple(_to_tensor(v, dtype) for v in value)
    return value


def _holds_tensor(value: Any) -> bool:
    """True if `value` is a torch tensor or a dict/list/tuple holding one (at any depth)."""
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, dict):
        return any(_holds_tensor(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(v) for v in value)
    return False


def _first_tensor(value: Any) -> torch.Tensor | None:
    for leaf in nest.flatten(value):
        if isinstance(leaf, torch.Tensor):
            return leaf
    return None


_is_tracing = is_tracing  # what torch.jit.is_tracing() returns outside TorchScript


def _has_hooks(module: torch.nn.Module) -> bool:
    """True when torch's module call machinery has work to do (hooks, or a jit trace); then
    the call goes through `nn.Module.__call__`, otherwise straight to `forward`.

    Not a cache: torch's hook dicts are read on every call, so a hook registered (or removed)
    at any time takes effect on the next call, as with `nn.Module`."""
    return bool(
        module._forward_hooks or module._forward_pre_hooks or module._backward_hooks
        or module._backward_pre_hooks or _torch_module._global_forward_hooks
        or _torch_module._global_forward_pre_hooks or _torch_module._global_backward_hooks
        or _torch_module._global_backward_pre_hooks or _is_tracing()
    )


def _fast_spec(spec: Any) -> tuple | bool:
    """(min_ndim, ((axis, size), ...)) for the common InputSpec(min_ndim=k, axes={-1: n}): a check
    that passes only for inputs the full check accepts; False when the spec needs the full check.

    Cached on the spec as `spec._fast` (see `fast_spec_of`); `InputSpec.__setattr__` resets it."""
    if not isinstance(spec, InputSpec) or spec.ndim is not None or spec.max_ndim is not None:
        return False
    if spec.shape is not None or spec.dtype is not None or spec.allow_last_axis_squeeze:
        return False
    if any(axis >= 0 for axis in spec.axes) or any(n is None for n in spec.axes.values()):
        return False
    min_ndim = max([spec.min_ndim or 0] + [-axis for axis in spec.axes])
    return (min_ndim, tuple(spec.axes.items()))


def fast_spec_of(spec: InputSpec) -> tuple | bool:
    """`spec._fast`, computed the first time (and again after any attribute of the spec changed)."""
    fast = spec._fast
    if fast is None:
        fast = spec._fast = _fast_spec(spec)
    return fast


def _batch_input_shape_from_kwargs(kwargs: dict) -> tuple | None:
    if kwargs.get("batch_input_shape") is not None:
        return tuple(kwargs["batch_input_shape"])
    if kwargs.get("input_shape") is not None:
        return (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
    if kwargs.get("input_dim") is not None:
        if kwargs.get("input_length") is not None:
            return (kwargs.get("batch_size"), kwargs["input_length"], kwargs["input_dim"])
        return (kwargs.get("batch_size"), kwargs["input_dim"])
    return None


def _collect_mask(inputs: Any) -> Any:
    if isinstance(inputs, torch.Tensor):
        return getattr(inputs, "_keras_mask", None)
    if isinstance(inputs, (list, tuple)):
        masks = [getattr(x, "_keras_mask", None) for x in inputs]
        return None if all(m is None for m in masks) else masks
    return None


def _attach_mask(outputs: Any, mask: Any) -> None:
    if isinstance(outputs, torch.Tensor):
        try:
            outputs._keras_mask = mask
        except (AttributeError, RuntimeError):
            pass
    elif isinstance(outputs, (list, tuple)):
        masks = mask if isinstance(mask, (list, tuple)) else [mask] * len(outputs)
        for o, m in zip(outputs, masks):
            if m is not None:
                _attach_mask(o, m)


def _resolve_initializer(identifier: Any) -> Any:
    if callable(identifier) and not isinstance(identifier, (str, dict, type)):
        return identifier

    fn = initializers.get(identifier)
    if fn is None:
        raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")
    return fn


def _resolve_regularizer(identifier: Any) -> Any:
    if identifier is None:
        return None

    return regularizers.get(identifier)


def _resolve_constraint(identifier: Any) -> Any:
    if identifier is None:
        return None

    return constraints.get(identifier)


def _jsonable_shape(shape: Any) -> Any:
    if isinstance(shape, dict):
        return {k: _jsonable_shape(v) for k, v in shape.items()}
    if isinstance(shape, list) or (isinstance(shape, tuple) and shape and isinstance(shape[0], (tuple, list))):
        return [_jsonable_shape(s) for s in shape]
    return None if shape is None else list(shape)


def _unjson_shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unjson_shape(v) for k, v in value.items()}
    if isinstance(value, list) and value and isinstance(value[0], (list, dict)):
        return [_unjson_shape(v) for v in value]
    return None if value is None else tuple(value)


def _shape_to_spec(shape: Any, dtype: torch.dtype) -> Any:
    """Turns a shape (or a list/dict of shapes) into KerasTensors of `dtype`."""
    if isinstance(shape, dict):
        return {k: _shape_to_spec(v, dtype) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
        return [_shape_to_spec(s, dtype) for s in shape]
    return KerasTensor(tuple(shape), dtype)


# ---------------------------------------------------------------------- torch child keys
# A functional model (and `Sequential`) registers its layers as torch children under keys that
# depend only on the architecture and the names the user gave: the user-given name, else the
# layer's position in `model.layers` (as `nn.Sequential` numbers its children). Keras' own
# files (`save_weights`, `.keras`, Estimator checkpoints) keep naming weights by layer name
# (`dense_3.kernel`): `keras_state_dict` translates, through the map each model keeps in
# `_keras_child_names` (torch child key -> Keras name).

#: The torch key of a `Sequential`'s InputLayer (not among `model.layers`) when auto-named.
INPUT_LAYER_KEY = "input_layer"


def is_auto_name(name: str, layer_type: type) -> bool:
    """True when `name` has the form of a Keras default name for `layer_type`: the snake-cased
    name of a class in its MRO (or `input`/`model`), optionally followed by `_<number>`. Such a
    name depends on how many objects the process made before, so it must not key a child."""

    bases = {"input", "model"}
    bases.update(_snake_case(cls.__name__) for cls in layer_type.__mro__)
    base, _, suffix = name.rpartition("_")
    return name in bases or (suffix.isdigit() and base in bases)


def _shadows_attribute(module: torch.nn.Module, name: str) -> bool:
    """True when `name` is already an attribute of `module` other than a child (torch's
    `add_module` refuses such names), checked without running properties."""
    return name not in module._modules and (
        hasattr(type(module), name) or name in module.__dict__
        or name in module._parameters or name in module._buffers
    )


def keras_child_name(module: torch.nn.Module, layer: Any) -> str:
    """The child key the model used before keys became positional (the layer's Keras name, or
    `layer_<name>` where torch refused the name); `keras_state_dict` writes it in files."""
    name = layer.name
    if not name or "." in name or _shadows_attribute(module, name):
        return f"layer_{name}"
    return name


def torch_child_key(module: torch.nn.Module, layer: Any, position: int | None,
                    taken: set[str]) -> str:
    """The torch key of graph layer `layer` of model `module`: its user-given name where that
    is a usable, free key; else its `position` in `module.layers` (`INPUT_LAYER_KEY` for a
    Sequential's InputLayer, which has none)."""
    name = layer.name
    usable = (
        bool(name) and "." not in name and not name.isdigit() and name != INPUT_LAYER_KEY
        and not is_auto_name(name, type(layer)) and name not in taken
        and module._modules.get(name, layer) is layer and not _shadows_attribute(module, name)
    )
    if usable:
        return name
    return INPUT_LAYER_KEY if position is None else str(position)


def register_children(module: torch.nn.Module, layers: list, positions: list) -> None:
    """Registers each of `layers` as a child of `module` under its `torch_child_key` (its
    `positions` entry: its index in `module.layers`, or None), in order, moving a layer
    registered earlier under another key, and records its Keras name for the files."""
    names: dict[str, str] = module.__dict__.setdefault("_keras_child_names", {})
    taken: set[str] = set()
    for layer, position in zip(layers, positions):
        key = torch_child_key(module, layer, position, taken)
        taken.add(key)
        if module._modules.get(key) is layer:
            continue
        names[key] = keras_child_name(module, layer)
        for old, child in list(module._modules.items()):
            if child is layer and old in names:
                del module._modules[old]
        module.add_module(key, layer)


def _module_paths(module: torch.nn.Module) -> dict[str, str]:
    """Maps the torch path of every submodule (`""`, `"0"`, `"0.cell"`, ...) to its Keras path
    (`""`, `"dense_3"`, `"dense_3.cell"`), each path as `state_dict` walks them."""
    out: dict[str, str] = {}

    def walk(current: torch.nn.Module, torch_path: str, keras_path: str, depth: int) -> None:
        out[torch_path] = keras_path
        if depth > 100:  # a module graph with a cycle
            return
        names = current.__dict__.get("_keras_child_names", {})
        for key, child in current._modules.items():
            if child is not None:
                walk(child, _join(torch_path, key), _join(keras_path, names.get(key, key)),
                     depth + 1)

    walk(module, "", "", 0)
    return out


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def keras_key_map(module: torch.nn.Module, keys: Any) -> dict[str, str]:
    """Maps each torch `state_dict` key in `keys` to its Keras key (the layer names in place of
    a model's positional child keys); keys outside any model's children map to themselves."""
    paths = _module_paths(module)
    out = {}
    for key in keys:
        parts = key.split(".")
        for cut in range(len(parts) - 1, -1, -1):
            prefix = ".".join(parts[:cut])
            if prefix in paths:
                out[key] = _join(paths[prefix], ".".join(parts[cut:]))
                break
        else:
            out[key] = key
    return out


def keras_state_dict(module: torch.nn.Module, keep_vars: bool = False) -> dict[str, Any]:
    """`module.state_dict()` keyed as Keras' files name weights: by layer name
    (`dense_3.kernel`) where the torch key is positional (`0.kernel`)."""
    state = module.state_dict(keep_vars=keep_vars)
    names = keras_key_map(module, state)
    return {names[key]: value for key, value in state.items()}


def load_keras_state_dict(module: torch.nn.Module, state: dict[str, Any],
                          strict: bool = True) -> Any:
    """`module.load_state_dict` for a state keyed as `keras_state_dict` keys it; keys that are
    not Keras keys of `module` pass through unchanged."""
    names = keras_key_map(module, module.state_dict())
    torch_keys = {keras: key for key, keras in names.items()}
    return module.load_state_dict({torch_keys.get(k, k): v for k, v in state.items()},
                                  strict=strict)


def describe_key_mismatch(module: torch.nn.Module, missing: list[str],
                          unexpected: list[str]) -> str:
    """Names the layers behind `missing` and `unexpected` state-dict keys of `module`:
    `layer "0" (dense_3, Dense): missing kernel, bias`; with a hint when the unexpected keys
    are the Keras-named keys of `module`'s own weights."""
    paths = dict(module.named_modules(remove_duplicate=False))
    lines = []
    for what, keys in (("missing", missing), ("unexpected", unexpected)):
        groups: dict[str, list[str]] = {}
        for key in keys:
            head, _, leaf = key.rpartition(".")
            groups.setdefault(head, []).append(leaf)
        for head, leaves in groups.items():
            owner = paths.get(head)
            if owner is None:
                where = f'no layer at "{head}"' if head else "the model itself"
            else:
                label = getattr(owner, "name", None)
                kind = type(owner).__name__
                where = f'layer "{head}" ({label}, {kind})' if head else f"the model ({label}, {kind})"
            lines.append(f"  {what} in {where}: {', '.join(leaves)}")
    own = keras_key_map(module, module.state_dict())
    if unexpected and set(unexpected) <= set(own.values()) - set(own):
        lines.append(
            "  The unexpected keys are this model's weights under their Keras layer names "
            "(keras_state_dict's keys): torch keys name a model's layers by position or by the "
            "name you gave them. Load Keras-named weights with model.load_weights(...) or "
            "layer_utils.load_keras_state_dict(model, state)."
        )
    return "\n".join(lines)
