"""make_parquet_dataset: same batches as make_csv_dataset, errors, streaming in bounded memory."""

import collections
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import torch

import torchestimator as tf
from torchestimator.data.columns import Block
from torchestimator.data.files import FileDataset
from torchestimator.datasets import iris

experimental = tf.data.experimental


def write_mixed(tmp_path, rows=500, files=2):
    """The same rows as CSV files and Parquet files (types as make_csv_dataset infers)."""
    rng = np.random.default_rng(0)
    csv_paths, pq_paths = [], []
    for k in range(files):
        table = pa.table({
            "x": pa.array(np.round(rng.normal(size=rows), 3), pa.float32()),
            "n": pa.array(rng.integers(-5, 5, rows), pa.int32()),
            "word": pa.array([f"w{i % 7}" for i in range(rows)], pa.string()),
            "label": pa.array(rng.integers(0, 2, rows), pa.int32()),
        })
        csv_path, pq_path = str(tmp_path / f"d{k}.csv"), str(tmp_path / f"d{k}.parquet")
        pacsv.write_csv(table, csv_path, write_options=pacsv.WriteOptions(quoting_style="none"))
        pq.write_table(table, pq_path, row_group_size=128)
        csv_paths.append(csv_path)
        pq_paths.append(pq_path)
    return csv_paths, pq_paths


def flat(batch):
    features, label = batch
    return {k: np.asarray(v).tolist() for k, v in features.items()}, label.tolist()


@pytest.mark.parametrize("shuffle", [False, True])
def test_parquet_and_csv_give_the_same_batches(tmp_path, shuffle):
    csv_paths, pq_paths = write_mixed(tmp_path)
    kwargs = dict(batch_size=64, label_name="label", num_epochs=2, shuffle=shuffle,
                  shuffle_seed=11, shuffle_buffer_size=300)
    from_csv = experimental.make_csv_dataset(str(tmp_path / "d*.csv"), **kwargs)
    from_pq = experimental.make_parquet_dataset(str(tmp_path / "d*.parquet"), **kwargs)
    assert from_csv.element_spec == from_pq.element_spec
    a = [flat(b) for b in from_csv.as_numpy_iterator()]
    b = [flat(b) for b in from_pq.as_numpy_iterator()]
    assert len(a) == 32 and a == b  # 2 files x 500 rows x 2 epochs / 64
    first = next(iter(from_pq))
    assert first[0]["x"].dtype == torch.float32 and first[0]["word"].dtype == object


def test_parquet_types_nulls_select_and_errors(tmp_path):
    table = pa.table({"f16": pa.array([1.5, None], pa.float16()),
                      "b": pa.array([True, None]), "u": pa.array([7, 8], pa.uint32()),
                      "s": pa.array(["a", None]).dictionary_encode(),
                      "when": pa.array([1, 2], pa.timestamp("s"))})
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path)
    ds = experimental.make_parquet_dataset(path, 4, select_columns=["f16", "b", "u", "s"],
                                           num_epochs=1, shuffle=False)
    features = next(iter(ds))
    assert features["f16"].dtype == torch.float16 and features["f16"].tolist() == [1.5, 0.0]
    assert features["b"].tolist() == [True, False] and features["u"].dtype == torch.int64
    assert features["s"].tolist() == ["a", ""]
    with pytest.raises(TypeError, match=r"'when'.*timestamp.*select_columns"):
        experimental.make_parquet_dataset(path, 4)
    with pytest.raises(ValueError, match=r"`label_name` 'y' is not one of the columns"):
        experimental.make_parquet_dataset(path, 4, label_name="y", select_columns=["u"])
    with pytest.raises(ValueError, match=r"`select_columns` entry 'nope'.*'f16'"):
        experimental.make_parquet_dataset(path, 4, select_columns=["nope"])
    with pytest.raises(ValueError, match="No files matched"):
        experimental.make_parquet_dataset(str(tmp_path / "*.pq"), 4)


def test_parquet_empty_files_and_schema_mismatch(tmp_path):
    open(tmp_path / "empty.parquet", "wb").close()
    pq.write_table(pa.table({"a": pa.array([], pa.int64())}), str(tmp_path / "zero.parquet"))
    ds = experimental.make_parquet_dataset(str(tmp_path / "*.parquet"), 4, num_epochs=1)
    assert list(ds) == []
    pq.write_table(pa.table({"b": [1]}), str(tmp_path / "other.parquet"))
    with pytest.raises(ValueError, match="different columns"):
        experimental.make_parquet_dataset(str(tmp_path / "*.parquet"), 4)


def test_iris_as_parquet_matches_csv(tmp_path):
    table = pacsv.read_csv(iris.csv_path(), convert_options=pacsv.ConvertOptions(
        column_types={n: pa.float32() for n in iris.FEATURE_NAMES} | {"Species": pa.int32()}))
    pq.write_table(table, str(tmp_path / "iris.parquet"))
    kwargs = dict(batch_size=50, label_name="Species", num_epochs=1, shuffle=False)
    a = [flat(b) for b in experimental.make_csv_dataset(iris.csv_path(), **kwargs)
         .as_numpy_iterator()]
    b = [flat(b) for b in experimental.make_parquet_dataset(str(tmp_path / "iris.parquet"),
                                                             **kwargs).as_numpy_iterator()]
    assert a == b


def test_file_reading_is_lazy(tmp_path):
    """Only the blocks a pass needs are read: memory follows the pipeline, not the file."""
    made = collections.Counter()

    def read(path):
        for i in range(1000):  # a 'file' of 1000 blocks of 100 rows
            made[path] += 1
            yield Block([torch.arange(i * 100, (i + 1) * 100)], 100)

    ds = FileDataset(["f"], read, tf.TensorSpec((), tf.int64)).shuffle(500, seed=0).batch(64)
    it = iter(ds)
    next(it)
    assert made["f"] <= 7  # the 500-row buffer plus the blocks of the first step
    next(it)
    assert made["f"] <= 7
    del it


@pytest.mark.slow
def test_streaming_memory_does_not_grow_with_file_size(tmp_path):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    import bench_data

    small, large = str(tmp_path / "s.csv"), str(tmp_path / "l.csv")
    bench_data.write_csv(small, 200_000)
    bench_data.write_csv(large, 2_000_000, chunk=250_000)
    peaks = []
    for path in (small, large):
        m = bench_data.streaming_memory(path)
        peaks.append(m["peak_kb"] - m["import_kb"])
    assert peaks[1] <= 1.5 * peaks[0] + 32 * 1024, peaks  # allow 32 MB of allocator noise


def test_a_column_typed_differently_per_file_is_read_as_one_dtype(tmp_path):
    """int64 in one file, double in the next: both are read as float64 (the dtype is decided
    once from every file's schema), so each batch has the element_spec's dtype."""
    pq.write_table(pa.table({"a": [1.5, 2.5], "s": ["x", "y"]}), str(tmp_path / "1.parquet"))
    pq.write_table(pa.table({"a": pa.array([3, 4], pa.int64()),
                             "s": pa.array(["z", "w"]).dictionary_encode()}),
                   str(tmp_path / "2.parquet"))
    ds = experimental.make_parquet_dataset(str(tmp_path / "*.parquet"), 2, num_epochs=1,
                                           shuffle=False)
    assert ds.element_spec["a"].dtype == tf.float64
    batches = list(ds)
    assert [b["a"].dtype for b in batches] == [torch.float64, torch.float64]
    assert batches[1]["a"].tolist() == [3.0, 4.0] and list(batches[1]["s"]) == ["z", "w"]


def test_a_column_with_no_common_type_names_both_files(tmp_path):
    pq.write_table(pa.table({"a": [1.5, 2.5]}), str(tmp_path / "1.parquet"))
    pq.write_table(pa.table({"a": ["p", "q"]}), str(tmp_path / "2.parquet"))
    with pytest.raises(ValueError) as caught:
        experimental.make_parquet_dataset(str(tmp_path / "*.parquet"), 2, num_epochs=1)
    message = str(caught.value)
    assert all(s in message for s in ("'a'", "1.parquet", "2.parquet", "double", "string"))
