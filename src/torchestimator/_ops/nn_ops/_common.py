"""The operand checks tf.nn's ops share (tensor, floating, numeric, dtype-matched scalars)."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._ops.convert import convert_to_tensor, dtype_name, placed
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor
_FLOATS = "half, bfloat16, float32, float64"


# ----------------------------------------------------------------------------- conversions


def _tensor(value: Any, op: str, arg: str) -> Tensor:
    """The slow path: `value` as a numeric tensor (float32 for Python floats, as TF)."""
    if not isinstance(value, Tensor):
        value = placed(convert_to_tensor(value, name=arg))  # on the GPU, as TF places the op
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}: `{arg}` must be numeric, got strings.")
    return value


def _floating(value: Any, op: str, arg: str = "features") -> Tensor:
    """`value` as a floating-point tensor, or TF's error naming the dtype."""
    value = _tensor(value, op, arg)
    if not value.is_floating_point():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` must be a floating-point tensor ({_FLOATS}), got "
            f"{dtype_name(value.dtype)}; "
            "tf.cast it to float32.",
        )
    return value


def _numeric(value: Any, op: str, arg: str = "features") -> Tensor:
    """`value` as a tensor of a real number dtype (TF's integer kernels accept no bool)."""
    value = _tensor(value, op, arg)
    if value.dtype is torch.bool or value.is_complex():
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` of dtype {dtype_name(value.dtype)} is not supported; use a real "
            "number dtype.",
        )
    return value


def _like(value: Any, ref: Tensor, name: str) -> Any:
    """A parameter (Python number or tensor) in the dtype and on the device of `ref`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    tensor = (
        value
        if isinstance(value, Tensor)
        else convert_to_tensor(value, dtype_hint=ref.dtype, name=name)
    )
    if not isinstance(tensor, Tensor):
        raise TypeError(f"`{name}` must be numeric, got strings.")
    if tensor.dtype is not ref.dtype or tensor.device != ref.device:
        tensor = tensor.to(device=ref.device, dtype=ref.dtype)
    return tensor
