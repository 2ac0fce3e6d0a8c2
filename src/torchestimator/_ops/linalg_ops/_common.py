"""The operand checks tf.linalg's ops share: numeric, floating, matrix and matrix-pair operands,
conjugate transposes, the singular-matrix error."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import (
    binary_operands,
    convert_to_tensor,
    dtype_name,
    pair_on_one_device,
    placed,
)
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor

_FLOATING = (
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
)
_EIGHT_BIT = (torch.int8, torch.uint8)


# ----------------------------------------------------------------------------- helpers


def _numeric(value: Any, op: str, arg: str = "input") -> Tensor:
    t = value if isinstance(value, Tensor) else placed(convert_to_tensor(value))  # as TF places the op
    if isinstance(t, np.ndarray):
        raise TypeError(f"{op}: `{arg}` holds strings; this op takes numeric tensors.")
    return t


def _floating(value: Any, op: str, arg: str = "input") -> Tensor:
    t = _numeric(value, op, arg)
    if t.dtype not in _FLOATING:
        raise TypeError(
            f"{op}: `{arg}` must be a floating or complex tensor, got {dtype_name(t.dtype)} "
            "(use tf.cast)."
        )
    return t


def _matrix(value: Any, op: str, arg: str = "input", square: bool = False) -> Tensor:
    t = _floating(value, op, arg)
    if t.dim() < 2:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: `{arg}` must be a (batch of) matrix with rank >= 2, got shape {list(t.shape)}.",
        )
    if square and t.shape[-1] != t.shape[-2]:
        raise InvalidArgumentError(
            None, None, f"{op}: input matrix must be square, got shape {list(t.shape)}."
        )
    return t


def _pair(a: Any, b: Any, op: str) -> tuple[Tensor, Tensor]:
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a.dtype is not b.dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: the operands have different dtypes, {dtype_name(a.dtype)} and "
                f"{dtype_name(b.dtype)}. TensorFlow does not promote dtypes; tf.cast one of them.",
            )
        return pair_on_one_device(a, b)
    a, b = binary_operands(a, b, op)
    if not isinstance(a, Tensor):
        a = torch.tensor(a, dtype=b.dtype, device=b.device)
    if not isinstance(b, Tensor):
        b = torch.tensor(b, dtype=a.dtype, device=a.device)
    return a, b


def _mT(x: Tensor, conj: bool) -> Tensor:  # noqa: N802 - torch's spelling
    return x.mH if conj and x.is_complex() else x.mT


def _not_invertible(info: Tensor, op: str, what: str = "Input matrix") -> None:
    if bool((info != 0).any()):
        raise InvalidArgumentError(None, None, f"{op}: {what} is not invertible.")
