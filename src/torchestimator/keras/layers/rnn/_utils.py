"""Small helpers shared by the recurrent layers: argument checks, building a sublayer
for a known shape, activation identity tests, and weight casting."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras import activations


def check_units(units: Any, layer: str) -> int:
    """Returns `units` as an int, or raises ValueError naming the layer and the value."""
    if isinstance(units, bool) or not hasattr(units, "__index__"):
        raise ValueError(
            f"{layer}: received an invalid value for argument `units`, expected a positive "
            f"integer, got {units!r}."
        )
    units = int(units)
    if units <= 0:
        raise ValueError(
            f"{layer}: received an invalid value for argument `units`, expected a positive "
            f"integer, got {units}."
        )
    return units


def check_rate(value: Any, name: str, layer: str) -> float:
    """Returns a dropout rate as a float in [0, 1), or raises ValueError naming it."""
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"{layer}: `{name}` must be a float in [0, 1), got {value!r}."
        ) from None
    if not 0.0 <= rate < 1.0:
        raise ValueError(
            f"{layer}: `{name}` must be a float in [0, 1) (the fraction of units to drop), "
            f"got {value!r}."
        )
    return rate


def is_tanh(fn: Any) -> bool:
    """True when `fn` computes tanh (Keras' or torch's)."""
    return fn is activations.tanh or fn is torch.tanh or fn is F.tanh


def is_sigmoid(fn: Any) -> bool:
    """True when `fn` computes the logistic sigmoid (Keras' or torch's)."""
    return fn is activations.sigmoid or fn is torch.sigmoid or fn is F.sigmoid


def is_relu(fn: Any) -> bool:
    """True when `fn` computes the plain relu (Keras' default-argument relu or torch's)."""
    return fn is activations.relu or fn is torch.relu or fn is F.relu


def cast_weight(weight: torch.Tensor | None, dtype: torch.dtype) -> torch.Tensor | None:
    """Returns `weight` in the compute dtype `dtype` (mixed precision keeps float32 weights)."""
    if weight is None or weight.dtype == dtype:
        return weight
    return weight.to(dtype)


def build_sublayer(layer: Any, input_shape: tuple, device: torch.device | None) -> None:
    """Builds `layer` (a Keras Layer inside another) for `input_shape`, on `device`."""
    if layer.built:
        return
    layer._build_device = device
    layer._build_shapes = tuple(input_shape)
    layer.build(tuple(input_shape))
    layer.built = True
    if getattr(layer, "_initial_weights", None) is not None:
        layer.set_weights(layer._initial_weights)
        layer._initial_weights = None


def flat_state_sizes(state_size: Any) -> list[int]:
    """Returns a cell's `state_size` as a flat list of ints (an int becomes `[int]`)."""
    if isinstance(state_size, (list, tuple)):
        out: list[int] = []
        for s in state_size:
            out.extend(flat_state_sizes(s))
        return out
    return [int(state_size)]


def split_call_inputs(layer: Any, inputs: Any, initial_state: Any, constants: Any) -> tuple:
    """(inputs, initial_state, constants) of a recurrent layer's call, as TF's: a list input
    is `[inputs, *initial_states, *constants]` (the last `layer._num_constants`, as set by an
    earlier call's `constants=` or the config); `constants=` sets that count."""
    if isinstance(constants, torch.Tensor):
        constants = [constants]
    if constants is not None:
        constants = list(constants)
        layer._num_constants = len(constants)
    if isinstance(inputs, (list, tuple)):
        n = layer._num_constants
        rest = list(inputs[1:])
        if n and constants is None and len(rest) >= n:
            constants = rest[len(rest) - n:]
            rest = rest[:len(rest) - n]
        if initial_state is None and rest:
            initial_state = rest
        inputs = inputs[0]
    return inputs, initial_state, constants
