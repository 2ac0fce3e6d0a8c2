"""TF1's initializer names (`tf.compat.v1.zeros_initializer`, `glorot_uniform_initializer`,
...: Keras' initializers with TF1's `dtype` argument and `partition_info`) and how
`get_variable` turns an initializer, a class of one or a constant into a variable's first
value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator.keras import initializers as _init


# ------------------------------------------------------------------------- initial values
def _shape_tuple(shape: Any) -> tuple[int, ...] | None:
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, torch.Tensor):
        return tuple(int(d) for d in shape.tolist())
    dims = getattr(shape, "as_list", None)
    values = dims() if callable(dims) else list(shape)
    return tuple(int(d) if d is not None else -1 for d in values)


def _initial_value(name: str, shape: tuple[int, ...] | None, dtype: torch.dtype,
                   initializer: Any) -> torch.Tensor:
    if isinstance(initializer, type):  # TF1 accepts the class: `initializer=tf.zeros_initializer`
        initializer = initializer()
    if initializer is None:  # TF1's defaults: glorot-uniform for floats, zeros for integers/bools
        initializer = _init.GlorotUniform() if dtype.is_floating_point else _init.Zeros()
    if isinstance(initializer, str):
        initializer = _init.get(initializer)
    if callable(initializer) and not isinstance(initializer, torch.Tensor):
        if shape is None or any(d < 0 for d in shape):
            raise ValueError(
                f"Variable {name} did not get an initializer, so its `shape` argument must be "
                "specified." if shape is None else
                f"Shape of a new variable ({name}) must be fully defined, but instead was {shape}."
            )
        with torch.no_grad():
            value = initializer(shape, dtype=dtype)
        value = torch.as_tensor(value) if not isinstance(value, torch.Tensor) else value
        return value.detach().to(dtype).reshape(shape).clone()
    value = initializer.detach() if isinstance(initializer, torch.Tensor) else torch.as_tensor(np.asarray(initializer))
    if shape is not None and tuple(value.shape) != shape:
        raise ValueError("If initializer is a constant, do not specify shape.")
    if not value.is_floating_point() and dtype.is_floating_point and not isinstance(initializer, torch.Tensor):
        value = value.to(dtype)
    return value.clone()


# ------------------------------------------------------------------------- TF1 initializers
def _dtype_or(dtype: Any, default: Any) -> Any:
    return default if dtype is None else dtype


class zeros_initializer(_init.Zeros):
    """TF1 `zeros_initializer(dtype=tf.float32)`: tensors of zeros."""

    def __init__(self, dtype: Any = torch.float32) -> None:
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class ones_initializer(_init.Ones):
    """TF1 `ones_initializer(dtype=tf.float32)`: tensors of ones."""

    def __init__(self, dtype: Any = torch.float32) -> None:
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class constant_initializer(_init.Constant):
    """TF1 `constant_initializer(value=0, dtype=tf.float32, verify_shape=False)`: a scalar
    filled in, or a list/array of exactly the variable's size reshaped to it."""

    def __init__(self, value: Any = 0, dtype: Any = torch.float32, verify_shape: bool = False) -> None:
        self.value = value
        self.dtype = dtype
        self.verify_shape = verify_shape

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = _dtypes.as_dtype(_dtype_or(dtype, self.dtype))
        shape = tuple(_shape_tuple(shape) or ())
        value = np.asarray(self.value)
        if value.ndim == 0:
            return torch.full(shape, value.item(), dtype=dtype)
        if self.verify_shape and tuple(value.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {tuple(value.shape)}.")
        if value.size != int(np.prod(shape)):
            raise TypeError(
                f"constant_initializer: value has {value.size} elements, but the variable of shape "
                f"{shape} has {int(np.prod(shape))}."
            )
        return torch.as_tensor(value.reshape(shape)).to(dtype)


class random_normal_initializer(_init.RandomNormal):
    """TF1 `random_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=tf.float32)`."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = torch.float32) -> None:
        super().__init__(mean=mean, stddev=stddev, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class truncated_normal_initializer(_init.TruncatedNormal):
    """TF1 `truncated_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=tf.float32)`."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = torch.float32) -> None:
        super().__init__(mean=mean, stddev=stddev, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class random_uniform_initializer(_init.RandomUniform):
    """TF1 `random_uniform_initializer(minval=0.0, maxval=None, seed=None, dtype=tf.float32)`:
    uniform on [minval, maxval) (maxval None means 1 for floats)."""

    def __init__(self, minval: float = 0.0, maxval: float | None = None, seed: int | None = None,
                 dtype: Any = torch.float32) -> None:
        super().__init__(minval=minval, maxval=1.0 if maxval is None else maxval, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class variance_scaling_initializer(_init.VarianceScaling):
    """TF1 `variance_scaling_initializer(scale=1.0, mode='fan_in', distribution='truncated_normal',
    seed=None, dtype=tf.float32)`."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class glorot_uniform_initializer(_init.GlorotUniform):
    """TF1 `glorot_uniform_initializer(seed=None, dtype=tf.float32)`: uniform on
    [-limit, limit], limit = sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class glorot_normal_initializer(_init.GlorotNormal):
    """TF1 `glorot_normal_initializer(seed=None, dtype=tf.float32)`: truncated normal with
    stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))


class orthogonal_initializer(_init.Orthogonal):
    """TF1 `orthogonal_initializer(gain=1.0, seed=None, dtype=tf.float32)`."""

    def __init__(self, gain: float = 1.0, seed: int | None = None, dtype: Any = torch.float32) -> None:
        super().__init__(gain=gain, seed=seed)
        self.dtype = dtype

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return super().__call__(shape, _dtype_or(dtype, self.dtype))
