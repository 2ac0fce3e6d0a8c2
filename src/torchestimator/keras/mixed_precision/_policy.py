"""Keras's dtype policies: `Policy`, the global policy and its setter.

A policy names the dtype a layer computes in and the dtype of its weights: 'float32',
'float16', 'bfloat16', 'float64' (both the same), 'mixed_float16' and 'mixed_bfloat16'
(float16 / bfloat16 computation, float32 weights). Layers made without `dtype=` take the
global policy; `floatx` when none was set.
"""

from __future__ import annotations

import threading
from typing import Any

from torchestimator import _dtypes
from torchestimator.keras import _registry
from torchestimator.keras.backend import _state

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}
_PLAIN = ("float16", "bfloat16", "float32", "float64")

_lock = threading.Lock()
_global: Policy | None = None


class Policy:
    """A dtype policy for a Keras layer (`tf.keras.mixed_precision.Policy`).

    Args:
      name: 'float32', 'float16', 'bfloat16', 'float64', 'mixed_float16' or
        'mixed_bfloat16' (a dtype's name is also accepted: `Policy(torch.float16)`).

    `compute_dtype` is the dtype of the layer's computations, `variable_dtype` the dtype of its
    weights; a mixed policy computes in float16 / bfloat16 and keeps float32 weights.
    """

    def __init__(self, name: Any):
        if isinstance(name, Policy):
            name = name.name
        if not isinstance(name, str):
            try:
                name = _dtypes.dtype_name(_dtypes.as_dtype(name))
            except (TypeError, ValueError):
                raise TypeError(
                    f"Policy(name): name must be a string such as 'mixed_float16'; received {name!r}."
                ) from None
        if name not in _MIXED and name not in _PLAIN:
            raise ValueError(
                f"Cannot convert value {name!r} to a mixed precision Policy. Valid policies "
                f"include 'mixed_float16', 'mixed_bfloat16', and the name of any floating-point "
                f"dtype such as 'float32'."
            )
        self._name = name
        self._compute_dtype = _MIXED.get(name, name)
        self._variable_dtype = "float32" if name in _MIXED else name

    @property
    def name(self) -> str:
        """The name of this policy."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The compute dtype of this policy: the dtype layers compute in."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The variable dtype of this policy: the dtype of layers' weights."""
        return self._variable_dtype

    def get_config(self) -> dict[str, Any]:
        """Returns `{'name': ...}`."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Policy:
        """Returns the policy `get_config` described."""
        return cls(**config)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Policy):
            return other.name == self._name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("Policy", self._name))

    def __repr__(self) -> str:
        return f'<Policy "{self._name}">'


def global_policy() -> Policy:
    """Returns the global dtype policy (`tf.keras.mixed_precision.global_policy`): the one
    `set_global_policy` set, else `Policy(tf.keras.backend.floatx())`."""
    if _global is not None:
        return _global

    return Policy(_state.floatx())


def set_global_policy(policy: Any) -> None:
    """Sets the global dtype policy: layers made afterwards without `dtype=` use it
    (`tf.keras.mixed_precision.set_global_policy('mixed_float16')`). `None` resets it to
    `floatx`. Compiling a model whose policy is 'mixed_float16' wraps its optimizer in a
    `LossScaleOptimizer`, as Keras does."""
    global _global
    if policy is not None:
        policy = policy if isinstance(policy, Policy) else Policy(policy)
    with _lock:
        _global = policy


def global_policy_name() -> str | None:
    """The name of the policy `set_global_policy` set, or None (layers use floatx)."""
    return None if _global is None else _global.name


def _register() -> None:
    _registry.register_builtin(Policy)


_register()
