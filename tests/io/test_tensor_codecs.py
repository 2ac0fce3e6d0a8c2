"""`tf.io.serialize_tensor` / `parse_tensor`, `decode_raw`, `encode_base64` / `decode_base64`:
the bytes and values TF 2.15 gives (recorded by hand with tensorflow-cpu 2.15.1)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf

TF_SERIALIZED = [
    (lambda: tf.constant([1, 2], tf.int32), b'\x08\x03\x12\x04\x12\x02\x08\x02"\x08\x01\x00\x00\x00\x02\x00\x00\x00'),
    (lambda: tf.constant([[1.5, 2.0]]), b'\x08\x01\x12\x08\x12\x02\x08\x01\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00\x00@'),
    (lambda: tf.constant(3.0), b'\x08\x01\x12\x00"\x04\x00\x00@@'),
    (lambda: tf.constant(["ab", "c"]), b"\x08\x07\x12\x04\x12\x02\x08\x02B\x02abB\x01c"),
    (lambda: tf.constant(True), b'\x08\n\x12\x00"\x01\x01'),
    (lambda: tf.constant([1, 2], tf.int64),
     b'\x08\t\x12\x04\x12\x02\x08\x02"\x10\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00'),
    (lambda: tf.constant([1.0, 2.0], tf.float16), b'\x08\x13\x12\x04\x12\x02\x08\x02"\x04\x00<\x00@'),
    (lambda: tf.constant([], tf.float32), b"\x08\x01\x12\x02\x12\x00"),
]


@pytest.mark.parametrize("make, expected", TF_SERIALIZED)
def test_serialize_tensor_writes_tfs_bytes_and_parses_back(make, expected):
    value = make()
    assert tf.io.serialize_tensor(value) == expected
    dtype = value.dtype if isinstance(value, torch.Tensor) else tf.string
    back = tf.io.parse_tensor(expected, dtype)
    if isinstance(value, torch.Tensor):
        assert back.dtype == value.dtype and torch.equal(back, value)
    else:
        assert list(back) == list(value)


def test_parse_tensor_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Type mismatch between parsed tensor \(int32\) and dtype \(float32\)"):
        tf.io.parse_tensor(TF_SERIALIZED[0][1], tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not fit shape"):
        tf.io.parse_tensor(b'\x08\x03\x12\x04\x12\x02\x08\x09"\x08\x01\x00\x00\x00\x02\x00\x00\x00', tf.int32)


def test_decode_raw_as_tf():
    assert tf.io.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"], tf.int16).tolist() == [[1, 2], [3, 4]]
    assert tf.io.decode_raw(b"\x00\x01", tf.int16, little_endian=False).tolist() == [1]
    assert tf.io.decode_raw([b"\x01\x00", b"\x03\x00\x04\x00"], tf.int16, fixed_length=4).tolist() == [[1, 0], [3, 4]]
    assert tf.io.decode_raw(["ab"], tf.uint8).tolist() == [[97, 98]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="DecodeRaw requires input strings to all be the same size"):
        tf.io.decode_raw([b"\x01\x00", b"\x03\x00\x04\x00"], tf.int16)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="has length 1 that is not a multiple of 2, the size of int16"):
        tf.io.decode_raw([b"\x01"], tf.int16)


def test_web_safe_base64_as_tf():
    assert list(tf.io.encode_base64(["hello?>", "a"])) == [b"aGVsbG8_Pg", b"YQ"]
    assert list(tf.io.encode_base64(["hello?>"], pad=True)) == [b"aGVsbG8_Pg=="]
    assert list(tf.io.decode_base64(["aGVsbG8_Pg", "aGVsbG8_Pg=="])) == [b"hello?>", b"hello?>"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="element 0"):
        tf.io.decode_base64(["a$b"])
