"""LevelDB's table format (an SSTable), as TF's tensor bundle writes its `.index` file.

The file ends with a 48-byte footer (the handles of the metaindex and index blocks, then the
magic number); the index block maps the last key of each data block to its handle; every
block is a run of prefix-compressed entries followed by its restart points, then a 5-byte
trailer (compression type and the masked CRC32C of the block and that type byte).
TF writes the index uncompressed; a compressed block is reported, not guessed at.
"""

from __future__ import annotations

import struct

from torchestimator._tf_formats._crc32c import crc32c, unmask

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_TRAILER = 5


class TableError(ValueError):
    """The file is not a well-formed SSTable (truncated, bad magic, bad checksum)."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise TableError("a varint runs past the end of its block")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise TableError("a varint is longer than 10 bytes")


def _handle(data: bytes, pos: int) -> tuple[int, int, int]:
    offset, pos = _varint(data, pos)
    size, pos = _varint(data, pos)
    return offset, size, pos


def _block(data: bytes, offset: int, size: int, path: str, what: str) -> bytes:
    end = offset + size
    if offset < 0 or end + _TRAILER > len(data):
        raise TableError(f"{path}: the {what} block ({offset}+{size} bytes) runs past the end of the file "
                         f"({len(data)} bytes): the file is truncated")
    contents = data[offset:end]
    kind = data[end]
    (stored,) = struct.unpack_from("<I", data, end + 1)
    actual = crc32c(data[offset:end + 1])
    if actual != unmask(stored):
        raise TableError(f"{path}: the {what} block at offset {offset} fails its CRC32C "
                         f"(computed {actual:#010x}, stored {unmask(stored):#010x}): the file is corrupt")
    if kind != 0:
        raise TableError(f"{path}: the {what} block at offset {offset} is compressed (type {kind}); "
                         "TensorFlow writes checkpoint indexes uncompressed, so this file is not one")
    return contents


def _entries(block: bytes, path: str) -> list[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise TableError(f"{path}: a block of {len(block)} bytes is too short")
    (restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * restarts
    if limit < 0:
        raise TableError(f"{path}: a block of {len(block)} bytes claims {restarts} restart points "
                         f"({4 * restarts} bytes), more than it holds")
    out = []
    pos = 0
    key = b""
    while pos < limit:
        start = pos
        try:
            shared, pos = _varint(block, pos)
            unshared, pos = _varint(block, pos)
            length, pos = _varint(block, pos)
        except TableError as e:
            raise TableError(f"{path}: the block entry at byte {start} of its block is corrupt ({e})") from e
        if shared > len(key) or pos + unshared + length > limit:
            raise TableError(
                f"{path}: the block entry at byte {start} of its block is malformed: it shares "
                f"{shared} bytes of the previous {len(key)}-byte key and claims {unshared}+{length} "
                f"bytes of key and value, {limit - pos} are left before the restart points")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        out.append((key, block[pos:pos + length]))
        pos += length
    return out


def read_table(data: bytes, path: str) -> list[tuple[bytes, bytes]]:
    """Every `(key, value)` of the SSTable held in `data`, in key order; `path` names the file in
    errors. Raises TableError when the file is truncated, not an SSTable, or fails a CRC32C."""
    if len(data) < FOOTER_SIZE:
        raise TableError(f"{path}: {len(data)} bytes is too short for an SSTable (its footer alone is "
                         f"{FOOTER_SIZE}): the file is truncated or not a TensorFlow checkpoint index")
    footer = data[-FOOTER_SIZE:]
    (magic,) = struct.unpack_from("<Q", footer, 40)
    if magic != MAGIC:
        raise TableError(f"{path}: bad magic number {magic:#x} (expected {MAGIC:#x}): not a TensorFlow "
                         "checkpoint index, or it is truncated")
    try:
        _, _, pos = _handle(footer, 0)  # the metaindex block (empty in TF's files)
        index_offset, index_size, _ = _handle(footer, pos)
    except TableError as e:
        raise TableError(f"{path}: its footer is corrupt ({e})") from e
    out: list[tuple[bytes, bytes]] = []
    for key, handle in _entries(_block(data, index_offset, index_size, path, "index"), path):
        try:
            offset, size, _ = _handle(handle, 0)
        except TableError as e:
            raise TableError(f"{path}: the index block's handle of the data block ending at key "
                             f"{key!r} is corrupt ({e})") from e
        out.extend(_entries(_block(data, offset, size, path, "data"), path))
    return out
