"""`tf.dtypes`: TensorFlow's dtype names, `as_dtype`, `cast`, `saturate_cast`, `complex` and
`DType`.

A dtype is a `torch.dtype` (`tf.dtypes.float32 is torch.float32`); `string`
is a marker for data kept as numpy arrays of `str` (torch has no string
tensor). `isinstance(d, tf.dtypes.DType)` holds for both. TF's quantized
dtypes (`qint8`, ...), `resource` and `variant` are dtype objects with TF's
names, enums and predicates but no tensor storage (making a tensor of one
raises); torch's uint16/uint32/uint64 support few ops.
"""

import types as _types

import torch as _torch

from torchestimator import _dtypes
from torchestimator._dtypes import (
    QUANTIZED_DTYPES,
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
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    variant,
)
from torchestimator._ops.creation import DType, cast, complex, saturate_cast

complex128 = _torch.complex128
uint16 = _torch.uint16
uint32 = _torch.uint32
uint64 = _torch.uint64

experimental = _types.SimpleNamespace(float8_e4m3fn=_torch.float8_e4m3fn, float8_e5m2=_torch.float8_e5m2,
                                      int4=_dtypes.int4, uint4=_dtypes.uint4)
