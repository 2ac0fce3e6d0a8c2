"""tf.nn's activations, softmax / log_softmax and dropout."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._ops import random_ops
from torchestimator._ops.convert import dtype_name, normalize_axis, shapes_error
from torchestimator._ops.nn_ops._common import Tensor, _floating, _like, _numeric, _tensor
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- activations


def relu(features: Any, name: str | None = None) -> Tensor:
    """Computes rectified linear: `max(features, 0)`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or features.dtype is torch.bool:
        features = _numeric(features, "relu")
    return torch.relu(features)


def relu6(features: Any, name: str | None = None) -> Tensor:
    """Computes Rectified Linear 6: `min(max(features, 0), 6)`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _numeric(features, "relu6")
        if not features.is_floating_point():
            return torch.clamp(features, 0, 6)
    return F.relu6(features)


def crelu(features: Any, axis: int = -1, name: str | None = None) -> Tensor:
    """Computes Concatenated ReLU: `concat([relu(features), relu(-features)], axis)`.

    Returns:
        A tensor with the same type as `features`, twice as large along `axis`.
    """
    features = _numeric(features, "crelu")
    axis = normalize_axis(axis, features.ndim, "crelu")
    return torch.cat([torch.relu(features), torch.relu(-features)], dim=axis)


def elu(features: Any, name: str | None = None) -> Tensor:
    """Computes the exponential linear function: `features` if > 0, else `exp(features) - 1`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "elu")
    return F.elu(features)


def selu(features: Any, name: str | None = None) -> Tensor:
    """Computes scaled exponential linear: `scale * alpha * (exp(features) - 1)` if < 0, else
    `scale * features` (alpha 1.6732632, scale 1.0507010).

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "selu")
    return F.selu(features)


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """Computes the Gaussian Error Linear Unit: `x * P(X <= x)` with `X ~ N(0, 1)`, or its
    `tanh` approximation when `approximate=True`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "gelu")
    return F.gelu(features, approximate="tanh" if approximate else "none")


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """Computes the Leaky ReLU activation: `features` if > 0, else `alpha * features`
    (integer features are cast to float32 first, as in TF).

    Returns:
        The activation value.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _numeric(features, "leaky_relu")
        if not features.is_floating_point():
            features = features.to(torch.float32)
    if isinstance(alpha, (Tensor, np.ndarray)):
        alpha = alpha.item()
    return F.leaky_relu(features, alpha)


def softsign(features: Any, name: str | None = None) -> Tensor:
    """Computes the softsign: `features / (abs(features) + 1)`.

    Returns:
        A tensor with the same type as `features`.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "softsign")
    return F.softsign(features)


def swish(features: Any, beta: Any = 1.0) -> Tensor:
    """Computes the SiLU or Swish activation: `features * sigmoid(beta * features)`.

    Returns:
        The activation value.
    """
    if type(features) is not Tensor or not features.is_floating_point():
        features = _floating(features, "swish")
    if isinstance(beta, (int, float)) and beta == 1.0:
        return F.silu(features)
    return features * torch.sigmoid(_like(beta, features, "beta") * features)


silu = swish


def softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """Computes softmax activations: `exp(logits) / reduce_sum(exp(logits), axis, keepdims=True)`
    (`axis` defaults to -1, the last dimension).

    Returns:
        A tensor with the same type and shape as `logits`.
    """
    if type(logits) is Tensor and axis is None and logits.ndim and logits.is_floating_point():
        return torch.softmax(logits, -1)
    logits, axis = _softmax_args(logits, axis, "softmax")
    return torch.softmax(logits, axis)


def log_softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """Computes log softmax activations: `logits - log(reduce_sum(exp(logits), axis))`.

    Returns:
        A tensor with the same type and shape as `logits`.
    """
    if type(logits) is Tensor and axis is None and logits.ndim and logits.is_floating_point():
        return torch.log_softmax(logits, -1)
    logits, axis = _softmax_args(logits, axis, "log_softmax")
    return torch.log_softmax(logits, axis)


def _softmax_args(logits: Any, axis: Any, op: str) -> tuple[Tensor, int]:
    logits = _floating(logits, op, "logits")
    if logits.ndim == 0:
        raise InvalidArgumentError(
            None, None, f"{op}: logits must have at least one dimension, got a scalar."
        )
    return logits, normalize_axis(-1 if axis is None else axis, logits.ndim, op)


# ----------------------------------------------------------------------------- dropout


def dropout(
    x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None
) -> Tensor:
    """Computes dropout: randomly sets elements to zero with probability `rate` and scales the
    kept ones by `1 / (1 - rate)` (always applied; Keras' `Dropout` layer applies it in training
    only). `noise_shape` (None entries take `x`'s size) shares the mask along dimensions of size 1.

    Returns:
        A tensor of the same shape as `x`.
    """
    x = _tensor(x, "dropout", "x")
    if not x.is_floating_point():
        raise ValueError(
            "dropout: `x.dtype` must be a floating point tensor as `x` will be scaled. "
            f"Received: x_dtype={dtype_name(x.dtype)}"
        )
    if isinstance(rate, (Tensor, np.ndarray)):
        rate = rate.item()
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(
            "dropout: `rate` must be a scalar tensor or a float in the range [0, 1). Received: "
            f"rate={rate!r}"
        )
    if rate == 0:
        return x
    shape = tuple(x.shape)
    if noise_shape is not None:
        if isinstance(noise_shape, (Tensor, np.ndarray)):
            noise_shape = noise_shape.tolist()
        noise_shape = list(noise_shape)
        if len(noise_shape) == len(shape):
            noise_shape = [s if d is None else d for d, s in zip(noise_shape, shape)]
        noise_shape = tuple(int(d) for d in noise_shape)
        try:
            torch.broadcast_shapes(noise_shape, shape)
        except RuntimeError:
            raise shapes_error(
                "dropout", noise_shape, shape, "noise_shape must broadcast to the shape of x."
            ) from None
        shape = noise_shape
    gen = random_ops._op_generator("dropout", seed, x.device)
    keep = torch.rand(shape, generator=gen, dtype=x.dtype, device=x.device) >= rate
    return x * keep * (1.0 / (1.0 - rate))
