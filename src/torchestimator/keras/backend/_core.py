"""Keras 2.15's `tf.keras.backend` tensor functions on torch: tensors and shapes, variables,
the learning phase and `function` (math in `_math`, shape manipulation and random numbers
in `_arrays`).

Each function keeps Keras 2.15's name, arguments and defaults and calls the tf-level op
(`torchestimator.matmul`, `reduce_sum`, ...) that Keras' own version calls.
"""

from __future__ import annotations

import builtins
import contextlib
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
from torchestimator.keras.engine.call_context import CONTEXT
from torchestimator.keras.engine.keras_tensor import KerasTensor

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
    from torchestimator.keras import (  # lazy: subclass (keras.engine.input_layer.InputLayer subclasses Layer, whose module keras.engine.base_layer loads this one first)
        Input,
    )

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
    from torchestimator.keras import (  # lazy: subclass (keras.engine.model.Model subclasses Trainer, whose module keras.engine.trainer loads this one first)
        Model,
    )

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
