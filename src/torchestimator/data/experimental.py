"""`tf.data.experimental`: make_csv_dataset, make_parquet_dataset, CsvDataset and friends.

Both `make_*_dataset` functions return batched `(features, label)` elements
(features an OrderedDict of column name -> tensor of shape (batch,)), or just
the features without `label_name`, built as TF builds them: list the files
(shuffled per pass), read them (`num_parallel_reads` at once), shuffle rows,
repeat `num_epochs` times, batch (dropping the remainder when repeating
forever) and prefetch. Reading is columnar: PyArrow record batches flow
through the shuffle buffer and are sliced into batches.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from torchestimator._dtypes import TensorSpec, as_dtype
from torchestimator.data.columns import Block
from torchestimator.data.constants import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Cardinality,
)
from torchestimator.data.csv_reader import (
    CsvDataset,
    check_delim,
    check_str,
    dtype_of,
    read_csv_file,
)
from torchestimator.data.csv_rows import (
    CsvError,
    CsvFormat,
    CsvLayout,
    infer_types,
    parse_default,
    read_header,
)
from torchestimator.data.dataset import Dataset
from torchestimator.data.features_dataset import (
    make_batched_features_dataset,
    parse_example_dataset,
)
from torchestimator.data.files import (
    FileDataset,
    FileListDataset,
    NoMatchingFilesError,
    check_compression,
    match_files,
)
from torchestimator.data.grouping import Reducer
from torchestimator.data.lookup_tables import (
    DatasetInitializer,
    SqlDataset,
    index_table_from_dataset,
    table_from_dataset,
)
from torchestimator.data.optional import Optional, get_next_as_optional
from torchestimator.data.options import (
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    OptimizationOptions,
    ThreadingOptions,
)
from torchestimator.data.prefetching import PrefetchDataset
from torchestimator.data.structure import flatten
from torchestimator.data.tfrecord_writing import TFRecordWriter
from torchestimator.data.transformations import (
    SHARD_HINT,
    AutotuneAlgorithm,
    Counter,
    ExternalStatePolicy,
    RandomDataset,
    assert_cardinality,
    at,
    bucket_by_sequence_length,
    choose_from_datasets,
    copy_to_device,
    dense_to_ragged_batch,
    dense_to_sparse_batch,
    enable_debug_mode,
    enumerate_dataset,
    from_list,
    get_single_element,
    get_structure,
    group_by_reducer,
    group_by_window,
    ignore_errors,
    load,
    map_and_batch,
    pad_to_cardinality,
    parallel_interleave,
    prefetch_to_device,
    rejection_resample,
    sample_from_datasets,
    save,
    scan,
    shuffle_and_repeat,
    snapshot,
    take_while,
    unbatch,
    unique,
)
from torchestimator.data.validation import as_bool, as_int, as_seed

__all__ = [
    "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AutoShardPolicy",
    "AutotuneOptions", "CsvDataset", "CsvError", "DistributeOptions", "NoMatchingFilesError",
    "OptimizationOptions", "ThreadingOptions", "cardinality", "make_csv_dataset",
    "make_parquet_dataset",
    # issue 30
    "AutotuneAlgorithm", "Counter", "ExternalStatePolicy", "RandomDataset", "Reducer",
    "SHARD_HINT", "TFRecordWriter", "assert_cardinality", "at", "bucket_by_sequence_length",
    "choose_from_datasets", "copy_to_device", "dense_to_ragged_batch", "dense_to_sparse_batch",
    "enable_debug_mode", "enumerate_dataset", "from_list", "get_single_element",
    "get_structure", "group_by_reducer", "group_by_window", "ignore_errors", "load",
    "make_batched_features_dataset", "map_and_batch", "pad_to_cardinality",
    "parallel_interleave", "parse_example_dataset", "prefetch_to_device", "rejection_resample",
    "sample_from_datasets", "save", "scan", "shuffle_and_repeat", "snapshot", "take_while",
    "unbatch", "unique",
    # issue 32
    "DatasetInitializer", "Optional", "SqlDataset", "get_next_as_optional", "index_table_from_dataset",
    "table_from_dataset",
]


def cardinality(dataset: Dataset) -> Cardinality:
    """The cardinality of `dataset` (TF's `tf.data.experimental.cardinality`)."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"cardinality expects a Dataset; received {type(dataset).__name__}")
    return dataset.cardinality()


def make_csv_dataset(
    file_pattern: Any,
    batch_size: int,
    column_names: list[str] | None = None,
    column_defaults: list | None = None,
    label_name: str | None = None,
    select_columns: list | None = None,
    field_delim: str = ",",
    use_quote_delim: bool = True,
    na_value: str = "",
    header: bool = True,
    num_epochs: int | None = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: int | None = None,
    prefetch_buffer_size: int | None = None,
    num_parallel_reads: int | None = None,
    sloppy: bool = False,
    num_rows_for_inference: int | None = 100,
    compression_type: str | None = None,
    ignore_errors: bool = False,
    encoding: str = "utf-8",
) -> Dataset:
    """Reads CSV files into a dataset of batches (TF's `make_csv_dataset`).

    Each element is a `(features, label)` tuple for a batch of `batch_size` rows:
    `features` is an OrderedDict of column name -> tensor (strings: numpy arrays
    of str), `label` the `label_name` column (or just `features` without it).
    Column names come from the header unless `column_names` is given; column
    types from `column_defaults` (a dtype = required, a value = its default) or
    are inferred from the first `num_rows_for_inference` rows (int32, int64,
    float32, float64, then string; missing values default to 0 / "").
    `num_epochs=None` repeats forever (and drops the last partial batch).
    A bad row raises an error naming its file and line; `ignore_errors=True`
    skips it and warns with the count. Rows of files read in parallel
    (`num_parallel_reads`) are interleaved a block at a time.
    """
    batch_size = as_int("batch_size", batch_size, 1)
    fmt = CsvFormat(
        field_delim=check_delim(field_delim),
        use_quote_delim=as_bool("use_quote_delim", use_quote_delim),
        na_value=check_str("na_value", na_value),
        header=as_bool("header", header),
        compression_type=check_compression(compression_type),
        encoding=check_str("encoding", encoding),
        ignore_errors=as_bool("ignore_errors", ignore_errors),
    )
    if num_rows_for_inference is not None:
        num_rows_for_inference = as_int("num_rows_for_inference", num_rows_for_inference, 0)
    files = match_files(file_pattern, "file_pattern")
    if column_names is None:
        if not fmt.header:
            raise ValueError("Cannot infer column names without a header line: pass "
                             "`column_names`, or header=True")
        column_names = _header_names(files, fmt)
    else:
        column_names = _check_names(column_names)
    if column_names is None:  # every file is empty
        return _pipeline(files, lambda path: iter(()), _empty_spec(label_name), batch_size,
                         num_epochs, shuffle, shuffle_buffer_size, shuffle_seed,
                         prefetch_buffer_size, num_parallel_reads, sloppy)
    selected = _selected(column_names, select_columns)
    names = [column_names[i] for i in selected]
    _check_label(label_name, names)
    if column_defaults is not None:
        if not isinstance(column_defaults, (list, tuple)) or len(column_defaults) != len(selected):
            raise ValueError(
                f"`column_defaults` must have one entry per selected column ({len(selected)}: "
                f"{names}); received {column_defaults!r}"
            )
        parsed = [parse_default(d, f"column_defaults[{i}]") for i, d in enumerate(column_defaults)]
        types, defaults = [t for t, _ in parsed], [d for _, d in parsed]
    else:
        types = infer_types(files, fmt, len(column_names), selected, num_rows_for_inference,
                            list(column_names))
        defaults = ["" if dtype_of(t) is as_dtype("string") else 0 for t in types]
    specs = [TensorSpec((), dtype_of(t)) for t in types]
    spec, order = _element_layout(names, specs, label_name)
    layout = CsvLayout(num_columns=len(column_names), names=list(column_names),
                       selected=selected, types=types, defaults=defaults, order=order)

    def read(path: str) -> Iterator[Block]:
        return read_csv_file(path, fmt, layout)

    return _pipeline(files, read, spec, batch_size, num_epochs, shuffle, shuffle_buffer_size,
                     shuffle_seed, prefetch_buffer_size, num_parallel_reads, sloppy)


def make_parquet_dataset(
    file_pattern: Any,
    batch_size: int,
    label_name: str | None = None,
    select_columns: list | None = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: int | None = None,
    prefetch_buffer_size: int | None = None,
    num_parallel_reads: int | None = None,
    sloppy: bool = False,
) -> Dataset:
    """Reads Parquet files into a dataset of batches, like `make_csv_dataset` (our addition).

    Elements are `(features, label)` (or `features`), features an OrderedDict of
    column name -> tensor of shape (batch,). Column types are the files' own
    (numbers, bool, strings); nulls become 0 / "" / False. Files are streamed a
    record batch at a time; the arguments mean what they mean for `make_csv_dataset`.
    """
    # Imported here: pyarrow.parquet and pyarrow.compute cost ~13 MB and ~0.3 s to load,
    # which a CSV pipeline never needs.
    from torchestimator.data.parquet_reader import (  # lazy: heavy (torchestimator.data.parquet_reader, 56 ms)
        ParquetLayout,
        column_dtype,
        read_parquet_file,
        read_schema,
        unify_column_types,
    )

    batch_size = as_int("batch_size", batch_size, 1)
    files = match_files(file_pattern, "file_pattern")
    schema, first = None, None
    schemas = []  # (path, schema) of each non-empty file
    for path in files:
        s = read_schema(path)
        if s is None:
            continue
        schemas.append((path, s))
        if schema is None:
            schema, first = s, path
        elif s.names != schema.names:
            raise ValueError(
                f"Parquet files have different columns: {first} has {schema.names} but "
                f"{path} has {s.names}"
            )
    if schema is None:  # every file is empty
        return _pipeline(files, lambda path: iter(()), _empty_spec(label_name), batch_size,
                         num_epochs, shuffle, shuffle_buffer_size, shuffle_seed,
                         prefetch_buffer_size, num_parallel_reads, sloppy)
    column_names = list(schema.names)
    selected = _selected(column_names, select_columns)
    names = [column_names[i] for i in selected]
    _check_label(label_name, names)
    for name in names:  # an unsupported type is named with the file it is first found in
        column_dtype(name, schema.field(name).type, first)
    types = unify_column_types(names, schemas)
    specs = [TensorSpec((), column_dtype(n, t, first)) for n, t in zip(names, types)]
    spec, order = _element_layout(names, specs, label_name)
    layout = ParquetLayout(names=names, types=types, order=order)

    def read(path: str) -> Iterator[Block]:
        return read_parquet_file(path, layout)

    return _pipeline(files, read, spec, batch_size, num_epochs, shuffle, shuffle_buffer_size,
                     shuffle_seed, prefetch_buffer_size, num_parallel_reads, sloppy)


_READ_AHEAD = 2
"""Blocks (a chunk of the file each) read ahead of the shuffle buffer, on their own thread."""


def _pipeline(files: list[str], read: Any, spec: Any, batch_size: int, num_epochs: Any,
              shuffle: Any, shuffle_buffer_size: Any, shuffle_seed: Any,
              prefetch_buffer_size: Any, num_parallel_reads: Any, sloppy: Any) -> Dataset:
    """files -> rows -> shuffle -> repeat -> batch -> prefetch, as TF's make_csv_dataset."""
    shuffle = as_bool("shuffle", shuffle)
    shuffle_seed = as_seed("shuffle_seed", shuffle_seed)
    if num_epochs is not None:
        num_epochs = as_int("num_epochs", num_epochs, 0, allow=(-1,))
        if num_epochs == -1:
            num_epochs = None
    if num_parallel_reads is not None:
        num_parallel_reads = as_int("num_parallel_reads", num_parallel_reads, 1,
                                    allow=(AUTOTUNE,))
    if prefetch_buffer_size is not None:
        prefetch_buffer_size = as_int("prefetch_buffer_size", prefetch_buffer_size, 0,
                                      allow=(AUTOTUNE,))
    listing = FileListDataset(None, shuffle=shuffle, seed=shuffle_seed, files=files)
    ds: Dataset = FileDataset(listing, read, spec, num_parallel_reads=num_parallel_reads,
                              deterministic=not as_bool("sloppy", sloppy))
    if shuffle:
        # The shuffle buffer's gathers and scatters run on their own thread while the next
        # chunk is parsed (one thread would do both in turn; PyArrow's parse releases the GIL).
        ds = PrefetchDataset(ds, _READ_AHEAD, always_threaded=True)
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)
    if prefetch_buffer_size != 0:
        ds = ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
    return ds


def _header_names(files: list[str], fmt: CsvFormat) -> list[str] | None:
    """Column names from the header rows; error if two files disagree."""
    names, first = None, None
    for path in files:
        row = read_header(path, fmt)
        if row is None:
            continue
        if names is None:
            names, first = row, path
        elif row != names:
            raise ValueError(
                f"Files have different column names in the header row: {first} has {names} "
                f"but {path} has {row}"
            )
    return None if names is None else _check_names(names)


def _check_names(names: Any) -> list[str]:
    names = list(names)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise TypeError(f"`column_names` must be strings; received {bad[0]!r}")
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise ValueError(f"Cannot have duplicate column names; {dups} appear more than once")
    return names


def _selected(column_names: list[str], select_columns: Any) -> list[int]:
    """Sorted file column indices of `select_columns` (names or indices); all if None."""
    if select_columns is None:
        return list(range(len(column_names)))
    if isinstance(select_columns, (str, int)) or not select_columns:
        raise ValueError(f"`select_columns` must be a non-empty list of column names or "
                         f"indices; received {select_columns!r}")
    index = {n: i for i, n in enumerate(column_names)}
    out = []
    for v in select_columns:
        if isinstance(v, str):
            if v not in index:
                raise ValueError(
                    f"`select_columns` entry {v!r} is not a column; the columns are "
                    f"{column_names}"
                )
            out.append(index[v])
        else:
            i = as_int("select_columns", v, 0)
            if i >= len(column_names):
                raise ValueError(f"`select_columns` index {i} is out of range: there are "
                                 f"{len(column_names)} columns {column_names}")
            out.append(i)
    if len(set(out)) != len(out):
        raise ValueError(f"`select_columns` contains duplicate columns: {list(select_columns)}")
    return sorted(out)


def _check_label(label_name: Any, names: list[str]) -> None:
    if label_name is None:
        return
    if not isinstance(label_name, str):
        raise TypeError(f"`label_name` must be a str; received {label_name!r}")
    if label_name not in names:
        raise ValueError(
            f"`label_name` {label_name!r} is not one of the columns; the columns are {names}"
        )


def _element_layout(names: list[str], specs: list[TensorSpec],
                    label_name: str | None) -> tuple[Any, list[int]]:
    """The element spec ((features, label) or features) and the flat order of positions."""
    features = OrderedDict((n, s) for n, s in zip(names, specs) if n != label_name)
    positions = OrderedDict((n, i) for i, n in enumerate(names) if n != label_name)
    if label_name is None:
        return features, flatten(positions)
    label = names.index(label_name)
    return (features, specs[label]), flatten((positions, label))


def _empty_spec(label_name: str | None) -> Any:
    features: OrderedDict = OrderedDict()
    return features if label_name is None else (features, TensorSpec((), as_dtype("string")))
