"""`Dot` (a batched dot product of two tensors) and its functional form `dot`."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.linalg_ops import l2_normalize
from torchestimator.keras.layers.merging.base_merge import _Merge


def batch_dot(x: torch.Tensor, y: torch.Tensor, axes: tuple[int, int]) -> torch.Tensor:
    """Keras' `backend.batch_dot`: for each sample, sums `x * y` over `x`'s axis `axes[0]`
    and `y`'s axis `axes[1]`; returns `(batch, *x_rest, *y_rest)`, at least 2D."""
    batch, n = x.shape[0], x.shape[axes[0]]
    xm = x.movedim(axes[0], -1)
    ym = y.movedim(axes[1], 1)
    x_rest, y_rest = tuple(xm.shape[1:-1]), tuple(ym.shape[2:])
    out = torch.bmm(xm.reshape(batch, -1, n), ym.reshape(batch, n, -1))
    out = out.reshape((batch,) + x_rest + y_rest)
    return out.unsqueeze(1) if out.dim() == 1 else out


class Dot(_Merge):
    """Layer that computes a dot product between samples in two tensors.

    E.g. if applied to a list of two tensors `a` and `b` of shape
    `(batch_size, n)`, the output is a tensor of shape `(batch_size, 1)` where
    each entry `i` is the dot product between `a[i]` and `b[i]`.

    Args:
        axes: Integer or tuple of 2 integers, the axis (or axes, one per input)
            along which to take the dot product. Negative axes count from the end.
        normalize: Whether to L2-normalize samples along the dot product axis
            before taking the dot product; the output is then the cosine proximity.

    Returns (when called): `(batch, *rest_of_x, *rest_of_y)`, at least 2D.
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(
                    "Invalid type for argument `axes`: it should be a list or an int. "
                    f"Received: axes={axes!r}"
                )
            if len(axes) != 2:
                raise ValueError(
                    "Invalid format for argument `axes`: it should contain two elements. "
                    f"Received: axes={axes!r}"
                )
            if not all(isinstance(a, int) for a in axes):
                raise ValueError(
                    "Invalid format for argument `axes`: list elements should be integers. "
                    f"Received: axes={axes!r}"
                )
            axes = tuple(axes)
        self.axes = axes
        self.normalize = bool(normalize)
        self.supports_masking = True

    def _resolve(self, ranks: tuple[int, int]) -> tuple[int, int]:
        if isinstance(self.axes, int):
            if self.axes < 0:
                return (self.axes % ranks[0], self.axes % ranks[1])
            return (self.axes, self.axes)
        return tuple(a % r if a < 0 else a for a, r in zip(self.axes, ranks))  # type: ignore

    def _check_two(self, input_shape: Any) -> list:
        shapes = self._check_list(input_shape)
        if len(shapes) != 2:
            raise ValueError(
                f'A `Dot` layer ("{self.name}") should be called on a list of 2 inputs. '
                f"Received: input_shape={input_shape}"
            )
        return shapes

    def build(self, input_shape: Any) -> None:
        """Checks there are 2 inputs whose sizes along the dot axes match."""
        shape1, shape2 = self._check_two(input_shape)
        if shape1 is not None and shape2 is not None:
            a0, a1 = self._resolve((len(shape1), len(shape2)))
            if shape1[a0] is not None and shape2[a1] is not None and shape1[a0] != shape2[a1]:
                raise ValueError(
                    f'Layer "{self.name}": incompatible input shapes: axis values {shape1[a0]} '
                    f"(at axis {a0}) != {shape2[a1]} (at axis {a1}). Full input shapes: "
                    f"{shape1}, {shape2}"
                )
        self.built = True

    def call(self, inputs: Any) -> torch.Tensor:
        """Returns the batched dot product of the two inputs along `axes`."""
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(
                f'A `Dot` layer ("{self.name}") should be called on exactly 2 inputs.'
            )
        x1, x2 = inputs
        axes = self._resolve((x1.dim(), x2.dim()))
        if self.normalize:
            x1 = l2_normalize(x1, axes[0])
            x2 = l2_normalize(x2, axes[1])
        return batch_dot(x1, x2, axes)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """Returns `shape1` without its dot axis + `shape2` without batch and dot axes."""
        shape1, shape2 = (list(s) for s in self._check_two(input_shape))
        a0, a1 = self._resolve((len(shape1), len(shape2)))
        shape1.pop(a0)
        shape2.pop(a1)
        shape2.pop(0)
        out = shape1 + shape2
        if len(out) == 1:
            out += [1]
        return tuple(out)

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        """The output is not masked: returns None."""
        return None

    def get_config(self) -> dict:
        """Returns `axes` and `normalize` with the base layer's config."""
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


def dot(inputs: list, axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    """Functional interface to the `Dot` layer: returns the batched dot product of 2 inputs."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
