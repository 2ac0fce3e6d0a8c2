"""The constants and the integer out_type check TF's creation and shape ops share."""

from __future__ import annotations

from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import dtype_name
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor
_STRING = _dtypes.string
_SHAPE_TYPES = (torch.int32, torch.int64)


def _int_dtype(out_type: Any, op: str, arg: str = "out_type") -> torch.dtype:
    dtype = torch.int32 if out_type is None else _dtypes.as_dtype(out_type)
    if dtype not in _SHAPE_TYPES:
        raise InvalidArgumentError(
            None, None,
            f"{op}: Value for attr '{arg}' of {dtype_name(dtype)} is not in the list of allowed "
            "values: int32, int64",
        )
    return dtype  # type: ignore[return-value]
