"""tf.random's stateless ops (pure functions of their seed pair) and tf.random.experimental's split
and fold_in."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.random_ops._samplers import (
    _categorical,
    _gamma,
    _normal,
    _poisson,
    _shape,
    _truncated,
    _uniform,
)
from torchestimator._ops.random_ops._seeds import (
    Tensor,
    _mix,
    _on_op_device,
    _seed_pair,
    _stateless_generator,
)
from torchestimator.errors import InvalidArgumentError

# ----------------------------------------------------------------------------- stateless ops


def stateless_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Outputs deterministic pseudorandom values from a normal distribution, as TF's
    `tf.random.stateless_normal` (the same `seed` of shape [2] gives the same values).

    Returns:
        A tensor of the specified shape filled with random normal values.
    """
    op = "random.stateless_normal"
    return _on_op_device(_normal(shape, mean, stddev, dtype, _stateless_generator(seed, op), op))


def stateless_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = torch.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Outputs deterministic pseudorandom values from a uniform distribution, as TF's
    `tf.random.stateless_uniform` (integers: `minval` and `maxval` both set, or both None for the
    dtype's full range).

    Returns:
        A tensor of the specified shape filled with random uniform values.
    """
    op = "random.stateless_uniform"
    return _on_op_device(
        _uniform(shape, minval, maxval, dtype, _stateless_generator(seed, op), op, True))


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Outputs deterministic pseudorandom values from a truncated normal distribution, as TF's
    `tf.random.stateless_truncated_normal`.

    Returns:
        A tensor of the specified shape filled with random truncated normal values.
    """
    op = "random.stateless_truncated_normal"
    return _on_op_device(
        _truncated(shape, mean, stddev, dtype, _stateless_generator(seed, op), op))


def stateless_categorical(
    logits: Any, num_samples: Any, seed: Any, dtype: Any = torch.int64, name: str | None = None
) -> Tensor:
    """Draws deterministic pseudorandom samples from a categorical distribution, as TF's
    `tf.random.stateless_categorical`.

    Returns:
        The drawn samples of shape `[batch_size, num_samples]`.
    """
    op = "random.stateless_categorical"
    samples = _categorical(logits, num_samples, dtype, _stateless_generator(seed, op), op)
    return samples if isinstance(logits, Tensor) else _on_op_device(samples)  # else: logits


def stateless_gamma(
    shape: Any,
    seed: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = torch.float32,
    name: str | None = None,
) -> Tensor:
    """Outputs deterministic pseudorandom values from Gamma distributions, as TF's
    `tf.random.stateless_gamma`.

    Returns:
        A tensor of shape `shape` (which must end with the broadcast shape of alpha and beta in
        TF; here `shape + broadcast_shape` when it does not) of samples.
    """
    op = "random.stateless_gamma"
    shape, params = _stateless_param_shape(shape, alpha, beta, op)
    return _on_op_device(
        _gamma(shape, alpha, beta, dtype, _stateless_generator(seed, op), op).reshape(params))


def stateless_poisson(
    shape: Any, seed: Any, lam: Any, dtype: Any = torch.int32, name: str | None = None
) -> Tensor:
    """Outputs deterministic pseudorandom values from Poisson distributions, as TF's
    `tf.random.stateless_poisson`.

    Returns:
        A tensor of the specified shape (whose trailing dimensions broadcast with `lam`).
    """
    op = "random.stateless_poisson"
    shape, params = _stateless_param_shape(shape, lam, None, op)
    return _on_op_device(
        _poisson(shape, lam, dtype, _stateless_generator(seed, op), op).reshape(params))


def _stateless_param_shape(
    shape: Any, a: Any, b: Any, op: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """TF's stateless gamma/poisson take the full output shape, ending with the parameters'
    broadcast shape: returns (the leading sample shape, the full shape)."""
    full = _shape(shape, op)
    param_shape = tuple(np.broadcast_shapes(np.shape(_as_array(a)), np.shape(_as_array(b))))
    if len(param_shape) > len(full) or full[len(full) - len(param_shape) :] != param_shape:
        if any(d != 1 for d in param_shape):
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: shape {list(full)} must end with the parameters' shape "
                f"{list(param_shape)}.",
            )
        param_shape = ()
    lead = full[: len(full) - len(param_shape)]
    return lead, full


def _as_array(value: Any) -> Any:
    if value is None:
        return 0.0
    if isinstance(value, Tensor):
        return np.empty(tuple(value.shape))
    return np.asarray(value)


def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """Splits an RNG seed into `num` new seeds by adding a leading axis, as TF's
    `tf.random.split` (deterministic in `seed`).

    Returns:
        An int64 tensor of shape `[num, 2]`.
    """
    gen = _stateless_generator(seed, "random.split")
    return torch.randint(-(2**62), 2**62, (int(num), 2), generator=gen, dtype=torch.int64)


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """Folds in data to an RNG seed to form a new RNG seed, as TF's `tf.random.fold_in`.

    Returns:
        An int64 tensor of shape `[2]`, a function of `seed` and `data`.
    """
    first, second = _seed_pair(seed, "random.fold_in")
    data = int(data.item() if isinstance(data, Tensor) else data)
    gen = torch.Generator().manual_seed(_mix(_mix(first, second), data))
    return torch.randint(-(2**62), 2**62, (2,), generator=gen, dtype=torch.int64)
