"""Keras 2.15's `tf.keras.backend` tensor functions on torch: math, reductions, shapes,
variables, comparison, random numbers, the learning phase and `function`.

Each function keeps Keras 2.15's name, arguments and defaults and calls the tf-level op
(`torchestimator.matmul`, `reduce_sum`, ...) that Keras' own version calls.
"""

from __future__ import annotations

import builtins
import contextlib
import math as _pymath
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import torch

import torchestimator as _tf
from torchestimator.keras.backend import _state
from torchestimator.keras.backend._state import floatx, get_value, set_value

_py_all = builtins.all
_py_any = builtins.any


def _dtype_name(dtype: Any) -> str:
    """'float32' for torch.float32, np.float32, tf.float32 or 'float32'."""
    if isinstance(dtype, str):
        return dtype
    if isinstance(dtype, torch.dtype):
        return str(dtype).replace("torch.", "")
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    return np.dtype(dtype).name


def _t(x: Any) -> torch.Tensor:
    """`x` as a tensor (tensors pass through untouched)."""
    if isinstance(x, torch.Tensor):
        return x
    return _tf.convert_to_tensor(x)


# --------------------------------------------------------------------- type and shape
def backend() -> str:
    """Returns the name of the current backend: 'tensorflow', as Keras 2.15 on TF does (the
    functions of this module follow TF's semantics)."""
    return "tensorflow"


def is_sparse(tensor: Any) -> bool:
    """Returns whether `tensor` is a sparse tensor (a `tf.SparseTensor`)."""
    return isinstance(tensor, _tf.SparseTensor)


def to_dense(tensor: Any) -> Any:
    """Converts a sparse tensor into a dense tensor and returns it (others unchanged)."""
    if is_sparse(tensor):
        return _tf.sparse.to_dense(tensor)
    return tensor


def is_keras_tensor(x: Any) -> bool:
    """Returns whether `x` is a Keras (symbolic) tensor, as made by `tf.keras.Input`.

    Raises ValueError when `x` is not a tensor at all.
    """
    from torchestimator.keras.engine.keras_tensor import KerasTensor

    if not isinstance(x, (torch.Tensor, _tf.SparseTensor, KerasTensor)):
        raise ValueError(
            "Unexpectedly found an instance of type `" + str(type(x))
            + "`. Expected a symbolic tensor instance."
        )
    return isinstance(x, KerasTensor)


def shape(x: Any) -> torch.Tensor:
    """Returns the symbolic shape of a tensor: an int32 tensor (`tf.shape(x)`)."""
    return _tf.shape(x)


def int_shape(x: Any) -> tuple | None:
    """Returns the shape of tensor or variable as a tuple of int or None entries."""
    try:
        s = x.shape
    except (AttributeError, ValueError):
        return None
    if s is None:
        return None
    if hasattr(s, "as_list"):
        return tuple(s.as_list())
    return tuple(s)


def ndim(x: Any) -> int | None:
    """Returns the number of axes in a tensor, as an integer."""
    s = int_shape(x)
    return None if s is None else len(s)


def dtype(x: Any) -> str:
    """Returns the dtype of a Keras tensor or variable, as a string ('float32')."""
    return _dtype_name(x.dtype)


def count_params(x: Any) -> np.int64:
    """Returns the static number of elements in a variable or tensor."""
    return np.prod(int_shape(x))


def cast(x: Any, dtype: Any) -> torch.Tensor:  # noqa: A002 - Keras' name
    """Casts a tensor to a different dtype and returns it."""
    return _tf.cast(x, dtype)


def cast_to_floatx(x: Any) -> Any:
    """Cast a Numpy array to the default Keras float type; tensors are cast with `tf.cast`."""
    if isinstance(x, (torch.Tensor, _tf.SparseTensor)):
        return _tf.cast(x, floatx())
    return np.asarray(x, dtype=floatx())


# --------------------------------------------------------------------- variables
_MANUAL_VAR_INIT = False


def manual_variable_initialization(value: bool) -> None:
    """Sets the manual variable initialization flag (a no-op in eager execution, as in TF 2)."""
    global _MANUAL_VAR_INIT
    _MANUAL_VAR_INIT = value


def reset_uids() -> None:
    """Resets graph identifiers: default layer names start again from `dense`, `dense_1`..."""
    with _state._LOCK:
        _state._NAME_COUNTS.clear()


def variable(value: Any, dtype: Any = None, name: str | None = None,
             constraint: Callable | None = None) -> Any:
    """Instantiates a variable and returns it.

    `dtype` defaults to `floatx()`. A scipy sparse matrix becomes a `tf.SparseTensor`.
    """
    if dtype is None:
        dtype = floatx()
    if hasattr(value, "tocoo"):
        coo = value.tocoo()
        indices = np.stack([coo.row, coo.col], axis=1).astype(np.int64)
        return _tf.SparseTensor(indices=indices, values=np.asarray(coo.data, dtype=_dtype_name(dtype)),
                                dense_shape=coo.shape)
    if isinstance(value, torch.Tensor):
        value = value.detach()
    return _tf.Variable(value, dtype=dtype, name=name, constraint=constraint)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> torch.Tensor:
    """Creates a constant tensor of `dtype` (default `floatx()`), optionally of `shape`."""
    if dtype is None:
        dtype = floatx()
    return _tf.constant(value, dtype=dtype, shape=shape, name=name)


def zeros(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    """Instantiates an all-zeros variable of `shape` and returns it (a tensor when a dimension
    is 0)."""
    if dtype is None:
        dtype = floatx()
    v = _tf.zeros(shape, dtype=dtype)
    if _py_all(v.shape):
        return variable(v, dtype=dtype, name=name)
    return v


def ones(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    """Instantiates an all-ones variable of `shape` and returns it (a tensor when a dimension
    is 0)."""
    if dtype is None:
        dtype = floatx()
    v = _tf.ones(shape, dtype=dtype)
    if _py_all(v.shape):
        return variable(v, dtype=dtype, name=name)
    return v


def eye(size: Any, dtype: Any = None, name: str | None = None) -> Any:
    """Instantiate an identity matrix variable of `size` x `size` and returns it."""
    if dtype is None:
        dtype = floatx()
    return variable(_tf.eye(size, dtype=dtype), dtype, name)


def zeros_like(x: Any, dtype: Any = None, name: str | None = None) -> torch.Tensor:
    """Instantiates an all-zeros tensor of the same shape as `x` (dtype: `dtype` or x's)."""
    return _tf.zeros_like(x, dtype=dtype)


def ones_like(x: Any, dtype: Any = None, name: str | None = None) -> torch.Tensor:
    """Instantiates an all-ones tensor of the same shape as `x` (dtype: `dtype` or x's)."""
    return _tf.ones_like(x, dtype=dtype)


def random_uniform_variable(shape: Any, low: float, high: float, dtype: Any = None,
                            name: str | None = None, seed: int | None = None) -> Any:
    """Instantiates a variable with values drawn from a uniform distribution on [low, high)."""
    if dtype is None:
        dtype = floatx()
    if seed is None:
        seed = np.random.randint(10e8)
    value = _tf.random.uniform(shape, minval=low, maxval=high, dtype=dtype, seed=seed)
    return variable(value, dtype=dtype, name=name)


def random_normal_variable(shape: Any, mean: float, scale: float, dtype: Any = None,
                           name: str | None = None, seed: int | None = None) -> Any:
    """Instantiates a variable with values drawn from a normal distribution (mean, scale)."""
    if dtype is None:
        dtype = floatx()
    if seed is None:
        seed = np.random.randint(10e8)
    value = _tf.random.normal(shape, mean=mean, stddev=scale, dtype=dtype, seed=seed)
    return variable(value, dtype=dtype, name=name)


def placeholder(shape: Any = None, ndim: int | None = None, dtype: Any = None, sparse: bool = False,
                name: str | None = None, ragged: bool = False) -> Any:
    """Instantiates a placeholder tensor: a Keras symbolic tensor (`tf.keras.Input`) of the full
    `shape` (batch axis included), or of `ndim` unknown dimensions."""
    if sparse and ragged:
        raise ValueError("Cannot set both sparse and ragged to True when creating a placeholder.")
    if dtype is None:
        dtype = floatx()
    if not shape:
        if ndim:
            shape = (None,) * ndim
    if shape is None:
        raise ValueError(
            "placeholder() needs `shape` or `ndim`: a placeholder of unknown rank is not "
            "supported; pass e.g. shape=(None, 3) or ndim=2."
        )
    from torchestimator.keras import Input

    x = Input(batch_shape=tuple(shape), dtype=dtype, name=name, sparse=sparse or None,
              ragged=ragged or None)
    x._is_backend_placeholder = True
    return x


def eval(x: Any) -> Any:  # noqa: A001 - Keras' name
    """Evaluates the value of a variable: returns a Numpy array."""
    return get_value(to_dense(x))


def batch_get_value(tensors: Sequence[Any]) -> list:
    """Returns the value of more than one tensor variable: a list of Numpy arrays."""
    return [get_value(x) for x in tensors]


def batch_set_value(tuples: Sequence[tuple[Any, Any]]) -> None:
    """Sets the values of many tensor variables at once: `tuples` of (variable, numpy value)."""
    for x, value in tuples:
        set_value(x, np.asarray(value, dtype=_dtype_name(x.dtype)))


def update(x: Any, new_x: Any) -> Any:
    """Update the value of `x` to `new_x`; returns the variable."""
    x.assign(new_x)
    return x


def update_add(x: Any, increment: Any) -> Any:
    """Update the value of `x` by adding `increment`; returns the variable."""
    x.assign_add(increment)
    return x


def update_sub(x: Any, decrement: Any) -> Any:
    """Update the value of `x` by subtracting `decrement`; returns the variable."""
    x.assign_sub(decrement)
    return x


def moving_average_update(x: Any, value: Any, momentum: Any) -> Any:
    """Compute the exponential moving average of a value: `x = x * momentum + value * (1 -
    momentum)`; returns the updated variable."""
    momentum = _tf.cast(momentum, x.dtype)
    value = _tf.cast(value, x.dtype)
    x.assign_sub((x.detach() - value) * (1 - momentum))
    return x


# --------------------------------------------------------------------- learning phase
_LEARNING_PHASE = threading.local()


def _get_phase() -> Any:
    return getattr(_LEARNING_PHASE, "value", None)


def learning_phase() -> int:
    """Returns the learning phase flag: 0 = test, 1 = train (0 unless set)."""
    value = _get_phase()
    return 0 if value is None else value


def _set_phase(value: Any) -> None:
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    _LEARNING_PHASE.value = value


def set_learning_phase(value: int) -> None:
    """Sets the learning phase to a fixed value (0 = test, 1 = train). Deprecated in TF 2.15:
    pass `training=` to the layer or model call instead."""
    warnings.warn(
        "`tf.keras.backend.set_learning_phase` is deprecated and will be removed after "
        "2020-10-11. To update it, simply pass a True/False value to the `training` argument "
        "of the `__call__` method of your layer or model.",
        stacklevel=2,
    )
    _set_phase(value)


@contextlib.contextmanager
def learning_phase_scope(value: int) -> Iterator[None]:
    """Provides a scope within which the learning phase is equal to `value` (0 or 1)."""
    warnings.warn(
        "`tf.keras.backend.learning_phase_scope` is deprecated and will be removed after "
        "2020-10-11. To update it, simply pass a True/False value to the `training` argument "
        "of the `__call__` method of your layer or model.",
        stacklevel=3,
    )
    previous = _get_phase()
    _set_phase(value)
    try:
        yield
    finally:
        _LEARNING_PHASE.value = previous


def _clear_learning_phase() -> None:
    _LEARNING_PHASE.value = None


_state._CLEAR_SESSION_CALLBACKS.append(_clear_learning_phase)


def in_train_phase(x: Any, alt: Any, training: Any = None) -> Any:
    """Selects `x` in train phase, and `alt` otherwise (callables are called).

    `training` defaults to the enclosing layer call's `training`, then `learning_phase()`.
    """
    if training is None:
        from torchestimator.keras.engine.call_context import CONTEXT

        training = CONTEXT.training
    if training is None:
        training = learning_phase()
    if not isinstance(training, torch.Tensor):
        if training == 1 or training is True:
            return x() if callable(x) else x
        if training == 0 or training is False:
            return alt() if callable(alt) else alt
    return switch(training, x, alt)


def in_test_phase(x: Any, alt: Any, training: Any = None) -> Any:
    """Selects `x` in test phase, and `alt` otherwise."""
    return in_train_phase(alt, x, training=training)


def switch(condition: Any, then_expression: Any, else_expression: Any) -> Any:
    """Switches between two operations depending on a scalar value (or element-wise on a
    tensor `condition` of rank <= that of the expressions); callables are called."""
    condition = _t(condition)
    if condition.dtype != torch.bool:
        condition = condition.to(torch.bool)
    cond_ndim = condition.dim()
    if not cond_ndim:
        branch = then_expression if bool(condition) else else_expression
        return branch() if callable(branch) else branch
    if callable(then_expression):
        then_expression = then_expression()
    if callable(else_expression):
        else_expression = else_expression()
    then_expression = _t(then_expression)
    expr_ndim = then_expression.dim()
    if cond_ndim > expr_ndim:
        raise ValueError(
            "Rank of `condition` should be less than or equal to rank of `then_expression` and "
            f"`else_expression`. ndim(condition)={cond_ndim}, ndim(then_expression)={expr_ndim}"
        )
    if cond_ndim > 1:
        condition = condition.reshape(tuple(condition.shape) + (1,) * (expr_ndim - cond_ndim))
    elif cond_ndim == 1 and expr_ndim > 1:
        condition = condition.reshape((-1,) + (1,) * (expr_ndim - 1))
    return _tf.where(condition, then_expression, else_expression)


# --------------------------------------------------------------------- graph-era helpers
def name_scope(name: str) -> Any:
    """A context manager for use when defining a Python op (`tf.name_scope(name)`)."""
    return _tf.name_scope(name)


def print_tensor(x: Any, message: str = "", summarize: int = 3) -> Any:
    """Prints `message` and the tensor value to stdout when evaluated; returns `x`."""
    _tf.print(message, x, output_stream=sys.stdout, summarize=summarize)
    return x


def function(inputs: Any, outputs: Any, updates: Any = None, name: str | None = None,
             **kwargs: Any) -> Callable:
    """Instantiates a Keras function: a callable that maps values of `inputs` (placeholders or
    `tf.keras.Input`s) to numpy values of `outputs`."""
    if kwargs:
        raise ValueError(
            "Session keyword arguments are not supported during eager execution. "
            f"You passed: {kwargs}"
        )
    if updates:
        raise ValueError(
            f"`updates` argument is not supported during eager execution. You passed: {updates}"
        )
    from torchestimator.keras import Model

    model = Model(inputs=inputs, outputs=outputs)
    wrap_outputs = isinstance(outputs, list) and len(outputs) == 1

    def func(model_inputs: Any) -> Any:
        outs = model(model_inputs)
        if wrap_outputs and not isinstance(outs, (list, tuple)):
            outs = [outs]
        return _to_numpy(outs)

    return func


def _to_numpy(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    if isinstance(x, (list, tuple)):
        return type(x)(_to_numpy(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_numpy(v) for k, v in x.items()}
    return x


def gradients(loss: Any, variables: Any) -> list:
    """Returns the gradients of `loss` w.r.t. `variables` (a list; None for a variable `loss`
    does not depend on). `loss` must have been computed with autograd recording (the torch
    counterpart of TF 1's graph)."""
    single = isinstance(variables, torch.Tensor)
    var_list = [variables] if single else list(variables)
    loss = _t(loss)
    if loss.grad_fn is None and not loss.requires_grad:
        raise ValueError(
            "gradients(): `loss` was not computed from variables that record gradients; compute "
            "it from `tf.Variable`s (or use tf.GradientTape)."
        )
    if loss.dim():
        loss = loss.sum()
    grads = torch.autograd.grad(loss, var_list, allow_unused=True, retain_graph=True)
    return list(grads)


def stop_gradient(variables: Any) -> Any:
    """Returns `variables` with the gradient blocked (a list for a list)."""
    if isinstance(variables, (list, tuple)):
        return [_tf.stop_gradient(v) for v in variables]
    return _tf.stop_gradient(variables)


# --------------------------------------------------------------------- math
def abs(x: Any) -> torch.Tensor:  # noqa: A001
    """Element-wise absolute value."""
    return _tf.abs(x)


def sqrt(x: Any) -> torch.Tensor:
    """Element-wise square root (negative values are clipped to 0 first)."""
    x = _t(x)
    return _tf.sqrt(_tf.maximum(x, torch.zeros((), dtype=x.dtype, device=x.device)))


def square(x: Any) -> torch.Tensor:
    """Element-wise square."""
    return _tf.square(x)


def exp(x: Any) -> torch.Tensor:
    """Element-wise exponential."""
    return _tf.exp(x)


def log(x: Any) -> torch.Tensor:
    """Element-wise natural logarithm."""
    return _tf.math.log(x)


def round(x: Any) -> torch.Tensor:  # noqa: A001
    """Element-wise rounding to the closest integer (ties to even)."""
    return _tf.round(x)


def sign(x: Any) -> torch.Tensor:
    """Element-wise sign."""
    return _tf.sign(x)


def pow(x: Any, a: Any) -> torch.Tensor:  # noqa: A001
    """Element-wise exponentiation: `x ** a`."""
    return _tf.pow(x, a)


def cos(x: Any) -> torch.Tensor:
    """Computes cos of x element-wise."""
    return _tf.cos(x)


def sin(x: Any) -> torch.Tensor:
    """Computes sin of x element-wise."""
    return _tf.sin(x)


def clip(x: Any, min_value: Any, max_value: Any) -> torch.Tensor:
    """Element-wise value clipping to [min_value, max_value] (None: unbounded); a max below the
    min is raised to the min."""
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)):
        if max_value < min_value:
            max_value = min_value
    if min_value is None:
        min_value = -np.inf
    if max_value is None:
        max_value = np.inf
    return _tf.clip_by_value(x, min_value, max_value)


def equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise equality between two tensors; returns a bool tensor."""
    return _tf.equal(x, y)


def not_equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise inequality between two tensors; returns a bool tensor."""
    return _tf.not_equal(x, y)


def greater(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x > y); returns a bool tensor."""
    return _tf.greater(x, y)


def greater_equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x >= y); returns a bool tensor."""
    return _tf.greater_equal(x, y)


def less(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x < y); returns a bool tensor."""
    return _tf.less(x, y)


def less_equal(x: Any, y: Any) -> torch.Tensor:
    """Element-wise truth value of (x <= y); returns a bool tensor."""
    return _tf.less_equal(x, y)


def maximum(x: Any, y: Any) -> torch.Tensor:
    """Element-wise maximum of two tensors."""
    return _tf.maximum(x, y)


def minimum(x: Any, y: Any) -> torch.Tensor:
    """Element-wise minimum of two tensors."""
    return _tf.minimum(x, y)


def _float_if_bool(x: Any) -> torch.Tensor:
    x = _t(x)
    return x.to(getattr(torch, floatx())) if x.dtype == torch.bool else x


def max(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Maximum value in a tensor (over `axis`, an int or list; all axes when None)."""
    return _tf.reduce_max(x, axis, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Minimum value in a tensor (over `axis`, an int or list; all axes when None)."""
    return _tf.reduce_min(x, axis, keepdims)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Sum of the values in a tensor, alongside the specified axis."""
    return _tf.reduce_sum(x, axis, keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Multiplies the values in a tensor, alongside the specified axis."""
    return _tf.reduce_prod(x, axis, keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Mean of a tensor, alongside the specified axis (bools count as floatx 0/1)."""
    return _tf.reduce_mean(_float_if_bool(x), axis, keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Variance (biased) of a tensor, alongside the specified axis."""
    return _tf.math.reduce_variance(_float_if_bool(x), axis=axis, keepdims=keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:
    """Standard deviation (biased) of a tensor, alongside the specified axis."""
    return _tf.math.reduce_std(_float_if_bool(x), axis=axis, keepdims=keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Bitwise reduction (logical AND) of the tensor cast to bool."""
    return _tf.reduce_all(_tf.cast(x, torch.bool), axis, keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> torch.Tensor:  # noqa: A001
    """Bitwise reduction (logical OR) of the tensor cast to bool."""
    return _tf.reduce_any(_tf.cast(x, torch.bool), axis, keepdims)


def argmax(x: Any, axis: int = -1) -> torch.Tensor:
    """Returns the index (int64) of the maximum value along an axis."""
    return _tf.argmax(x, axis)


def argmin(x: Any, axis: int = -1) -> torch.Tensor:
    """Returns the index (int64) of the minimum value along an axis."""
    return _tf.argmin(x, axis)


def cumsum(x: Any, axis: int = 0) -> torch.Tensor:
    """Cumulative sum of the values in a tensor, alongside the specified axis."""
    return _tf.cumsum(x, axis=axis)


def cumprod(x: Any, axis: int = 0) -> torch.Tensor:
    """Cumulative product of the values in a tensor, alongside the specified axis."""
    return _tf.math.cumprod(x, axis=axis)


def dot(x: Any, y: Any) -> torch.Tensor:
    """Multiplies 2 tensors (and/or variables) and returns a tensor.

    For nD tensors it behaves like Theano/numpy `dot`: `x`'s last axis is contracted with
    `y`'s second-to-last, e.g. (2, 3) . (4, 3, 5) -> (2, 4, 5).
    """
    if is_sparse(x):
        return _tf.sparse.sparse_dense_matmul(x, y)
    x, y = _t(x), _t(y)
    if x.dim() > 2 or y.dim() > 2:
        x_shape = tuple(x.shape)
        y_shape = tuple(y.shape)
        perm = list(range(y.dim()))
        perm = [perm.pop(-2)] + perm
        xt = _tf.reshape(x, [-1, x_shape[-1]])
        yt = _tf.reshape(_tf.transpose(y, perm=perm), [y_shape[-2], -1])
        return _tf.reshape(_tf.matmul(xt, yt), x_shape[:-1] + y_shape[:-2] + y_shape[-1:])
    return _tf.matmul(x, y)


def batch_dot(x: Any, y: Any, axes: Any = None) -> torch.Tensor:
    """Batchwise dot product: the dot product of `x[i]` and `y[i]` for every batch entry,
    over `axes` (an int, or (x_axis, y_axis); default: x's last and y's second-to-last (y's
    last when y is 2D))."""
    x, y = _t(x), _t(y)
    x_shape, y_shape = tuple(x.shape), tuple(y.shape)
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with rank < 2. Received inputs with shapes "
            f"{x_shape} and {y_shape}."
        )
    if x_shape[0] != y_shape[0]:
        raise ValueError(
            f"Cannot do batch_dot on inputs with different batch sizes. Received inputs with "
            f"shapes {x_shape} and {y_shape}."
        )
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 1] if y_ndim == 2 else [x_ndim - 1, y_ndim - 2]
    if _py_any(isinstance(a, (list, tuple)) for a in axes):
        raise ValueError(
            "Multiple target dimensions are not supported. Expected: None, int, (int, int), "
            f"Provided: {axes}"
        )
    axes = list(axes)
    if axes[0] < 0:
        axes[0] += x_ndim
    if axes[1] < 0:
        axes[1] += y_ndim
    if 0 in axes:
        raise ValueError(
            "Cannot perform batch_dot over axis 0. If your inputs are not batched, add a dummy "
            "batch dimension to your inputs using K.expand_dims(x, 0)"
        )
    a0, a1 = axes
    d1, d2 = x_shape[a0], y_shape[a1]
    if d1 != d2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with shapes {x_shape} and {y_shape} with "
            f"axes={axes}. x.shape[{axes[0]}] != y.shape[{axes[1]}] ({d1} != {d2})."
        )
    orig_x_ndim, orig_y_ndim = x_ndim, y_ndim
    if x_ndim == 2:
        x = x.unsqueeze(1)
        a0 += 1
        x_ndim += 1
    if y_ndim == 2:
        y = y.unsqueeze(2)
        y_ndim += 1
    if a0 != x_ndim - 1:
        x = x.movedim(a0, -1)
    if a1 != 1:
        y = y.movedim(a1, 1)
    x_mid = tuple(x.shape[1:-1])
    y_trail = tuple(y.shape[2:])
    x3 = x.reshape(x.shape[0], -1, x.shape[-1]) if x_ndim > 3 else x
    y3 = y.reshape(y.shape[0], y.shape[1], -1) if y_ndim > 3 else y
    result = _tf.matmul(x3, y3)
    out_shape = list(result.shape)
    if x_ndim > 3:
        out_shape = out_shape[:1] + list(x_mid) + out_shape[-1:]
    if y_ndim > 3:
        out_shape = out_shape[:-1] + list(y_trail)
    if x_ndim > 3 or y_ndim > 3:
        result = result.reshape(out_shape)
    if orig_x_ndim == 2:
        result = result.squeeze(1)
    elif orig_y_ndim == 2:
        result = result.squeeze(-1)
    return result


def transpose(x: Any) -> torch.Tensor:
    """Transposes a tensor (reverses all its axes) and returns it."""
    x = _t(x)
    return _tf.transpose(x, perm=list(reversed(range(x.dim()))))


def gather(reference: Any, indices: Any) -> torch.Tensor:
    """Retrieves the elements of indices `indices` in the tensor `reference` (axis 0)."""
    return _tf.gather(reference, indices)


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
