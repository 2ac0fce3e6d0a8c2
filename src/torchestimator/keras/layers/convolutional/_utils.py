"""Argument normalization and output-length arithmetic shared by the convolution,
pooling and reshaping layers (Keras' `conv_utils`), plus TF's 'same' padding rule."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

from torchestimator.keras.backend import image_data_format


def normalize_tuple(
    value: Any, n: int, name: str, allow_zero: bool = False
) -> tuple[int, ...]:
    """Returns `value` (an int or an iterable of `n` ints) as a tuple of `n` ints.

    Raises ValueError naming the argument when the value is not `n` integers or
    one is not positive (or negative, with `allow_zero`).
    """
    if isinstance(value, bool):
        value = None  # falls through to the error below
    if isinstance(value, int):
        values: tuple = (value,) * n
    else:
        try:
            values = tuple(value)  # type: ignore[arg-type]
        except TypeError:
            values = ()
        if len(values) != n or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise ValueError(
                f"The `{name}` argument must be a tuple of {n} integers. Received: {name}={value!r}"
            )
    bad = [v for v in values if (v < 0 if allow_zero else v <= 0)]
    if bad:
        req = ">= 0" if allow_zero else "> 0"
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value!r} "
            f"including {bad} that does not satisfy the requirement `{req}`."
        )
    return tuple(int(v) for v in values)


def normalize_padding(value: Any, allowed: Iterable[str] = ("valid", "same")) -> str:
    """Returns the padding name in lower case; raises ValueError if it is not one of `allowed`."""
    allowed = tuple(allowed)
    if isinstance(value, str) and value.lower() in allowed:
        return value.lower()
    raise ValueError(
        f"The `padding` argument must be one of {list(allowed)}. Received: padding={value!r}"
    )


def normalize_data_format(value: Any) -> str:
    """Returns 'channels_last' or 'channels_first' (None means the backend default)."""
    if value is None:
        return image_data_format()
    if isinstance(value, str) and value.lower() in ("channels_last", "channels_first"):
        return value.lower()
    raise ValueError(
        "The `data_format` argument must be one of 'channels_first', 'channels_last'. "
        f"Received: data_format={value!r}"
    )


def positive_int(value: Any, name: str) -> int:
    """Returns `value` as an int if it is a positive integer, else raises ValueError naming it.
    A 0-d integer array or tensor counts (`tf.math.reduce_prod(shape).numpy()`, as TF's)."""
    if isinstance(value, (np.ndarray, torch.Tensor)) and value.ndim == 0 and (
            value.dtype.is_floating_point is False and value.dtype != torch.bool
            if isinstance(value, torch.Tensor) else value.dtype.kind in "iu"):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(
            f"Received an invalid value for `{name}`, expected a positive integer. "
            f"Received: {name}={value!r}"
        )
    value = int(value)
    if value <= 0:
        raise ValueError(
            f"Received an invalid value for `{name}`, expected a positive integer. "
            f"Received: {name}={value}"
        )
    return value


def conv_output_length(
    input_length: int | None, filter_size: int, padding: str, stride: int, dilation: int = 1
) -> int | None:
    """Returns the output length of a convolution or pooling over `input_length` (None stays None).
    """
    if input_length is None:
        return None
    dilated = (filter_size - 1) * dilation + 1
    if padding in ("same", "causal"):
        length = input_length
    elif padding == "valid":
        length = input_length - dilated + 1
    else:  # "full"
        length = input_length + dilated - 1
    return (length + stride - 1) // stride


def deconv_output_length(
    input_length: int | None,
    filter_size: int,
    padding: str,
    output_padding: int | None = None,
    stride: int = 1,
    dilation: int = 1,
) -> int | None:
    """Returns the output length of a transposed convolution (Keras' `deconv_output_length`)."""
    if input_length is None:
        return None
    filter_size = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return input_length * stride + max(filter_size - stride, 0)
        if padding == "full":
            return input_length * stride - (stride + filter_size - 2)
        return input_length * stride
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (input_length - 1) * stride + filter_size - 2 * pad + output_padding


def same_padding(length: int, kernel: int, stride: int, dilation: int = 1) -> tuple[int, int]:
    """TF's 'SAME' padding of one dimension: (before, after), the extra element after."""
    effective = (kernel - 1) * dilation + 1
    out = math.ceil(length / stride)
    total = max((out - 1) * stride + effective - length, 0)
    return total // 2, total - total // 2
