"""Weight constraints: `MaxNorm`, `NonNeg`, `UnitNorm`, `MinMaxNorm`, `RadialConstraint`.

A constraint is called on a weight tensor after each optimizer update and
returns the projected tensor (same shape), which replaces the weight.
Norms are taken along `axis`, Keras' layout: for a Dense kernel `(in, out)`,
`axis=0` constrains each unit's incoming weight vector; for a Conv2D kernel
`(rows, cols, in, out)`, use `axis=[0, 1, 2]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from torchestimator.keras._tensors import as_float_tensor
from torchestimator.keras.backend import epsilon


def _norms(w: torch.Tensor, axis: int | Sequence[int]) -> torch.Tensor:
    dims = axis if isinstance(axis, int) else tuple(axis)
    return torch.sqrt(torch.sum(torch.square(w), dim=dims, keepdim=True))


def _check_axis(axis: Any, name: str) -> int | list[int]:
    if isinstance(axis, bool) or not isinstance(axis, (int, list, tuple)):
        raise ValueError(f"{name}: `axis` must be an integer or a list of integers; received {axis!r}")
    if isinstance(axis, (list, tuple)):
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in axis):
            raise ValueError(
                f"{name}: `axis` must be an integer or a list of integers; received {axis!r}"
            )
        return list(axis)
    return axis


class Constraint:
    """Base class for weight constraints.

    A constraint is a callable that takes a weight tensor and returns a
    projected version of it (e.g. with a bounded norm). The base class returns
    the weight unchanged. Subclasses override `__call__` and `get_config`.
    """

    def __call__(self, w: Any) -> torch.Tensor:
        """Applies the constraint to the input weight variable; returns the constrained weight."""
        return w

    def get_config(self) -> dict[str, Any]:
        """Returns a Python dict of the object config, the constructor's arguments."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Constraint:
        """Instantiates a constraint from its config (the output of `get_config`). Returns it."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class MaxNorm(Constraint):
    """MaxNorm weight constraint.

    Constrains the weights incident to each hidden unit to have a norm less
    than or equal to a desired value. Also available via the shortcut function
    `tf.keras.constraints.max_norm`.

    Args:
        max_value: the maximum norm value for the incoming weights.
        axis: integer or list of integers, axis along which to calculate weight norms.
    """

    def __init__(self, max_value: float = 2, axis: int | Sequence[int] = 0) -> None:
        if isinstance(max_value, bool) or not isinstance(max_value, (int, float)) or max_value < 0:
            raise ValueError(f"MaxNorm: `max_value` must be a non-negative number; received {max_value!r}")
        self.max_value = max_value
        self.axis = _check_axis(axis, "MaxNorm")

    def __call__(self, w: Any) -> torch.Tensor:
        """Returns `w` rescaled so that its norms along `axis` are at most `max_value`."""
        w = as_float_tensor(w, "w")
        norms = _norms(w, self.axis)
        desired = torch.clamp(norms, 0.0, float(self.max_value))
        return w * (desired / (epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        """Returns `{"max_value", "axis"}`."""
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Constrains the weights to be non-negative (negative entries become 0).

    Also available via the shortcut function `tf.keras.constraints.non_neg`.
    """

    def __call__(self, w: Any) -> torch.Tensor:
        """Returns `w` with its negative entries set to 0."""
        w = as_float_tensor(w, "w")
        return w * (w >= 0.0).to(w.dtype)


class UnitNorm(Constraint):
    """Constrains the weights incident to each hidden unit to have unit norm.

    Also available via the shortcut function `tf.keras.constraints.unit_norm`.

    Args:
        axis: integer or list of integers, axis along which to calculate weight norms.
    """

    def __init__(self, axis: int | Sequence[int] = 0) -> None:
        self.axis = _check_axis(axis, "UnitNorm")

    def __call__(self, w: Any) -> torch.Tensor:
        """Returns `w / (epsilon + norm(w, axis))`."""
        w = as_float_tensor(w, "w")
        return w / (epsilon() + _norms(w, self.axis))

    def get_config(self) -> dict[str, Any]:
        """Returns `{"axis"}`."""
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """MinMaxNorm weight constraint.

    Constrains the weights incident to each hidden unit to have the norm
    between a lower bound and an upper bound. Also available via the shortcut
    function `tf.keras.constraints.min_max_norm`.

    Args:
        min_value: the minimum norm for the incoming weights.
        max_value: the maximum norm for the incoming weights.
        rate: rate for enforcing the constraint: weights will be rescaled to
            yield `(1 - rate) * norm + rate * norm.clip(min_value, max_value)`.
            `rate=1.0` stands for strict enforcement of the constraint, while
            `rate<1.0` means that weights will be rescaled at each step to
            slowly move towards a value inside the desired interval.
        axis: integer or list of integers, axis along which to calculate weight norms.
    """

    def __init__(
        self,
        min_value: float = 0.0,
        max_value: float = 1.0,
        rate: float = 1.0,
        axis: int | Sequence[int] = 0,
    ) -> None:
        if max_value < min_value:
            raise ValueError(
                f"MinMaxNorm: `min_value` must not exceed `max_value`; received "
                f"min_value={min_value}, max_value={max_value}"
            )
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = _check_axis(axis, "MinMaxNorm")

    def __call__(self, w: Any) -> torch.Tensor:
        """Returns `w` rescaled towards norms within `[min_value, max_value]` along `axis`."""
        w = as_float_tensor(w, "w")
        norms = _norms(w, self.axis)
        clipped = torch.clamp(norms, float(self.min_value), float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        """Returns `{"min_value", "max_value", "rate", "axis"}`."""
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


class RadialConstraint(Constraint):
    """Constrains `Conv2D` kernel weights to be the same for each radius.

    For a kernel of shape `(height, width, channels, filters)` (square
    `height == width`), every 2D slice becomes a set of concentric square rings
    of equal values, each ring taking one value from the slice's diagonal, as
    Keras 2.15 computes it: for an odd size `k` (`s = k // 2`), ring `r` takes
    `kernel[s - 1 + r, s - 1 + r]`; for an even size, the central 2x2 block
    takes `kernel[s - 1, s - 1]` and ring `r >= 1` takes `kernel[s + r, s + r]`.
    Also available via `tf.keras.constraints.radial_constraint`.
    """

    def __call__(self, w: Any) -> torch.Tensor:
        """Returns the radially constrained version of the 4D kernel `w`."""
        w = as_float_tensor(w, "w")
        if w.dim() != 4:
            raise ValueError(
                "RadialConstraint: the weight tensor must have rank 4 (height, width, channels, "
                f"filters). Received weight tensor with shape: {tuple(w.shape)}"
            )
        size = w.shape[0]
        if w.shape[1] != size:
            raise ValueError(
                "RadialConstraint requires a square kernel (height == width); received kernel "
                f"size {(w.shape[0], w.shape[1])}"
            )
        start = size // 2
        pos = torch.arange(size, device=w.device)
        if size % 2:
            dist = (pos - start).abs()
            ring = torch.maximum(dist[:, None], dist[None, :])
            index = start - 1 + ring
        else:
            dist = (2 * pos - (2 * start - 1)).abs() // 2
            ring = torch.maximum(dist[:, None], dist[None, :])
            index = torch.where(ring == 0, start - 1, start + ring)
        return w[index, index]
