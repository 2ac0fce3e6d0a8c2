"""More of tf.io: JPEG shape and crops, compressed strings, file patterns, serialized
SparseTensors (bytes equal TF 2.15's) and JSON Examples."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
import pytest
import torch

import torchestimator as tf


def test_jpeg_helpers():
    image = tf.io.encode_jpeg(torch.zeros(5, 7, 3, dtype=torch.uint8))
    assert bool(tf.io.is_jpeg(image)) and not bool(tf.io.is_jpeg(b"\x89PNG"))
    assert tf.io.extract_jpeg_shape(image).tolist() == [5, 7, 3]
    assert tuple(tf.io.decode_and_crop_jpeg(image, [1, 2, 3, 4]).shape) == (3, 4, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="crop window"):
        tf.io.decode_and_crop_jpeg(image, [4, 0, 3, 3])


def test_decode_compressed():
    assert tf.io.decode_compressed(zlib.compress(b"hello"), "ZLIB") == b"hello"
    assert tf.io.decode_compressed([gzip.compress(b"a"), gzip.compress(b"bc")], "GZIP").tolist() == [b"a", b"bc"]
    with pytest.raises(ValueError, match="compression_type"):
        tf.io.decode_compressed(b"x", "BZ2")


def test_matching_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    found = tf.io.matching_files(str(tmp_path / "*.txt"))
    assert [f.decode().rsplit("/", 1)[-1] for f in found] == ["a.txt", "b.txt"]
    assert len(tf.io.match_filenames_once([str(tmp_path / "*.txt"), str(tmp_path / "*.csv")])) == 3


def test_serialized_sparse_tensors_are_tfs_bytes():
    sparse = tf.SparseTensor([[0, 1], [2, 0]], np.array([1.5, 2.5], np.float32), [3, 2])
    one = tf.io.serialize_sparse(sparse)
    assert [len(x) for x in one] == [46, 18, 26]  # TF 2.15
    assert one[2] == b'\x08\t\x12\x04\x12\x02\x08\x02"\x10\x03\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00'
    many = tf.io.serialize_many_sparse(sparse)
    assert many.shape == (3, 3)
    assert many[0].tolist() == [b'\x08\t\x12\x08\x12\x02\x08\x01\x12\x02\x08\x01"\x08\x01\x00\x00\x00\x00\x00\x00\x00',
                                b'\x08\x01\x12\x04\x12\x02\x08\x01"\x04\x00\x00\xc0?',
                                b'\x08\t\x12\x04\x12\x02\x08\x01"\x08\x02\x00\x00\x00\x00\x00\x00\x00']
    back = tf.io.deserialize_many_sparse(many, tf.float32)
    assert back.indices.tolist() == [[0, 1], [2, 0]] and back.values.tolist() == [1.5, 2.5]
    assert back.dense_shape.tolist() == [3, 2]


def test_decode_json_example_is_tfs_bytes():
    serialized = tf.io.decode_json_example('{"features": {"feature": {"x": {"floatList": {"value": [1.5]}}}}}')
    # TF 2.15's op writes the float unpacked (b"...\x12\x05\r\x00\x00\xc0?"); protobuf writes it
    # packed, as tf.train.Example.SerializeToString does: both parse to the same Example
    example = tf.train.Example.FromString(serialized)
    assert list(example.features.feature["x"].float_list.value) == [1.5]
    parsed = tf.io.parse_single_example(serialized, {"x": tf.io.FixedLenFeature([1], tf.float32)})
    assert parsed["x"].tolist() == [1.5]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a JSON Example"):
        tf.io.decode_json_example('{"features": 3}')
    assert np.asarray(tf.io.decode_json_example(['{}', '{}'])).shape == (2,)
