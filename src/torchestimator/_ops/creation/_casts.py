"""TF's casts and identities: tf.cast, complex, saturate_cast, identity, identity_n, stop_gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import (
    as_tensor,
    convert_to_tensor,
    dtype_name,
    placed,
    shapes_error,
)
from torchestimator._ops.creation._common import _STRING, Tensor
from torchestimator.errors import UnimplementedError


# --------------------------------------------------------------------------------------------
# dtypes and identities
# --------------------------------------------------------------------------------------------
def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Casts a tensor to a new type (TF's `tf.cast`).

    Floats to integers truncate toward zero; to bool, nonzero is True;
    complex to real keeps the real part. Python values and numpy arrays are
    converted first (a Python float becomes float32).

    Returns:
        A tensor of `dtype` with `x`'s shape; gradients flow through float casts.
    """
    if isinstance(x, Tensor):
        want = dtype if isinstance(dtype, torch.dtype) else _dtypes.as_dtype(dtype)
        if want is x.dtype:
            return x
        if want is _STRING:
            raise UnimplementedError(
                None, None, f"Cast {dtype_name(x.dtype)} to string is not supported; "
                "use tf.strings.as_string.",
            )
        if x.is_complex() and not want.is_complex:
            x = x.real
        return x.to(want)
    value = convert_to_tensor(x)
    want = _dtypes.as_dtype(dtype)
    if isinstance(value, np.ndarray):
        if want is _STRING:
            return value
        raise UnimplementedError(
            None, None, f"Cast string to {dtype_name(want)} is not supported; "
            "use tf.strings.to_number.",
        )
    return placed(cast(value, want))  # made from Python or numpy values: placed as TF's ops


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """Converts two real tensors to a complex tensor, real + imag * 1j (TF's `tf.complex`).

    Returns:
        complex64 for float32 parts, complex128 for float64 parts.
    """
    re, im = as_tensor(real), as_tensor(imag)
    if isinstance(re, np.ndarray) or isinstance(im, np.ndarray) or re.dtype is not im.dtype or \
            re.dtype not in (torch.float32, torch.float64):
        shown = [dtype_name(v.dtype) if isinstance(v, Tensor) else "string" for v in (re, im)]
        raise TypeError(
            f"complex: real and imag must both be float32 or both float64, got {shown[0]} and "
            f"{shown[1]}."
        )
    try:
        return torch.complex(re, im)
    except RuntimeError:
        raise shapes_error("complex", re.shape, im.shape) from None


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Casts `value` to `dtype`, clamping values to the range of `dtype` first (TF's
    `tf.saturate_cast`).

    Returns:
        A tensor of `dtype`.
    """
    x = as_tensor(value)
    want = _dtypes.as_dtype(dtype)
    if isinstance(x, np.ndarray) or want is _STRING:
        return cast(x, want)
    if x.is_complex() and not want.is_complex:
        x = x.real
    if want is not torch.bool and not want.is_complex and x.dtype is not torch.bool:
        info = torch.finfo(want) if want.is_floating_point else torch.iinfo(want)
        src = torch.finfo(x.dtype) if x.is_floating_point() or x.is_complex() else \
            torch.iinfo(x.dtype)
        lo = info.min if info.min > src.min else None
        hi = info.max if info.max < src.max else None
        if lo is not None or hi is not None:
            x = x.clamp(lo, hi)
    return x.to(want)


def identity(input: Any, name: str | None = None) -> Any:
    """Returns a tensor with the same shape and contents as `input` (TF's `tf.identity`).

    A `tf.Variable` gives a snapshot of its current value (gradients flow back
    to it); a tensor is returned as it is.
    """
    if isinstance(input, torch.nn.Parameter):
        value = getattr(input, "value", None)
        return value() if callable(value) else input.clone()
    return as_tensor(input)


def identity_n(input: Any, name: str | None = None) -> list[Any]:
    """Returns a list of tensors with the same shapes and contents as the inputs (TF's
    `tf.identity_n`)."""
    return [identity(x) for x in input]


def stop_gradient(input: Any, name: str | None = None) -> Any:
    """Stops gradient computation (TF's `tf.stop_gradient`).

    Returns:
        `input`'s value, detached from the autograd graph.
    """
    x = as_tensor(input)
    return x if isinstance(x, np.ndarray) else x.detach()
