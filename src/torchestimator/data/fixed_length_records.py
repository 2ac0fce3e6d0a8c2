"""`tf.data.FixedLengthRecordDataset`: fixed-size binary records of files (e.g. CIFAR's)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from torchestimator._dtypes import TensorSpec, string
from torchestimator.data.columns import Block
from torchestimator.data.files import FileDataset, check_compression, open_binary, resolve_filenames
from torchestimator.data.validation import as_int
from torchestimator.errors import InvalidArgumentError

_DEFAULT_BUFFER = 256 * 1024


def read_records(path: str, record_bytes: int, header_bytes: int, footer_bytes: int,
                 compression_type: str, buffer_size: int) -> Iterator[Block]:
    """The records of one file as blocks of scalar `bytes` elements.

    Raises InvalidArgumentError (TF's message) when the body between header and
    footer is not a whole number of records.
    """
    with open_binary(path, compression_type) as f:
        data = f.read()
    body = len(data) - header_bytes - footer_bytes
    if body < 0 or body % record_bytes:
        raise InvalidArgumentError(
            None, None, f"Excluding the header ({header_bytes} bytes) and footer "
            f"({footer_bytes} bytes), input file \"{path}\" has body length {body}, which is "
            f"not an exact multiple of the record length ({record_bytes} bytes).")
    per_block = max(1, buffer_size // record_bytes)
    n = body // record_bytes
    view = memoryview(data)
    for start in range(0, n, per_block):
        stop = min(n, start + per_block)
        arr = np.empty(stop - start, dtype=object)
        base = header_bytes + start * record_bytes
        arr[:] = [bytes(view[base + i * record_bytes: base + (i + 1) * record_bytes])
                  for i in range(stop - start)]
        yield Block([arr], stop - start)


class FixedLengthRecordDataset(FileDataset):
    """A dataset of fixed-length records from one or more binary files (TF's
    `tf.data.FixedLengthRecordDataset`).

    Each element is a scalar string (`bytes`) of `record_bytes` bytes; `header_bytes`
    and `footer_bytes` are skipped at each file's start and end. `compression_type`
    is None, '', 'GZIP' or 'ZLIB'; `num_parallel_reads` reads files in parallel.
    """

    def __init__(self, filenames: Any, record_bytes: int, header_bytes: int | None = None,
                 footer_bytes: int | None = None, buffer_size: int | None = None,
                 compression_type: str | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None):
        record = as_int("record_bytes", record_bytes, 1)
        header = 0 if header_bytes is None else as_int("header_bytes", header_bytes, 0)
        footer = 0 if footer_bytes is None else as_int("footer_bytes", footer_bytes, 0)
        size = _DEFAULT_BUFFER if buffer_size is None else as_int("buffer_size", buffer_size, 1)
        compression = check_compression(compression_type)
        if num_parallel_reads is not None:
            num_parallel_reads = as_int("num_parallel_reads", num_parallel_reads, 1, allow=(-1,))

        def read(path: str) -> Iterator[Block]:
            return read_records(path, record, header, footer, compression, size)

        super().__init__(resolve_filenames(filenames), read, TensorSpec((), string),
                         num_parallel_reads=num_parallel_reads)
