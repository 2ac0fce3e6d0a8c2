"""TF's `OrderedCode` (tensorflow/core/lib/strings/ordered_code.cc), only as much as the key of
a saved slice needs: `checkpoint::EncodeTensorNameSlice(name, slice)`."""

from __future__ import annotations

_HEADER = [(0, 0), (0x80, 0), (0xC0, 0), (0xE0, 0), (0xF0, 0), (0xF8, 0), (0xFC, 0), (0xFE, 0),
           (0xFF, 0), (0xFF, 0x80), (0xFF, 0xC0)]


def num_increasing(value: int) -> bytes:
    """`WriteNumIncreasing`: a length byte, then the value big-endian without leading zeros."""
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes([len(body)]) + body


def string(value: bytes) -> bytes:
    """`WriteString`: 0x00 -> 00 ff, 0xff -> ff 00, then the terminator 00 01."""
    return _escape(value) + b"\x00\x01"


def _escape(value: bytes) -> bytes:
    out = bytearray()
    for byte in value:
        if byte == 0:
            out += b"\x00\xff"
        elif byte == 0xFF:
            out += b"\xff\x00"
        else:
            out.append(byte)
    return bytes(out)


def signed_num_increasing(value: int) -> bytes:
    """`WriteSignedNumIncreasing`: order-preserving, self-delimiting signed integers."""
    x = ~value if value < 0 else value
    if x < 64:
        return bytes([(0x80 ^ value) & 0xFF])
    length = x.bit_length() // 7 + 1
    buf = bytearray((value & ((1 << 80) - 1)).to_bytes(10, "big"))
    begin = buf[10 - length:]
    begin[0] ^= _HEADER[length][0]
    begin[1] ^= _HEADER[length][1]
    return bytes(begin)


def tensor_name_slice(name: str, extents: list[tuple[int, int]]) -> bytes:
    """The bundle key of slice `extents` (`(start, length)` per dimension, length -1 for the
    full extent) of tensor `name`."""
    out = num_increasing(0) + string(name.encode("utf-8")) + num_increasing(len(extents))
    for start, length in extents:
        out += signed_num_increasing(start) + signed_num_increasing(length)
    return out
