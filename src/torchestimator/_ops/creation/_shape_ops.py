"""TF's shape ops: tf.is_tensor, shape, shape_n, rank, size, ensure_shape, broadcast_static_shape,
broadcast_dynamic_shape, get_static_value."""

from __future__ import annotations

import builtins
import sys
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import as_tensor, convert_to_tensor, shapes_error
from torchestimator._ops.creation._common import Tensor, _int_dtype
from torchestimator._ops.creation._tensor_shape import TensorShape, as_shape
from torchestimator.errors import InvalidArgumentError


# --------------------------------------------------------------------------------------------
# shapes
# --------------------------------------------------------------------------------------------
def is_tensor(x: Any) -> builtins.bool:
    """Checks whether `x` is a tensor (TF's `tf.is_tensor`): a `torch.Tensor` (a `tf.Variable`
    included), a `tf.RaggedTensor` or a Keras symbolic tensor; numpy arrays and Python values
    are not."""
    if isinstance(x, Tensor):
        return True
    ragged = sys.modules.get("torchestimator._ragged_tensor")  # tf.RaggedTensor is a tensor
    if ragged is not None and isinstance(x, ragged.RaggedTensor):
        return True
    keras_tensor = sys.modules.get("torchestimator.keras.engine.keras_tensor")
    return keras_tensor is not None and isinstance(x, keras_tensor.KerasTensor)


def _shape_of(value: Any) -> tuple[int, ...]:
    if isinstance(value, (Tensor, np.ndarray)):
        return tuple(value.shape)
    return tuple(np.shape(as_tensor(value)))


def shape(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    """Returns a 1-D tensor holding the shape of `input` (TF's `tf.shape`).

    Returns:
        An int32 tensor (or `out_type`: int32 or int64) on the host.
    """
    return torch.tensor(_shape_of(input), dtype=_int_dtype(out_type, "shape"))


def shape_n(input: Any, out_type: Any = torch.int32, name: str | None = None) -> list[Tensor]:
    """Returns the shapes of a list of tensors (TF's `tf.shape_n`).

    Returns:
        A list of 1-D int32 (or `out_type`) tensors.
    """
    dtype = _int_dtype(out_type, "shape_n")
    return [torch.tensor(_shape_of(x), dtype=dtype) for x in input]


def rank(input: Any, name: str | None = None) -> Tensor:
    """Returns the number of dimensions of `input` (TF's `tf.rank`).

    Returns:
        A scalar int32 tensor.
    """
    return torch.tensor(len(_shape_of(input)), dtype=torch.int32)


def size(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    """Returns the number of elements of `input` (TF's `tf.size`).

    Returns:
        A scalar int32 (or `out_type`) tensor.
    """
    count = 1
    for d in _shape_of(input):
        count *= d
    return torch.tensor(count, dtype=_int_dtype(out_type, "size"))


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Any:
    """Checks that `x` has a shape compatible with `shape` (None dims match anything), as TF's
    `tf.ensure_shape`.

    Returns:
        `x` itself; raises `InvalidArgumentError` naming both shapes otherwise.
    """
    x = as_tensor(x)
    expected = as_shape(shape)
    if not expected.is_compatible_with(tuple(x.shape)):
        shown = "unknown" if expected.rank is None else \
            "[" + ",".join("?" if d is None else str(d) for d in expected) + "]"
        raise InvalidArgumentError(
            None, None,
            f"Shape of tensor input {list(x.shape)} is not compatible with expected shape {shown}.",
        )
    return x


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """Computes the shape of a broadcast from two static shapes (TF's `tf.broadcast_static_shape`).

    Returns:
        A `TensorShape`; raises ValueError if the shapes do not broadcast.
    """
    a, b = as_shape(shape_x), as_shape(shape_y)
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = list(a), list(b)
    n = max(len(da), len(db))
    da, db = [1] * (n - len(da)) + da, [1] * (n - len(db)) + db
    out: list[int | None] = []
    for p, q in zip(da, db):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None or q is None:
            out.append(p if q is None else q)
        elif p == q:
            out.append(p)
        else:
            raise ValueError(
                "Incompatible shapes for broadcasting. Two shapes are compatible if for each "
                "dimension pair they are either equal or one of them is 1. "
                f"Received: {shape_x} and {shape_y}."
            )
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """Computes the shape of a broadcast from two shape tensors (TF's
    `tf.broadcast_dynamic_shape`).

    Returns:
        A 1-D int tensor (the inputs' dtype, int32 for lists).
    """
    x, y = as_tensor(shape_x), as_tensor(shape_y)
    try:
        out = torch.broadcast_shapes(tuple(x.tolist()), tuple(y.tolist()))
    except RuntimeError:
        raise shapes_error("broadcast_dynamic_shape", x.tolist(), y.tolist()) from None
    return torch.tensor(tuple(out), dtype=x.dtype)


def get_static_value(tensor: Any, partial: builtins.bool = False) -> Any:
    """Returns the constant value of `tensor` as a numpy array (TF's `tf.get_static_value`):
    every eager tensor has one."""
    if isinstance(tensor, Tensor):
        return tensor.detach().cpu().numpy()
    if isinstance(tensor, np.ndarray):
        return tensor
    value = convert_to_tensor(tensor)
    return value if isinstance(value, np.ndarray) else value.numpy()
