"""The built-in activation functions of `tf.keras.activations`, on torch tensors.

Each function takes a tensor (numpy arrays and lists are converted to float
tensors) and returns a tensor of the same shape. Names, arguments and defaults
are Keras 2.15's; `leaky_relu`, `relu6`, `silu`, `hard_silu`/`hard_swish` and
`log_softmax` follow Keras 3, where they became public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from torchestimator.keras._tensors import as_float_tensor

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def with_keras_logits(output: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """Returns `output` (a softmax or sigmoid of `logits`) carrying `_keras_logits`, as Keras
    2.15's backend does: the crossentropy losses then compute from the logits (TF's graph-mode
    losses do the same for any Softmax/Sigmoid op), one fused and stable kernel."""
    output._keras_logits = logits
    return output


def softmax(x: Any, axis: int | Sequence[int] = -1) -> torch.Tensor:
    """Softmax converts a vector of values to a probability distribution.

    The elements of the output are in range (0, 1) and sum to 1 along `axis`;
    each vector is handled independently: `exp(x) / reduce_sum(exp(x), axis)`.

    Args:
        x: Input tensor, of rank 2 or more.
        axis: Integer (or tuple of integers) along which the normalization is applied.

    Returns:
        Tensor, output of softmax transformation (all values are non-negative and
        sum to 1 along `axis`).
    """
    x = as_float_tensor(x)
    if x.dim() <= 1:
        raise ValueError(
            f"Cannot apply softmax to a tensor that is 1D. Received input of shape "
            f"{tuple(x.shape)}; add a batch dimension (e.g. x[None, :]) first."
        )
    if isinstance(axis, int):
        output = torch.softmax(x, dim=axis)
    else:
        dims = tuple(axis)
        shifted = torch.exp(x - torch.amax(x, dim=dims, keepdim=True))
        output = shifted / torch.sum(shifted, dim=dims, keepdim=True)
    return with_keras_logits(output, x)


def log_softmax(x: Any, axis: int = -1) -> torch.Tensor:
    """Log-Softmax activation function: `x - log(reduce_sum(exp(x), axis))`.

    Returns:
        Tensor of the logarithm of the softmax of `x` along `axis`.
    """
    x = as_float_tensor(x)
    return torch.log_softmax(x, dim=axis)


def elu(x: Any, alpha: float = 1.0) -> torch.Tensor:
    """Exponential Linear Unit.

    Returns:
        `x` if `x > 0` and `alpha * (exp(x) - 1)` if `x < 0`.
    """
    x = as_float_tensor(x)
    return torch.where(x > 0, x, alpha * torch.expm1(torch.clamp(x, max=0.0)))


def selu(x: Any) -> torch.Tensor:
    """Scaled Exponential Linear Unit (SELU).

    Returns:
        `scale * x` if `x > 0` and `scale * alpha * (exp(x) - 1)` if `x < 0`, with
        `alpha=1.67326324` and `scale=1.05070098`.
    """
    return F.selu(as_float_tensor(x))


def softplus(x: Any) -> torch.Tensor:
    """Softplus activation function.

    Returns:
        The softplus activation: `log(exp(x) + 1)`.
    """
    x = as_float_tensor(x)
    return torch.logaddexp(x, torch.zeros((), dtype=x.dtype, device=x.device))


def softsign(x: Any) -> torch.Tensor:
    """Softsign activation function.

    Returns:
        The softsign activation: `x / (abs(x) + 1)`.
    """
    return F.softsign(as_float_tensor(x))


def swish(x: Any) -> torch.Tensor:
    """Swish (or SiLU) activation function.

    Returns:
        The swish activation applied to `x`: `x * sigmoid(x)`.
    """
    return F.silu(as_float_tensor(x))


def silu(x: Any) -> torch.Tensor:
    """Swish (or SiLU) activation function, `x * sigmoid(x)` (Keras 3's name for `swish`).

    Returns:
        `x * sigmoid(x)`.
    """
    return F.silu(as_float_tensor(x))


def relu(
    x: Any, alpha: float = 0.0, max_value: float | None = None, threshold: float = 0.0
) -> torch.Tensor:
    """Applies the rectified linear unit activation function.

    With default values, this returns the standard ReLU activation:
    `max(x, 0)`, the element-wise maximum of 0 and the input tensor.
    Otherwise it follows: `f(x) = max_value` for `x >= max_value`,
    `f(x) = x` for `threshold <= x < max_value`,
    `f(x) = alpha * (x - threshold)` otherwise.

    Args:
        x: Input tensor.
        alpha: A float that governs the slope for values lower than the threshold.
        max_value: A float that sets the saturation threshold (the largest value
            the function will return).
        threshold: A float giving the threshold value of the activation function
            below which values will be damped or set to zero.

    Returns:
        A tensor of the same shape and dtype as `x`, transformed by the relu
        activation function.
    """
    x = as_float_tensor(x)
    if alpha != 0.0:
        negative_part = torch.relu(threshold - x)
    if threshold != 0.0:
        out = x * (x > threshold).to(x.dtype)
    else:
        out = torch.relu(x)
    if max_value is not None:
        out = torch.clamp(out, min=0.0, max=float(max_value))
    if alpha != 0.0:
        out = out - alpha * negative_part
    return out


def relu6(x: Any) -> torch.Tensor:
    """Relu6 activation function: the ReLU function, capped at 6.

    Returns:
        `min(max(x, 0), 6)`.
    """
    return F.relu6(as_float_tensor(x))


def leaky_relu(x: Any, negative_slope: float = 0.2, *, alpha: float | None = None) -> torch.Tensor:
    """Leaky relu activation function (Keras 3).

    Args:
        x: Input tensor.
        negative_slope: Slope of the activation function at `x < 0`. `alpha`
            (keyword only) is accepted as another name for it.

    Returns:
        `x` if `x >= 0` else `negative_slope * x`.
    """
    slope = negative_slope if alpha is None else alpha
    x = as_float_tensor(x)
    return torch.where(x >= 0, x, x * slope)


def gelu(x: Any, approximate: bool = False) -> torch.Tensor:
    """Applies the Gaussian error linear unit (GELU) activation function.

    Args:
        x: Input tensor.
        approximate: A bool, whether to enable the tanh approximation.

    Returns:
        `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))` if
        `approximate` is True, else `x * P(X <= x) = 0.5 * x * (1 + erf(x / sqrt(2)))`
        where `P(X) ~ N(0, 1)`.
    """
    return F.gelu(as_float_tensor(x), approximate="tanh" if approximate else "none")


def tanh(x: Any) -> torch.Tensor:
    """Hyperbolic tangent activation function.

    Returns:
        Tensor of the same shape and dtype as `x`: `tanh(x) = sinh(x) / cosh(x)`.
    """
    return torch.tanh(as_float_tensor(x))


def sigmoid(x: Any) -> torch.Tensor:
    """Sigmoid activation function.

    Returns:
        Tensor with the sigmoid activation: `1 / (1 + exp(-x))`.
    """
    x = as_float_tensor(x)
    return with_keras_logits(torch.sigmoid(x), x)


def exponential(x: Any) -> torch.Tensor:
    """Exponential activation function.

    Returns:
        Tensor with exponential activation: `exp(x)`.
    """
    return torch.exp(as_float_tensor(x))


def hard_sigmoid(x: Any) -> torch.Tensor:
    """Hard sigmoid activation function, a faster approximation of the sigmoid.

    Returns:
        The hard sigmoid activation (Keras 2.15's definition): 0 if `x < -2.5`,
        1 if `x > 2.5`, `0.2 * x + 0.5` if `-2.5 <= x <= 2.5`.
    """
    x = as_float_tensor(x)
    return torch.clamp(x * 0.2 + 0.5, 0.0, 1.0)


def hard_silu(x: Any) -> torch.Tensor:
    """Hard SiLU activation function, also known as Hard Swish (Keras 3).

    Returns:
        `x * relu6(x + 3) / 6`: 0 if `x < -3`, `x` if `x > 3`, `x * (x + 3) / 6` between.
    """
    return F.hardswish(as_float_tensor(x))


hard_swish = hard_silu


def linear(x: Any) -> Any:
    """Linear activation function (pass-through).

    Returns:
        The input, unmodified.
    """
    return x


def mish(x: Any) -> torch.Tensor:
    """Mish activation function.

    Returns:
        The mish activation: `x * tanh(softplus(x))`.
    """
    return F.mish(as_float_tensor(x))

