"""TF's graph-building names that a program run eagerly on PyTorch meets: `tf.tuple`,
`tf.timestamp`, `tf.get_current_name_scope`, `tf.inside_function`, `tf.is_symbolic_tensor`,
`tf.guarantee_const`, `tf.no_gradient`, `tf.grad_pass_through`, `tf.recompute_grad`, and the
enums `tf.VariableAggregation`, `tf.VariableSynchronization`, `tf.AggregationMethod`.

Everything here runs eagerly (as TF 2 outside `tf.function`): `inside_function()` is False,
no tensor is symbolic, and the graph-only hints have nothing to change.
"""

from __future__ import annotations

import enum
import functools
import time
from collections.abc import Callable
from typing import Any

import torch
from torch.utils.checkpoint import checkpoint

from torchestimator._ops.convert import convert_to_tensor
from torchestimator._ops.name_scopes import current_name_scope


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are aggregated across replicas."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized across replicas."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class AggregationMethod:
    """How gradients of one tensor from several paths are summed (`ADD_N` is TF's default;
    torch's autograd accumulates them one way, whatever is chosen)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def tuple(tensors: list, control_inputs: Any = None, name: str | None = None) -> list:  # noqa: A001
    """Groups tensors together: returns them (as a list, as TF). Eagerly every value is
    already computed, so there is nothing to wait for."""
    if control_inputs is not None and not isinstance(control_inputs, (list, type(()))):
        raise TypeError(f"tf.tuple: control_inputs must be a list; received {type(control_inputs).__name__}.")
    return [None if t is None else t for t in tensors]


def timestamp(name: str | None = None) -> torch.Tensor:
    """The current time in seconds since the Unix epoch (float64 scalar)."""
    return torch.tensor(time.time(), dtype=torch.float64)


def get_current_name_scope() -> str:
    """The current `tf.name_scope` ('' at the top level; 'outer/inner' inside scopes)."""
    return current_name_scope().rstrip("/")


def inside_function() -> bool:
    """True inside a TF graph being built; programs here run eagerly: False."""
    return False


def is_symbolic_tensor(tensor: Any) -> bool:
    """True for a graph tensor; eager tensors (every torch tensor) are not symbolic: False."""
    return False


def guarantee_const(input: Any, name: str | None = None) -> torch.Tensor:  # noqa: A002
    """Returns `input` (TF's hint that it is constant, for graph optimizers)."""
    return convert_to_tensor(input)


def no_gradient(op_type: str) -> None:
    """Declares that op `op_type` has no gradient (TF's gradient registry). torch's autograd
    derives gradients itself; a name is checked and nothing is registered."""
    if not isinstance(op_type, str):
        raise TypeError(f"op_type must be a string; received {op_type!r}.")


def grad_pass_through(f: Callable) -> Callable:
    """Wraps `f` so that its gradient is the identity: the forward pass returns `f(x)`, the
    backward pass passes `x`'s gradient through unchanged (straight-through estimator)."""
    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if len(args) != 1 or kwargs:
            raise TypeError("grad_pass_through: the wrapped function takes one tensor.")
        x = args[0]
        y = f(x)
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and x.shape == y.shape:
            return x + (y - x).detach()
        return y
    return wrapped


def recompute_grad(f: Callable) -> Callable:
    """Wraps `f` so that its activations are recomputed in the backward pass instead of kept
    (gradient checkpointing, `torch.utils.checkpoint`)."""

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not torch.is_grad_enabled():
            return f(*args, **kwargs)
        return checkpoint(f, *args, use_reentrant=False, **kwargs)
    return wrapped
