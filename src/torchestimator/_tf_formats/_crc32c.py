"""CRC32C as TF's checkpoints and SSTables record it (`crc32c::Mask`ed).

`google_crc32c` computes it (hardware-accelerated). Its Python function takes `bytes` only; to
checksum a numpy array in place (no copy of a large tensor), the library's C function
`crc32c_extend` is called through ctypes when it can be found, else the array is copied
into `bytes` first.
"""

from __future__ import annotations

import ctypes
from typing import Any

import google_crc32c
from google_crc32c import _crc32c

_MASK_DELTA = 0xA282EAD8


def _c_extend() -> Any:
    try:
        function = ctypes.CDLL(_crc32c.__file__).crc32c_extend
    except (ImportError, OSError, AttributeError):
        return None
    function.restype = ctypes.c_uint32
    function.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t]
    return function


_EXTEND = _c_extend()


def crc32c(data: bytes, initial: int = 0) -> int:
    """The CRC32C of `data` (continuing from `initial`)."""
    if initial:
        return google_crc32c.extend(initial, data)
    return google_crc32c.value(data)


def crc32c_array(array: Any) -> int:
    """The CRC32C of the bytes of C-contiguous numpy array `array`, without copying it when the
    C library is reachable."""
    if _EXTEND is not None:
        return int(_EXTEND(0, array.ctypes.data, array.nbytes))
    return google_crc32c.value(array.tobytes())


def mask(crc: int) -> int:
    """TF's (LevelDB's) masked form of a CRC, the one stored in files."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The CRC whose `mask` is `masked`."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF
