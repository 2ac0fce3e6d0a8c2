"""TFRecord files: writer and readers round trip, TensorFlow's framing, CRC checks
naming the file and offset, truncation, compression."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.io._tfrecord import masked_crc32c

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _write(path, records, options=None):
    with tf.io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)
    return str(path)


def _read(path, **kw):
    return [bytes(r) for r in tf.data.TFRecordDataset(path, **kw)]


RECORDS = [b"", b"a", b"\x00" * 3, os.urandom(1000), "ünï".encode()] + [
    bytes([i]) * i for i in range(1, 60)]


@pytest.mark.parametrize("options", [None, "", "GZIP", "ZLIB",
                                     tf.io.TFRecordOptions(compression_type="GZIP")])
def test_write_then_read_round_trip(tmp_path, options):
    path = _write(tmp_path / "r.tfrecord", RECORDS, options)
    comp = tf.io.TFRecordOptions.get_compression_type_string(options)
    assert _read(path, compression_type=comp) == RECORDS
    assert list(tf.io.tf_record_iterator(path, options)) == RECORDS


def test_framing_is_tensorflows(tmp_path):
    path = _write(tmp_path / "one.tfrecord", [b"hello"])
    data = open(path, "rb").read()
    assert data[:8] == struct.pack("<Q", 5) and data[12:17] == b"hello" and len(data) == 21
    # CRC32C("123456789") is 0xE3069283 (the check value of the Castagnoli CRC)
    import google_crc32c

    assert google_crc32c.value(b"123456789") == 0xE3069283
    assert struct.unpack("<I", data[8:12])[0] == masked_crc32c(data[:8])
    assert struct.unpack("<I", data[17:])[0] == masked_crc32c(b"hello")
    fixture = open(os.path.join(FIXTURES, "examples.tfrecord"), "rb").read()
    records = list(tf.io.tf_record_iterator(os.path.join(FIXTURES, "examples.tfrecord")))
    rewritten = _write(tmp_path / "again.tfrecord", records)
    assert open(rewritten, "rb").read() == fixture  # byte-identical to TensorFlow's file


def test_small_buffer_and_large_records(tmp_path):
    big = [os.urandom(300_000), b"x", os.urandom(70_000)]
    path = _write(tmp_path / "big.tfrecord", big * 3)
    assert _read(path, buffer_size=7) == big * 3
    assert _read(path) == big * 3


def test_many_records_and_parallel_reads(tmp_path):
    a = _write(tmp_path / "a.tfrecord", [b"a%d" % i for i in range(10_000)])
    b = _write(tmp_path / "b.tfrecord", [b"b%d" % i for i in range(5_000)])
    got = _read([a, b], num_parallel_reads=2)
    assert sorted(got) == sorted([b"a%d" % i for i in range(10_000)] +
                                 [b"b%d" % i for i in range(5_000)])
    assert _read(str(tmp_path / "*.tfrecord")) == [b"a%d" % i for i in range(10_000)] + [
        b"b%d" % i for i in range(5_000)]


def _corrupt(path, offset, xor=0x01):
    data = bytearray(open(path, "rb").read())
    data[offset] ^= xor
    open(path, "wb").write(bytes(data))


@pytest.mark.parametrize("where,what", [(0, "length's CRC"), (9, "length's CRC"),
                                        (12, "CRC of the 1-byte data"),
                                        (13, "CRC of the 1-byte data")])
def test_corrupt_record_names_file_and_offset(tmp_path, where, what):
    path = _write(tmp_path / "c.tfrecord", [b"first", b"z", b"third"])
    second = 8 + 4 + 5 + 4  # the second record starts here
    _corrupt(path, second + where)
    with pytest.raises(tf.errors.DataLossError) as info:
        _read(path)
    msg = str(info.value)
    assert "c.tfrecord" in msg and f"offset {second}" in msg and what in msg
    assert isinstance(info.value, OSError)


@pytest.mark.parametrize("cut", [1, 5, 11, 12, 20])
def test_truncated_file_names_file_and_offset(tmp_path, cut):
    path = _write(tmp_path / "t.tfrecord", [b"first", b"second-record"])
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) - cut])
    with pytest.raises(tf.errors.DataLossError, match=r"t\.tfrecord.*offset 21.*truncated|"
                                                      r"truncated.*t\.tfrecord"):
        _read(path)


def test_corrupt_gzip_stream_is_data_loss(tmp_path):
    path = _write(tmp_path / "g.tfrecord", RECORDS, "GZIP")
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises((tf.errors.DataLossError, OSError), match="g.tfrecord"):
        _read(path, compression_type="GZIP")


def test_writer_errors_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="compression_type"):
        tf.io.TFRecordWriter(str(tmp_path / "x"), "LZ4")
    w = tf.io.TFRecordWriter(str(tmp_path / "w.tfrecord"))
    with pytest.raises(TypeError, match="takes bytes"):
        w.write(12)
    w.write("text")
    w.flush()
    assert _read(str(tmp_path / "w.tfrecord")) == [b"text"]  # flushed, still open
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.write(b"x")
    with pytest.raises(tf.errors.NotFoundError):
        list(tf.io.tf_record_iterator(str(tmp_path / "missing.tfrecord")))
    with pytest.raises(FileNotFoundError, match="missing"):
        tf.data.TFRecordDataset(str(tmp_path / "missing.tfrecord"))
    with pytest.raises(ValueError, match="compression_type"):
        tf.data.TFRecordDataset(str(tmp_path / "w.tfrecord"), compression_type="BZ2")


def test_empty_file_is_an_empty_dataset(tmp_path):
    path = tmp_path / "e.tfrecord"
    path.write_bytes(b"")
    assert _read(str(path)) == []


def test_input_fn_pipeline_parses_batches(tmp_path):
    rows = [{"x": [float(i), float(-i)], "y": i % 3, "k": "abc"[i % 3]} for i in range(50)]
    from torchestimator.io._from_values import _example_from_values

    path = _write(tmp_path / "train.tfrecord",
                  [_example_from_values(r).SerializeToString() for r in rows])
    spec = {"x": tf.io.FixedLenFeature([2], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64),
            "k": tf.io.FixedLenFeature([], tf.string)}
    ds = tf.data.TFRecordDataset(path).batch(16).map(lambda s: tf.io.parse_example(s, spec))
    batches = list(ds)
    assert [b["x"].shape[0] for b in batches] == [16, 16, 16, 2]
    xs = np.concatenate([b["x"].numpy() for b in batches])
    np.testing.assert_array_equal(xs[:, 0], np.arange(50, dtype=np.float32))
    # the dataset's convention: string components are str
    assert [str(v) for v in batches[0]["k"][:3].tolist()] == ["a", "b", "c"]
