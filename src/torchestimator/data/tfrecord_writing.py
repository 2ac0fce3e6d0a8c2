"""`tf.data.experimental.TFRecordWriter`: writes a dataset of scalar strings to a TFRecord file."""

from __future__ import annotations

from typing import Any

from torchestimator._dtypes import TensorSpec, string
from torchestimator.data.dataset import Dataset
from torchestimator.data.streams import iter_elements


class TFRecordWriter:
    """Writes the elements of a dataset of scalar strings to `filename`, one record each
    (TF's `tf.data.experimental.TFRecordWriter`; `compression_type` None, 'GZIP' or 'ZLIB')."""

    def __init__(self, filename: str, compression_type: str | None = None):
        if not isinstance(filename, str):
            raise TypeError(f"`filename` must be a str; received {filename!r}")
        self._filename = filename
        self._compression_type = compression_type

    def write(self, dataset: Dataset) -> None:
        """Writes every element of `dataset` (scalar strings: bytes or str) as one record."""
        from torchestimator.io import (  # lazy: heavy (torchestimator.io, 240 ms)
            TFRecordOptions,
        )
        from torchestimator.io import (  # lazy: heavy (torchestimator.io, 240 ms)
            TFRecordWriter as Writer,
        )

        if not isinstance(dataset, Dataset):
            raise TypeError(f"`dataset` must be a tf.data.Dataset; received "
                            f"{type(dataset).__name__}")
        spec = dataset.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype is string and spec.shape == ()):
            raise TypeError(
                "Invalid `dataset.` Expected a `dataset` that produces scalar `tf.string` "
                f"elements, but got a dataset which produces elements with shapes "
                f"{getattr(spec, 'shape', spec)} and types {getattr(spec, 'dtype', spec)}.")
        options = TFRecordOptions(self._compression_type)
        with Writer(self._filename, options) as w:
            for (record,) in iter_elements(dataset._open()):
                w.write(record if isinstance(record, bytes) else _encode(record))


def _encode(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)
