"""`tf.data.TFRecordDataset`: the records of TFRecord files as scalar bytes elements."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from torchestimator._dtypes import TensorSpec, string
from torchestimator.data.columns import Block
from torchestimator.data.files import FileDataset, resolve_filenames
from torchestimator.data.validation import as_int
from torchestimator.io._tfrecord import _DEFAULT_BUFFER, check_compression, read_records


def _blocks(path: str, compression: str, buffer_size: int) -> Iterator[Block]:
    for records in read_records(path, compression, buffer_size):
        arr = np.empty(len(records), dtype=object)
        arr[:] = records
        yield Block([arr], len(records))


class TFRecordDataset(FileDataset):
    """A dataset of the records of TFRecord files (TF's `tf.data.TFRecordDataset`).

    Each element is a scalar string (`bytes`): one record, usually a serialized
    `tf.train.Example` to give to `tf.io.parse_example` after `batch`.
    `filenames` is a path, a list of paths/globs, or a dataset of file names;
    `compression_type` is None, '', 'GZIP' or 'ZLIB'; `num_parallel_reads`
    reads that many files at once (records interleaved). A corrupt or
    truncated record raises `tf.errors.DataLossError` naming the file and
    the byte offset.
    """

    def __init__(self, filenames: Any, compression_type: str | None = None,
                 buffer_size: int | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None):
        compression = check_compression(compression_type)
        size = _DEFAULT_BUFFER if buffer_size is None else as_int("buffer_size", buffer_size, 1)
        if num_parallel_reads is not None:
            num_parallel_reads = as_int("num_parallel_reads", num_parallel_reads, 1, allow=(-1,))

        def read(path: str) -> Iterator[Block]:
            return _blocks(path, compression, size)

        super().__init__(resolve_filenames(filenames), read, TensorSpec((), string),
                         num_parallel_reads=num_parallel_reads)
