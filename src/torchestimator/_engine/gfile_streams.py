"""Opening a file of an input pipeline for reading: a local path or a URL, whole or
decompressed (GZIP, ZLIB).

`tf.io.tf_record_iterator` and the `tf.data` file readers (TFRecord, CSV, text lines,
fixed-length records) read through `open_binary`; `torchestimator.data.files`
re-exports it. It sits with `storage` (below `io` and `data`, both of which use it) and
loads neither fsspec nor pyarrow until a URL or a GZIP file needs them.
"""

from __future__ import annotations

import io
import zlib
from typing import Any

from torchestimator._engine import storage


class _ZlibReader(io.RawIOBase):
    """A readable binary stream decompressing a ZLIB (RFC 1950) file."""

    def __init__(self, path: str, chunk: int = 1 << 20):
        self._f = open_binary(path, "")
        self._d = zlib.decompressobj()
        self._buf = b""
        self._chunk = chunk

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        """Decompresses at most `chunk` bytes at a time (a zlib bomb's megabyte of input would
        otherwise expand into one allocation of about a gigabyte); the input not yet
        decompressed waits in the decompressor's `unconsumed_tail`."""
        while not self._buf:
            raw = self._d.unconsumed_tail or self._f.read(self._chunk)
            if not raw:
                self._buf = self._d.flush()
                if not self._buf:
                    return 0
                break
            self._buf = self._d.decompress(raw, self._chunk)
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:
        self._f.close()
        super().close()


def open_binary(path: str, compression_type: str) -> Any:
    """A binary file object over `path` (a local path or a URL), decompressing GZIP or ZLIB."""
    if compression_type == "GZIP":
        import pyarrow as pa  # lazy: heavy (pyarrow, 240 ms)

        return pa.input_stream(open_binary(path, "") if storage.is_url(path) else path,
                               compression="gzip")
    if compression_type == "ZLIB":
        return io.BufferedReader(_ZlibReader(path))
    if "://" in path:
        return storage.open_read(path)  # the caller closes it
    return open(path, "rb")  # the caller closes it
