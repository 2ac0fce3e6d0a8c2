"""`make_batched_features_dataset` and `parse_example_dataset`: batches of parsed
`tf.train.Example` records, through the project's `tf.io.parse_example`.

As TF builds it: list the files (shuffled per pass), read their records
(`reader`, TFRecordDataset by default), shuffle, repeat `num_epochs` times,
batch (dropping the last partial batch when repeating forever or with
`drop_final_batch`), parse each batch with `features`, split off `label_key`
and prefetch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from torchestimator.data.constants import AUTOTUNE
from torchestimator.data.dataset import Dataset
from torchestimator.data.validation import as_bool, as_int, as_seed


def _check_features(features: Any) -> Mapping:
    """`features` (a non-empty dict); VarLenFeature / SparseFeature / RaggedFeature entries
    parse to tf.SparseTensor / tf.RaggedTensor components of each batch."""
    if not isinstance(features, Mapping) or not features:
        raise ValueError(f"`features` must be a non-empty dict of feature name to "
                         f"tf.io.FixedLenFeature / FixedLenSequenceFeature / VarLenFeature / "
                         f"SparseFeature / RaggedFeature; received {features!r}")
    return features


def parse_example_dataset(features: Mapping, num_parallel_calls: int = 1,
                          deterministic: bool | None = None) -> Callable[[Dataset], Dataset]:
    """A transformation (for `Dataset.apply`) parsing batches of serialized `tf.train.Example`s
    into dicts of feature name -> tensor, with `tf.io.parse_example`."""
    features = _check_features(features)

    def parse(serialized: Any) -> dict:
        from torchestimator.io import (  # lazy: heavy (torchestimator.io, 240 ms)
            parse_example,
        )

        return parse_example(serialized, features)

    def apply(dataset: Dataset) -> Dataset:
        return dataset.map(parse, num_parallel_calls=None if num_parallel_calls in (None, 1)
                           else num_parallel_calls, deterministic=deterministic)

    return apply


def make_batched_features_dataset(
    file_pattern: Any,
    batch_size: int,
    features: Mapping,
    reader: Callable | None = None,
    label_key: str | None = None,
    reader_args: list | None = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: int | None = None,
    prefetch_buffer_size: int | None = None,
    reader_num_threads: int | None = None,
    parser_num_threads: int | None = None,
    sloppy_ordering: bool = False,
    drop_final_batch: bool = False,
) -> Dataset:
    """Reads TFRecord files of `tf.train.Example` into batches of parsed features (TF's
    `tf.data.experimental.make_batched_features_dataset`).

    Each element is a dict of feature name -> tensor of shape (batch, *shape)
    (strings: arrays of str; a `tf.SparseTensor` for VarLenFeature / SparseFeature, a
    `tf.RaggedTensor` for RaggedFeature), or `(features, label)` with `label_key`.
    `num_epochs=None` repeats forever. See the module doc for the pipeline.
    """
    from torchestimator.data._tfrecord_dataset import (  # lazy: heavy (pyarrow, torchestimator.io)
        TFRecordDataset,
    )

    batch_size = as_int("batch_size", batch_size, 1)
    features = _check_features(features)
    if label_key is not None and label_key not in features:
        raise ValueError(f"The `label_key` provided ({label_key}) must be one of the "
                         "`features` keys.")
    shuffle = as_bool("shuffle", shuffle)
    shuffle_seed = as_seed("shuffle_seed", shuffle_seed)
    if num_epochs is not None:
        num_epochs = as_int("num_epochs", num_epochs, 0)
    reader = TFRecordDataset if reader is None else reader
    args = list(reader_args or [])
    threads = 1 if reader_num_threads is None else as_int("reader_num_threads",
                                                         reader_num_threads, 1, allow=(AUTOTUNE,))
    files = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    if threads == 1:
        ds = files.flat_map(lambda f: reader(f, *args))
    else:
        ds = files.interleave(lambda f: reader(f, *args), cycle_length=threads,
                              num_parallel_calls=threads,
                              deterministic=not as_bool("sloppy_ordering", sloppy_ordering))
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=as_bool("drop_final_batch", drop_final_batch)
                  or num_epochs is None)
    ds = ds.apply(parse_example_dataset(features, parser_num_threads or 1))
    if label_key is not None:
        ds = ds.map(lambda x: (x, x.pop(label_key)))
    if prefetch_buffer_size != 0:
        ds = ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
    return ds
