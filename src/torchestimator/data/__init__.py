"""`tf.data`: input pipelines on PyTorch, columnar and batch-vectorized.

    import torchestimator as tf
    ds = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(10000).batch(256)
    for x, y in ds: ...

    ds = tf.data.experimental.make_csv_dataset("train-*.csv", batch_size=1024,
                                               label_name="label")

Iterating a dataset yields its elements with torch tensors as components
(string columns as numpy arrays of `str`); `as_numpy_iterator()` yields numpy.
"""

from importlib import import_module
from typing import Any

from torchestimator.data.constants import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset
from torchestimator.data.dataset_spec import DatasetSpec, IteratorSpec
from torchestimator.data.iterator import DatasetIterator as Iterator
from torchestimator.data.iterator import NumpyIterator
from torchestimator.data.options import (
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    OptimizationOptions,
    Options,
    ThreadingOptions,
)

# The file readers load on first use: the CSV and Parquet readers import PyArrow (and
# pyarrow.compute), which a pipeline over in-memory arrays never needs.
_LAZY = {
    "experimental": ("torchestimator.data.experimental", None),
    "CsvDataset": ("torchestimator.data.csv_reader", "CsvDataset"),
    "TextLineDataset": ("torchestimator.data.text_reader", "TextLineDataset"),
    "TFRecordDataset": ("torchestimator.data._tfrecord_dataset", "TFRecordDataset"),
    "FixedLengthRecordDataset": ("torchestimator.data.fixed_length_records",
                                 "FixedLengthRecordDataset"),
}


def __getattr__(name: str) -> Any:
    """Imports the lazily loaded names of `_LAZY` on first access."""
    if name not in _LAZY:
        raise AttributeError(f"module 'torchestimator.data' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = import_module(module_name)
    globals()[name] = value = module if attribute is None else getattr(module, attribute)
    return value


def __dir__() -> list[str]:
    """The public names, the lazily loaded ones included."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AutoShardPolicy",
    "AutotuneOptions", "CsvDataset", "Dataset", "DatasetSpec", "DistributeOptions",
    "FixedLengthRecordDataset", "Iterator", "IteratorSpec", "NumpyIterator",
    "OptimizationOptions", "Options", "TextLineDataset", "TFRecordDataset", "ThreadingOptions",
    "experimental",
]
