"""TF's `DataType` enum numbers (tensorflow/core/framework/types.proto) and their numpy forms."""

from __future__ import annotations

import numpy as np

# DataType number -> (TF's name, numpy dtype of the stored little-endian bytes; None: not a
# plain array). bfloat16 is stored as its 16 bits (uint16) and widened to float32 on read.
DTYPES: dict[int, tuple[str, np.dtype | None]] = {
    1: ("float32", np.dtype("<f4")),
    2: ("float64", np.dtype("<f8")),
    3: ("int32", np.dtype("<i4")),
    4: ("uint8", np.dtype("u1")),
    5: ("int16", np.dtype("<i2")),
    6: ("int8", np.dtype("i1")),
    7: ("string", None),
    8: ("complex64", np.dtype("<c8")),
    9: ("int64", np.dtype("<i8")),
    10: ("bool", np.dtype("?")),
    11: ("qint8", np.dtype("i1")),
    12: ("quint8", np.dtype("u1")),
    13: ("qint32", np.dtype("<i4")),
    14: ("bfloat16", np.dtype("<u2")),
    15: ("qint16", np.dtype("<i2")),
    16: ("quint16", np.dtype("<u2")),
    17: ("uint16", np.dtype("<u2")),
    18: ("complex128", np.dtype("<c16")),
    19: ("float16", np.dtype("<f2")),
    20: ("resource", None),
    21: ("variant", None),
    22: ("uint32", np.dtype("<u4")),
    23: ("uint64", np.dtype("<u8")),
}
STRING = 7
BFLOAT16 = 14


def dtype_name(number: int) -> str:
    """TF's name of DataType `number` (`float32`, ...), or `DataType(<number>)` when unknown."""
    entry = DTYPES.get(number)
    return entry[0] if entry else f"DataType({number})"


def bfloat16_to_float32(bits: np.ndarray) -> np.ndarray:
    """The float32 values of bfloat16 numbers given as their 16 bits (uint16)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)
