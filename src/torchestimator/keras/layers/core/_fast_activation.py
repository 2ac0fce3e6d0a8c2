"""Maps a Keras activation function to the torch function `call()` runs, so a layer's
forward pass costs what the equivalent `torch.nn` code costs."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from torchestimator.keras import activations


def _softmax_last(x: torch.Tensor) -> torch.Tensor:
    output = torch.softmax(x, dim=-1)
    output._keras_logits = x  # as `activations.softmax`: the crossentropy losses use the logits
    return output


def _sigmoid(x: torch.Tensor) -> torch.Tensor:
    output = torch.sigmoid(x)
    output._keras_logits = x  # as `activations.sigmoid`
    return output


_FAST: dict[Callable, Callable] = {
    activations.relu: torch.relu,
    activations.sigmoid: _sigmoid,
    activations.tanh: torch.tanh,
    activations.softmax: _softmax_last,
    activations.elu: F.elu,
    activations.selu: torch.selu,
    activations.swish: F.silu,
    activations.silu: F.silu,
    activations.gelu: F.gelu,
    activations.relu6: F.relu6,
    activations.exponential: torch.exp,
    activations.softsign: F.softsign,
    activations.softplus: F.softplus,
    activations.mish: F.mish,
}


def fast_activation(function: Callable) -> Callable | None:
    """Returns the function to apply in `call()`: None for the linear activation,
    a direct torch kernel for the common built-ins, else `function` itself."""
    if function is None or function is activations.linear:
        return None
    try:
        return _FAST.get(function, function)
    except TypeError:  # an unhashable callable object
        return function
