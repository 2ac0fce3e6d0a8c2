"""tf.custom_gradient, tf.py_function and tf.numpy_function."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine.train_op import parameters_of
from torchestimator._ops.control_ops._function import _all_parameters
from torchestimator._ops.convert import convert_to_tensor, dtype_name


# ============================================================================ gradients
class _CustomGradientFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, grad_fn: Callable, counts: tuple, *tensors: torch.Tensor) -> Any:
        n_in, n_var, n_out = counts
        ctx.grad_fn = grad_fn
        ctx.counts = counts
        ctx.variables = tensors[n_in:n_in + n_var]
        outputs = tensors[n_in + n_var:]
        return tuple(o.clone() for o in outputs)

    @staticmethod
    def backward(ctx: Any, *upstream: torch.Tensor) -> Any:
        n_in, n_var, n_out = ctx.counts
        if n_var:
            grads, var_grads = ctx.grad_fn(*upstream, variables=list(ctx.variables))
        else:
            grads, var_grads = ctx.grad_fn(*upstream), []
        if not isinstance(grads, (list, tuple)):
            grads = [grads]
        grads = list(grads)
        if len(grads) != n_in:
            raise ValueError(
                f"tf.custom_gradient: the gradient function returned {len(grads)} gradient(s) for "
                f"{n_in} input tensor(s)."
            )
        var_grads = list(var_grads or [])
        if len(var_grads) != n_var:
            raise ValueError(
                f"tf.custom_gradient: the gradient function returned {len(var_grads)} variable "
                f"gradient(s) for {n_var} variable(s)."
            )
        return (None, None) + tuple(grads) + tuple(var_grads) + (None,) * n_out


def custom_gradient(f: Callable | None = None) -> Callable:
    """Decorates `f(*x) -> (y, grad_fn)` so that gradients through it are `grad_fn(*dy)`, as TF's
    `tf.custom_gradient`.

    `x` are the tensor arguments; `grad_fn(*upstream)` returns one gradient per
    tensor argument. When `f` reads trainable variables, `grad_fn` must accept
    `variables=` and return `(input_grads, variable_grads)`, as in TF.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        inputs = [a if isinstance(a, torch.Tensor) else convert_to_tensor(a) for a in args]
        with torch.enable_grad():
            result, grad_fn = f(*inputs, **kwargs)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        variables: list[torch.Tensor] = []
        if _accepts_variables(grad_fn):
            ids = {id(t) for t in inputs}
            found = []
            for out in outputs:
                if isinstance(out, torch.Tensor) and out.requires_grad:
                    found.extend(parameters_of(out) if out.grad_fn is not None else [out])
            for p in found:
                if p.requires_grad and id(p) not in ids and not any(p is v for v in variables):
                    variables.append(p)
        detached = [o.detach() for o in outputs]
        if not torch.is_grad_enabled() or not any(
                isinstance(t, torch.Tensor) and t.requires_grad for t in inputs + variables):
            values = detached
        else:
            tensors = [t if isinstance(t, torch.Tensor) else torch.as_tensor(t) for t in inputs]
            values = list(_CustomGradientFunction.apply(
                grad_fn, (len(tensors), len(variables), len(detached)), *tensors, *variables,
                *detached))
        if isinstance(result, (list, tuple)):
            return type(result)(values) if isinstance(result, list) else tuple(values)
        return values[0]

    return wrapper


def _accepts_variables(fn: Callable) -> bool:
    params = _all_parameters(fn)
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _to_dtype(value: Any, dtype: Any) -> Any:
    if dtype is None:
        return value
    want = _dtypes.as_dtype(dtype)
    if want is _dtypes.string:
        return convert_to_tensor(value, _dtypes.string)
    if isinstance(value, torch.Tensor):
        return value if value.dtype == want else value.to(want)
    array = np.asarray(value)
    if array.dtype.kind in "OUS":
        raise TypeError(f"Cannot convert the string result {value!r:.100} to {dtype_name(want)}.")
    return torch.from_numpy(np.ascontiguousarray(array)).to(want)


def _outputs(result: Any, Tout: Any) -> Any:  # noqa: N803 - TF's name
    if Tout is None:
        return None
    if isinstance(Tout, (list, tuple)):
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(Tout):
            raise ValueError(
                f"The function returned {len(values)} value(s) but Tout lists {len(Tout)} dtype(s)."
            )
        return [_to_dtype(v, t) for v, t in zip(values, Tout)]
    return _to_dtype(result, Tout)


def py_function(func: Callable | None = None, inp: Any = None, Tout: Any = None,  # noqa: N803
                name: str | None = None) -> Any:
    """Calls `func(*inp)` on tensors and returns its result converted to `Tout` (a dtype, or a
    list of dtypes for several outputs), as TF's `tf.py_function`. Gradients flow through the
    torch operations `func` runs. Without `func`, a decorator."""
    if func is None:
        return lambda fn: functools.wraps(fn)(
            lambda *args: py_function(fn, list(args), Tout, name))
    args = [v if isinstance(v, torch.Tensor) else convert_to_tensor(v) for v in (inp or [])]
    return _outputs(func(*args), Tout)


def numpy_function(func: Callable | None = None, inp: Any = None, Tout: Any = None,  # noqa: N803
                   stateful: bool = True, name: str | None = None) -> Any:
    """Calls `func(*arrays)` on numpy copies of `inp` and returns its result converted to
    tensors of `Tout`, as TF's `tf.numpy_function` (no gradient). Without `func`, a decorator."""
    if func is None:
        return lambda fn: functools.wraps(fn)(
            lambda *args: numpy_function(fn, list(args), Tout, stateful, name))
    args = [v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else np.asarray(v)
            for v in (inp or [])]
    return _outputs(func(*args), Tout)
