"""`tf.dtypes`: TensorFlow's dtype names, `as_dtype`, `cast`, `saturate_cast`, `complex` and
`DType`.

A dtype is a `torch.dtype` (`tf.dtypes.float32 is torch.float32`); `string`
is a marker for data kept as numpy arrays of `str` (torch has no string
tensor). `isinstance(d, tf.dtypes.DType)` holds for both. TF's quantized
dtypes (`qint8`, ...), `resource` and `variant` have no torch counterpart and
are not provided; torch's uint16/uint32/uint64 support few ops.
"""

import torch as _torch

from torchestimator._dtypes import (
    as_dtype,
    bfloat16,
    bool,
    complex64,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
)
from torchestimator._ops.creation import DType, cast, complex, saturate_cast

complex128 = _torch.complex128
uint16 = _torch.uint16
uint32 = _torch.uint32
uint64 = _torch.uint64
