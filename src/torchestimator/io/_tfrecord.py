"""TFRecord files: `tf.io.TFRecordWriter`, `tf.io.tf_record_iterator` and the record reader.

A TFRecord file is a sequence of records, each framed as

    uint64 length (little-endian)
    uint32 masked CRC32C of the 8 length bytes
    length bytes of data
    uint32 masked CRC32C of the data

with TensorFlow's mask `((crc >> 15) | (crc << 17)) + 0xa282ead8`. The file may
be GZIP or ZLIB compressed as a whole. Reading checks both CRCs: a corrupt or
truncated record raises `tf.errors.DataLossError` naming the file and the
byte offset of the record. CRC32C is Google's C implementation
(`google-crc32c`, hardware-accelerated), about 0.1 µs a record.
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import google_crc32c
import numpy as np

from torchestimator._engine.gfile_streams import open_binary
from torchestimator.errors import DataLossError, NotFoundError

_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
_MASK_DELTA = 0xA282EAD8
_DEFAULT_BUFFER = 256 * 1024
_BLOCK_RECORDS = 4096
_MAX_PIECE = 64 << 20  # the most one read of a long record asks for


def masked_crc32c(data: bytes) -> int:
    """TensorFlow's masked CRC32C of `data` (as stored in TFRecord framing)."""
    crc = google_crc32c.value(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def frame(record: bytes) -> bytes:
    """One record with its TFRecord framing (length, CRCs)."""
    length = struct.pack("<Q", len(record))
    return b"".join((length, _FOOTER.pack(masked_crc32c(length)), record,
                     _FOOTER.pack(masked_crc32c(record))))


class TFRecordOptions:
    """Options of a TFRecord file (TF's `tf.io.TFRecordOptions`): its `compression_type`.

    `compression_type` is None or '' (none), 'GZIP' or 'ZLIB'; `compression_level`
    (0-9) applies to both.
    """

    def __init__(self, compression_type: str | None = None, flush_mode: Any = None,
                 input_buffer_size: int | None = None, output_buffer_size: int | None = None,
                 window_bits: int | None = None, compression_level: int | None = None,
                 compression_method: Any = None, mem_level: int | None = None,
                 compression_strategy: Any = None):
        self.compression_type = check_compression(compression_type)
        self.compression_level = compression_level

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """'' , 'GZIP' or 'ZLIB' for an options object, a string or None."""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return check_compression(options)


def check_compression(compression_type: Any) -> str:
    """Normalizes a TFRecord compression type to '', 'GZIP' or 'ZLIB'; ValueError otherwise."""
    value = "" if compression_type is None else compression_type
    if not isinstance(value, str) or value.upper() not in ("", "GZIP", "ZLIB"):
        raise ValueError(
            f"compression_type must be None, '', 'GZIP' or 'ZLIB'; received {compression_type!r}")
    return value.upper()


class _ZlibFile:
    """A writable binary file compressing to a ZLIB (RFC 1950) stream."""

    def __init__(self, path: str, level: int):
        self._f = open(path, "wb")
        self._z = zlib.compressobj(level)

    def write(self, data: bytes) -> None:
        self._f.write(self._z.compress(data))

    def flush(self) -> None:
        self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()

    def close(self) -> None:
        try:
            self._f.write(self._z.flush())
        finally:
            self._f.close()


class TFRecordWriter:
    """Writes records to a TFRecord file (TF's `tf.io.TFRecordWriter(path, options=None)`).

    A context manager; `write(record)` appends one record (bytes, e.g.
    `example.SerializeToString()`), `flush()` pushes buffered records to the
    file, `close()` finishes it. `options` is None, '', 'GZIP', 'ZLIB' or a
    `tf.io.TFRecordOptions`.
    """

    def __init__(self, path: Any, options: Any = None):
        self.path = os.fsdecode(path) if isinstance(path, bytes) else os.fspath(path)
        compression = TFRecordOptions.get_compression_type_string(options)
        level = getattr(options, "compression_level", None)
        level = 6 if level is None else int(level)
        if compression == "GZIP":
            self._file: Any = gzip.open(self.path, "wb", compresslevel=level)
        elif compression == "ZLIB":
            self._file = _ZlibFile(self.path, level)
        else:
            self._file = open(self.path, "wb")
        self._closed = False

    def write(self, record: Any) -> None:
        """Writes one record (bytes or str); TypeError for anything else."""
        if self._closed:
            raise ValueError(f"TFRecordWriter for {self.path!r} is closed; open a new one")
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif isinstance(record, (bytearray, memoryview, np.bytes_)):
            record = bytes(record)
        elif not isinstance(record, bytes):
            raise TypeError(f"TFRecordWriter.write takes bytes (e.g. "
                            f"example.SerializeToString()); received {type(record).__name__}")
        self._file.write(frame(record))

    def flush(self) -> None:
        """Flushes the records written so far to the file."""
        if not self._closed:
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file; later writes raise ValueError."""
        if not self._closed:
            self._closed = True
            self._file.close()

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass


def _corrupt(path: str, offset: int, what: str, compressed: bool) -> DataLossError:
    where = " of the decompressed stream" if compressed else ""
    return DataLossError(
        f"corrupted record at {offset}: {what} in TFRecord file {path!r} (byte offset "
        f"{offset}{where}). The file is damaged or not a TFRecord file (check compression_type).")


def read_records(path: str, compression_type: str = "", buffer_size: int = _DEFAULT_BUFFER
                 ) -> Iterator[list[bytes]]:
    """Yields the records of one TFRecord file in lists (up to a few thousand at a time).

    Raises `tf.errors.DataLossError` naming the file and offset on a CRC
    mismatch or a truncated record. A record's length field is checked against
    the bytes left in the file before its data is read, and a long record is
    read in pieces of at most 64 MiB, so a crafted length allocates nothing
    beyond what the file (or its decompressed stream) really holds.
    """
    compressed = compression_type != ""
    unpack_header = _HEADER.unpack_from
    unpack_footer = _FOOTER.unpack_from
    crc = masked_crc32c
    with open_binary(path, compression_type) as f:
        buf = b""
        base = pos = 0
        while True:
            out: list[bytes] = []
            size = len(buf)
            need = 12
            while pos + 12 <= size:
                length, length_crc = unpack_header(buf, pos)
                if crc(buf[pos:pos + 8]) != length_crc:
                    raise _corrupt(path, base + pos, "the length's CRC does not match", compressed)
                end = pos + 16 + length
                if end > size:
                    if not compressed:
                        _check_length(f, path, base + pos, length)
                    need = end - pos
                    break
                data = buf[pos + 12:end - 4]
                if crc(data) != unpack_footer(buf, end - 4)[0]:
                    raise _corrupt(path, base + pos, f"the CRC of the {length}-byte data does not "
                                   "match", compressed)
                out.append(data)
                pos = end
                if len(out) >= _BLOCK_RECORDS:
                    break
            if out:
                yield out
                continue
            chunks = _read_pieces(f, path, compression_type, base + size,
                                  max(buffer_size, need - (size - pos)), buffer_size)
            if not chunks:
                if pos < size:
                    raise _corrupt(path, base + pos, _truncation(buf, pos, size), compressed)
                return
            buf = b"".join([buf[pos:], *chunks])
            base += pos
            pos = 0


def _read_pieces(f: Any, path: str, compression_type: str, at: int, want: int,
                 first: int) -> list[bytes]:
    """Up to `want` bytes of `f` as a list of pieces ([] at the end of the file). The first
    read asks for `first` bytes at most, each later one for no more than has been read so far
    (and `_MAX_PIECE`), so a crafted record length never sizes an allocation: what is
    allocated stays within twice what the file (or its decompressed stream) really holds."""
    pieces: list[bytes] = []
    got = 0
    try:
        while want > 0:
            piece = f.read(min(want, _MAX_PIECE, max(first, got)))
            if not piece:
                break
            pieces.append(piece)
            got += len(piece)
            want -= len(piece)
    except (OSError, EOFError, ValueError, zlib.error) as e:
        raise DataLossError(f"cannot read TFRecord file {path!r} after byte {at}"
                            f" ({compression_type or 'uncompressed'}): {e}") from None
    return pieces


def _file_size(f: Any) -> int | None:
    """The size of the open (uncompressed, local) file `f`; None when it has no file number."""
    try:
        return os.fstat(f.fileno()).st_size
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _check_length(f: Any, path: str, offset: int, length: int) -> None:
    """DataLossError when the record at `offset` claims more data than the file has left."""
    total = _file_size(f)
    if total is not None and offset + 16 + length > total:
        left = max(total - offset - 16, 0)
        raise _corrupt(path, offset, f"truncated record: its length field says {length} bytes "
                       f"but only {left} follow it before the end of the file ({total} bytes)",
                       False)


def _truncation(buf: bytes, pos: int, size: int) -> str:
    """What is wrong with the incomplete record at the end of a file."""
    if size - pos < 12:
        return f"truncated record ({size - pos} bytes left at the end of the file)"
    (length,) = struct.unpack_from("<Q", buf, pos)
    return (f"truncated record: its length field says {length} bytes but only "
            f"{max(size - pos - 16, 0)} follow it before the end of the file")


def tf_record_iterator(path: Any, options: Any = None) -> Iterator[bytes]:
    """Yields each record of a TFRecord file as bytes (TF's `tf.io.tf_record_iterator`)."""
    path = os.fsdecode(path) if isinstance(path, bytes) else os.fspath(path)
    if not os.path.exists(path):
        raise NotFoundError(f"TFRecord file {path!r} does not exist")
    for records in read_records(path, TFRecordOptions.get_compression_type_string(options)):
        yield from records
