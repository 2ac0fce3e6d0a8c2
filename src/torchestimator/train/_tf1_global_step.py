"""TF1's global step outside a `model_fn`: the int64 variable `global_step` of the TF1 variable
store (`tf.compat.v1.get_variable`'s, `train._variable_store`), so Saver and MonitoredSession
checkpoints hold it under TF's name. Inside a `model_fn` the Estimator's global step is used
(`train._global_step`). `tf.compat.v1.train` re-exports these functions from here
(compat.v1._train_global_step)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine.model_fn_context import current_context
from torchestimator.train import _global_step as _tf2
from torchestimator.train import _variable_store


def _stored() -> Any:
    for name, var in _variable_store._store().variables():
        if name.split(":")[0] == "global_step":
            return var
    return None


def get_global_step(graph: Any = None) -> Any:
    """Returns the global step variable: the Estimator's inside a `model_fn`, else the one
    `create_global_step` made (None if there is none)."""
    inside = _tf2.get_global_step()
    return inside if inside is not None else _stored()


def create_global_step(graph: Any = None) -> Any:
    """Creates the global step variable (int64 scalar `global_step`, 0, not trainable).

    Raises:
      ValueError: a global step already exists.
    """
    if get_global_step() is not None:
        raise ValueError('"global_step" already exists.')
    return _variable_store.create_variable("global_step", torch.zeros((), dtype=torch.int64), False)


def get_or_create_global_step(graph: Any = None) -> Any:
    """Returns the global step variable, creating it first if there is none (inside a
    `model_fn`: the Estimator's)."""

    if current_context() is not None:
        return _tf2.get_or_create_global_step()
    step = get_global_step()
    return step if step is not None else create_global_step()


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The value of `global_step_tensor` as a Python int (`sess` is accepted and ignored)."""
    value = global_step_tensor
    return int(value.numpy() if hasattr(value, "numpy") else value)


def assert_global_step(global_step_tensor: Any) -> None:
    """Asserts `global_step_tensor` is an integer scalar variable or tensor.

    Raises:
      TypeError: it is not an integer scalar.
    """
    tensor = torch.as_tensor(global_step_tensor) if not isinstance(global_step_tensor, torch.Tensor) \
        else global_step_tensor
    if tensor.is_floating_point() or tensor.is_complex() or tensor.dtype == torch.bool:
        raise TypeError(f"Existing \"global_step\" does not have integer type: {tensor.dtype}")
    if tensor.ndim != 0:
        raise TypeError(f"Existing \"global_step\" is not scalar: {tuple(tensor.shape)}")
