"""tf.random's stateful ops: normal, uniform, truncated_normal, categorical, shuffle, gamma,
poisson."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator._ops.random_ops._samplers import (
    _categorical,
    _gamma,
    _normal,
    _poisson,
    _truncated,
    _uniform,
)
from torchestimator._ops.random_ops._seeds import Tensor, _op_generator

# ----------------------------------------------------------------------------- stateful ops


def normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Outputs random values from a normal distribution, as TF's `tf.random.normal`.

    `mean` and `stddev` may be tensors that broadcast with `shape`.

    Returns:
        A tensor of the specified shape filled with random normal values.
    """
    return _normal(shape, mean, stddev, dtype, _op_generator("normal", seed), "random.normal")


def uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Outputs random values from a uniform distribution in `[minval, maxval)`, as TF's
    `tf.random.uniform` (`maxval` defaults to 1 for floats and is required for int32/int64).

    Returns:
        A tensor of the specified shape filled with random uniform values.
    """
    return _uniform(
        shape, minval, maxval, dtype, _op_generator("uniform", seed), "random.uniform", False
    )


def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Outputs random values from a truncated normal distribution, as TF's
    `tf.random.truncated_normal`: values beyond two standard deviations from the mean are
    dropped and re-picked (sampled here by the inverse CDF, the same distribution).

    Returns:
        A tensor of the specified shape filled with random truncated normal values.
    """
    return _truncated(
        shape,
        mean,
        stddev,
        dtype,
        _op_generator("truncated_normal", seed),
        "random.truncated_normal",
    )


def categorical(
    logits: Any,
    num_samples: Any,
    dtype: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Draws samples from a categorical distribution, as TF's `tf.random.categorical`.

    `logits` is a 2-D `[batch_size, num_classes]` tensor of unnormalized log-probabilities; a row
    that is all `-inf` gives `num_classes`, as in TF.

    Returns:
        The drawn samples of shape `[batch_size, num_samples]` (int64 unless `dtype` is int32).
    """
    device = logits.device if isinstance(logits, Tensor) else None
    gen = _op_generator("categorical", seed, device)
    return _categorical(logits, num_samples, dtype, gen, "random.categorical")


def shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Any:
    """Randomly shuffles a tensor along its first dimension, as TF's `tf.random.shuffle`.

    Returns:
        A tensor of the same shape and type as `value`, shuffled along its first dimension
        (numpy object arrays of strings are shuffled as well).
    """
    value = convert_to_tensor(value)
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    if isinstance(value, np.ndarray):
        order = torch.randperm(value.shape[0], generator=_op_generator("shuffle", seed, "cpu"))
        return value[order.numpy()]
    gen = _op_generator("shuffle", seed, value.device)
    order = torch.randperm(value.shape[0], generator=gen, device=value.device)
    return value[order]


def gamma(
    shape: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Draws samples from each of the given Gamma distributions (shape `alpha`, inverse scale
    `beta`), as TF's `tf.random.gamma`.

    Returns:
        A tensor of shape `shape + broadcast_shape(alpha, beta)` of samples.
    """
    return _gamma(shape, alpha, beta, dtype, _op_generator("gamma", seed), "random.gamma")


def poisson(
    shape: Any,
    lam: Any,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Draws samples from each of the given Poisson distributions (rates `lam`), as TF's
    `tf.random.poisson`.

    Returns:
        A tensor of shape `shape + lam.shape` of samples, of `dtype`.
    """
    return _poisson(shape, lam, dtype, _op_generator("poisson", seed), "random.poisson")
