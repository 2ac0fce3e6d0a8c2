"""`tf.compat.v1` forms of the API types: TF1's mutable `DeviceSpec`, `QUANTIZED_DTYPES`,
`convert_to_tensor_or_indexed_slices`."""

from __future__ import annotations

from typing import Any

from torchestimator import _dtypes
from torchestimator._device_spec import DeviceSpecV1 as DeviceSpec
from torchestimator._dtypes import QUANTIZED_DTYPES
from torchestimator._indexed_slices import IndexedSlices
from torchestimator._ops.convert import convert_to_tensor


def convert_to_tensor_or_indexed_slices(value: Any, dtype: Any = None, name: str | None = None) -> Any:
    """TF1's `tf.compat.v1.convert_to_tensor_or_indexed_slices`: an `IndexedSlices` passes
    through (its dtype checked against `dtype`), anything else goes through
    `tf.convert_to_tensor`."""

    if isinstance(value, IndexedSlices):
        if dtype is not None and _dtypes.as_dtype(dtype) != value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {_dtypes.dtype_name(dtype)} for Tensor with "
                             f"dtype {_dtypes.dtype_name(value.dtype)}: {value!r}")
        return value
    return convert_to_tensor(value, dtype, name=name)


__all__ = ["DeviceSpec", "QUANTIZED_DTYPES", "convert_to_tensor_or_indexed_slices"]
