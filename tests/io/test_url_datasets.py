"""tf.data file readers on URLs: TextLineDataset, CsvDataset, make_csv_dataset, TFRecordDataset,
make_parquet_dataset and list_files over `memory://` files (fsspec's in-process store), plain
and compressed, with the errors that name a pattern matching nothing. (The same against a real
S3 server: tests/io/test_s3_storage.py.)"""

from __future__ import annotations

import gzip
import io
import uuid
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import torchestimator as tf


@pytest.fixture
def store(memory_url):
    """A fresh `memory://` folder (tests/conftest.py), removed afterwards."""
    return memory_url


def put(url, data: bytes) -> None:
    with tf.io.gfile.GFile(url, "wb") as f:
        f.write(data)


def tfrecord_bytes(records, tmp_path, options=None) -> bytes:
    path = tmp_path / f"r-{uuid.uuid4().hex}.tfrecord"
    with tf.io.TFRecordWriter(str(path), options) as writer:
        for r in records:
            writer.write(r)
    return path.read_bytes()


def test_text_line_dataset_reads_a_glob_of_urls_plain_and_gzip(store):
    put(f"{store}/a.txt", b"one\ntwo\r\n")
    put(f"{store}/b.txt", b"three\nfour")
    put(f"{store}/c.txt.gz", gzip.compress(b"five\nsix\n"))
    put(f"{store}/d.txt.zz", zlib.compress(b"seven\n"))
    lines = [s for s in tf.data.TextLineDataset(f"{store}/*.txt").as_numpy_iterator()]
    assert [x.decode() if isinstance(x, bytes) else x for x in lines] == ["one", "two", "three", "four"]
    gz = list(tf.data.TextLineDataset(f"{store}/c.txt.gz", compression_type="GZIP").as_numpy_iterator())
    assert [x.decode() if isinstance(x, bytes) else x for x in gz] == ["five", "six"]
    zz = list(tf.data.TextLineDataset([f"{store}/d.txt.zz"], compression_type="ZLIB").as_numpy_iterator())
    assert [x.decode() if isinstance(x, bytes) else x for x in zz] == ["seven"]
    # Parallel reads of several URLs keep every line.
    both = tf.data.TextLineDataset([f"{store}/a.txt", f"{store}/b.txt"], num_parallel_reads=2)
    assert len(list(both.as_numpy_iterator())) == 4


def test_csv_readers_read_urls(store):
    put(f"{store}/part-0.csv", b"x,y,label\n1.5,a,0\n2.5,b,1\n")
    put(f"{store}/part-1.csv", b"x,y,label\n3.5,c,1\n")
    put(f"{store}/part-2.csv.gz", gzip.compress(b"x,y,label\n4.5,d,0\n"))
    ds = tf.data.experimental.make_csv_dataset(f"{store}/part-*.csv", batch_size=10, label_name="label",
                                               num_epochs=1, shuffle=False)
    features, labels = next(iter(ds))
    np.testing.assert_allclose(np.asarray(features["x"]), [1.5, 2.5, 3.5])
    assert np.asarray(labels).tolist() == [0, 1, 1]
    rows = list(tf.data.experimental.CsvDataset(
        f"{store}/part-0.csv", [tf.float32, tf.string, tf.int32], header=True).as_numpy_iterator())
    assert [float(r[0]) for r in rows] == [1.5, 2.5] and [int(r[2]) for r in rows] == [0, 1]
    gz = tf.data.experimental.make_csv_dataset(f"{store}/part-2.csv.gz", batch_size=4, num_epochs=1,
                                               shuffle=False, compression_type="GZIP")
    assert np.asarray(next(iter(gz))["x"]).tolist() == [4.5]


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tfrecord_dataset_reads_urls(store, tmp_path, compression):
    records = [f"record-{i}".encode() * (i + 1) for i in range(50)]
    put(f"{store}/data-0.tfrecord", tfrecord_bytes(records[:20], tmp_path, compression or None))
    put(f"{store}/data-1.tfrecord", tfrecord_bytes(records[20:], tmp_path, compression or None))
    files = tf.io.gfile.glob(f"{store}/data-*.tfrecord")
    assert files == [f"{store}/data-0.tfrecord", f"{store}/data-1.tfrecord"]
    ds = tf.data.TFRecordDataset(files, compression_type=compression)
    assert list(ds.as_numpy_iterator()) == records
    examples = tf.data.TFRecordDataset(f"{store}/data-*.tfrecord", compression_type=compression)
    assert len(list(examples.as_numpy_iterator())) == 50


def test_a_truncated_tfrecord_url_is_reported_with_its_url(store, tmp_path):
    data = tfrecord_bytes([b"a" * 100, b"b" * 100], tmp_path)
    put(f"{store}/cut.tfrecord", data[:-30])
    with pytest.raises(tf.errors.DataLossError, match="cut.tfrecord"):
        list(tf.data.TFRecordDataset(f"{store}/cut.tfrecord").as_numpy_iterator())


def test_parquet_dataset_reads_urls(store):
    for i in range(2):
        table = pa.table({"x": np.arange(3, dtype=np.float32) + 10 * i, "label": np.arange(3) % 2})
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        put(f"{store}/part-{i}.parquet", buffer.getvalue())
    ds = tf.data.experimental.make_parquet_dataset(f"{store}/*.parquet", batch_size=10,
                                                   label_name="label", num_epochs=1, shuffle=False)
    features, labels = next(iter(ds))
    np.testing.assert_allclose(np.asarray(features["x"]), [0, 1, 2, 10, 11, 12])
    assert np.asarray(labels).tolist() == [0, 1, 0, 0, 1, 0]


def test_list_files_matches_urls_and_names_a_pattern_matching_nothing(store):
    for name in ("b.csv", "a.csv", "notes.txt", "sub/c.csv"):
        put(f"{store}/{name}", b"x\n1\n")
    names = list(tf.data.Dataset.list_files(f"{store}/*.csv", shuffle=False).as_numpy_iterator())
    names = [n.decode() if isinstance(n, bytes) else n for n in names]
    assert names == [f"{store}/a.csv", f"{store}/b.csv"]
    shuffled = tf.data.Dataset.list_files([f"{store}/*.csv", f"{store}/sub/*.csv"], seed=3)
    assert len(list(shuffled.as_numpy_iterator())) == 3
    with pytest.raises(FileNotFoundError, match=r"nothing-\*\.csv"):
        tf.data.Dataset.list_files(f"{store}/nothing-*.csv")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        tf.data.TextLineDataset(f"{store}/missing.txt")
    with pytest.raises(IsADirectoryError, match="names a directory"):
        tf.data.TextLineDataset(f"{store}/sub")


def test_an_estimator_input_fn_reads_csv_urls(store, tmp_path):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 2)).astype(np.float32)
    lines = "x0,x1,y\n" + "".join(f"{a},{b},{a - b}\n" for a, b in x)
    put(f"{store}/train.csv", lines.encode())

    def input_fn():
        return tf.data.experimental.make_csv_dataset(f"{store}/train.csv", batch_size=8, label_name="y",
                                                     num_epochs=None, shuffle_seed=0)

    columns = [tf.feature_column.numeric_column("x0"), tf.feature_column.numeric_column("x1")]
    est = tf.estimator.LinearRegressor(columns, model_dir=f"{store}/model")
    est.train(input_fn, steps=5)
    assert est.latest_checkpoint() == f"{store}/model/model.ckpt-5"
