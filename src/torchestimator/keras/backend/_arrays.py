"""Keras 2.15's `tf.keras.backend` shape manipulation, padding, random numbers and
`map_fn`/`foldl`/`foldr`, on the tf-level ops."""

from __future__ import annotations

import builtins
import math as _pymath
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

import torchestimator as _tf
from torchestimator.keras.backend import _state
from torchestimator.keras.backend._core import _t, cast, is_sparse, ndim, to_dense
from torchestimator.keras.backend._state import floatx

_py_all = builtins.all
_py_any = builtins.any

# --------------------------------------------------------------------- shape manipulation
def concatenate(tensors: Sequence[Any], axis: int = -1) -> Any:
    """Concatenates a list of tensors alongside the specified axis."""
    if axis < 0:
        rank = ndim(tensors[0])
        axis = axis % rank if rank else 0
    if _py_all(is_sparse(x) for x in tensors):
        return _tf.sparse.concat(axis, list(tensors))
    return _tf.concat([to_dense(x) for x in tensors], axis)


def reshape(x: Any, shape: Any) -> torch.Tensor:
    """Reshapes a tensor to the specified shape."""
    return _tf.reshape(x, shape)


def permute_dimensions(x: Any, pattern: Any) -> torch.Tensor:
    """Permutes axes in a tensor: `pattern` is a tuple of dimension indices, e.g. (0, 2, 1)."""
    return _tf.transpose(x, perm=list(pattern))


def repeat_elements(x: Any, rep: int, axis: int) -> torch.Tensor:
    """Repeats the elements of a tensor along an axis, like `np.repeat`."""
    return torch.repeat_interleave(_t(x), rep, dim=axis)


def repeat(x: Any, n: int) -> torch.Tensor:
    """Repeats a 2D tensor: (samples, dim) becomes (samples, n, dim)."""
    x = _t(x)
    if x.dim() != 2:
        raise ValueError(f"repeat() needs a 2D tensor (samples, dim); received shape {tuple(x.shape)}")
    return _tf.tile(x.unsqueeze(1), [1, n, 1])


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = "int32") -> torch.Tensor:
    """Creates a 1D tensor containing a sequence of integers (like `np.arange`); a negative
    `start` alone gives an empty sequence."""
    if stop is None and start < 0:
        start = 0
    result = _tf.range(start, limit=stop, delta=step, dtype="int32")
    if dtype != "int32":
        result = cast(result, dtype)
    return result


def tile(x: Any, n: Any) -> torch.Tensor:
    """Creates a tensor by tiling `x` by `n` (an int or a list of ints, one per axis)."""
    if isinstance(n, int):
        n = [n]
    return _tf.tile(x, n)


def flatten(x: Any) -> torch.Tensor:
    """Flatten a tensor: returns it reshaped to 1D."""
    return _tf.reshape(x, [-1])


def batch_flatten(x: Any) -> torch.Tensor:
    """Turn a nD tensor into a 2D tensor with same 0th dimension."""
    x = _t(x)
    return _tf.reshape(x, [-1, _pymath.prod(x.shape[1:])])


def expand_dims(x: Any, axis: int = -1) -> torch.Tensor:
    """Adds a 1-sized dimension at index `axis`."""
    return _tf.expand_dims(x, axis)


def squeeze(x: Any, axis: int) -> torch.Tensor:
    """Removes a 1-dimension from the tensor at index `axis`."""
    return _tf.squeeze(x, [axis])


def stack(x: Sequence[Any], axis: int = 0) -> torch.Tensor:
    """Stacks a list of rank `R` tensors into a rank `R+1` tensor."""
    return _tf.stack(x, axis=axis)


def one_hot(indices: Any, num_classes: int) -> torch.Tensor:
    """Computes the one-hot representation of an integer tensor: shape `input.shape +
    (num_classes,)`, float32."""
    return _tf.one_hot(indices, depth=num_classes, axis=-1)


def reverse(x: Any, axes: Any) -> torch.Tensor:
    """Reverse a tensor along the specified axes (an int or a list of ints)."""
    if isinstance(axes, int):
        axes = [axes]
    return _tf.reverse(x, axes)


def temporal_padding(x: Any, padding: Any = (1, 1)) -> torch.Tensor:
    """Pads the middle dimension of a 3D tensor with (left, right) zeros."""
    if len(padding) != 2:
        raise ValueError(f"temporal_padding(): `padding` must be a (left, right) pair; received {padding}")
    return _tf.pad(x, [[0, 0], [padding[0], padding[1]], [0, 0]])


def _check_data_format(data_format: Any) -> str:
    if data_format is None:
        data_format = _state.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format: " + str(data_format))
    return data_format


def _check_pairs(padding: Any, n: int, fn: str) -> None:
    if len(padding) != n or not _py_all(len(p) == 2 for p in padding):
        raise ValueError(
            f"{fn}(): `padding` must be {n} (before, after) pairs; received {padding}"
        )


def spatial_2d_padding(x: Any, padding: Any = ((1, 1), (1, 1)), data_format: str | None = None) -> torch.Tensor:
    """Pads the 2nd and 3rd dimensions of a 4D tensor (the spatial ones for `data_format`)."""
    _check_pairs(padding, 2, "spatial_2d_padding")
    data_format = _check_data_format(data_format)
    if data_format == "channels_first":
        pattern = [[0, 0], [0, 0], list(padding[0]), list(padding[1])]
    else:
        pattern = [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]
    return _tf.pad(x, pattern)


def spatial_3d_padding(x: Any, padding: Any = ((1, 1), (1, 1), (1, 1)),
                       data_format: str | None = None) -> torch.Tensor:
    """Pads 5D tensor with zeros along the depth, height, width dimensions."""
    _check_pairs(padding, 3, "spatial_3d_padding")
    data_format = _check_data_format(data_format)
    if data_format == "channels_first":
        pattern = [[0, 0], [0, 0]] + [list(p) for p in padding]
    else:
        pattern = [[0, 0]] + [list(p) for p in padding] + [[0, 0]]
    return _tf.pad(x, pattern)


# --------------------------------------------------------------------- random
def _seed(seed: Any) -> int:
    return np.random.randint(10e6) if seed is None else seed


def random_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
                  seed: int | None = None) -> torch.Tensor:
    """Returns a tensor with normal distribution of values."""
    return _tf.random.normal(shape, mean=mean, stddev=stddev, dtype=dtype or floatx(), seed=_seed(seed))


def random_uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None,
                   seed: int | None = None) -> torch.Tensor:
    """Returns a tensor with uniform distribution of values in [minval, maxval)."""
    return _tf.random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype or floatx(),
                              seed=_seed(seed))


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
                     seed: int | None = None) -> torch.Tensor:
    """Returns a tensor with truncated random normal distribution of values (within two
    standard deviations of the mean)."""
    return _tf.random.truncated_normal(shape, mean, stddev, dtype=dtype or floatx(), seed=_seed(seed))


def random_bernoulli(shape: Any, p: float = 0.0, dtype: Any = None, seed: int | None = None) -> torch.Tensor:
    """Returns a tensor with random bernoulli distribution of values: 1 with probability `p`."""
    if dtype is None:
        dtype = floatx()
    u = _tf.random.uniform(shape, dtype=dtype, seed=_seed(seed))
    return _tf.where(u <= p, _tf.ones(shape, dtype=dtype), _tf.zeros(shape, dtype=dtype))


def random_binomial(shape: Any, p: float = 0.0, dtype: Any = None, seed: int | None = None) -> torch.Tensor:
    """Deprecated alias of `random_bernoulli`."""
    warnings.warn(
        "`tf.keras.backend.random_binomial` is deprecated, and will be removed in a future "
        "version.Please use `tf.keras.backend.random_bernoulli` instead.",
        stacklevel=2,
    )
    return random_bernoulli(shape, p, dtype, seed)


# --------------------------------------------------------------------- control flow
def map_fn(fn: Callable, elems: Any, name: str | None = None, dtype: Any = None) -> Any:
    """Map the function `fn` over the elements `elems` (along axis 0) and return the outputs
    stacked."""
    return _tf.map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn: Callable, elems: Any, initializer: Any = None, name: str | None = None) -> Any:
    """Reduce `elems` using `fn` to combine them from left to right."""
    return _tf.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn: Callable, elems: Any, initializer: Any = None, name: str | None = None) -> Any:
    """Reduce `elems` using `fn` to combine them from right to left."""
    return _tf.foldr(fn, elems, initializer=initializer, name=name)
