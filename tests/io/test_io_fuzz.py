"""Property-based fuzzing (hypothesis) of parse_example and the TFRecord reader: random and
mutated bytes parse or raise a clear error, never crash, hang or raise another type; the
vectorized path and the protobuf path agree whenever both accept a batch.

The default run is bounded (TORCHESTIMATOR_FUZZ_EXAMPLES, 25 per property), as in
tests/reliability/test_fuzz_readers.py.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torchestimator as tf
from torchestimator.io._from_values import _example_from_values
from torchestimator.io._proto_parse import parse_with_protobuf
from torchestimator.io._specs import check_specs
from torchestimator.io._wire_batch import parse_same_shaped
from torchestimator.io._wire_walk import parse_walk

EXAMPLES = int(os.environ.get("TORCHESTIMATOR_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])

SPEC = {
    "f": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
    "i": tf.io.VarLenFeature(tf.int64),
    "s": tf.io.FixedLenFeature([], tf.string, default_value=""),
    "v": tf.io.VarLenFeature(tf.string),
    "q": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
}
VAR_SPEC = {"f": tf.io.VarLenFeature(tf.float32), "i": tf.io.VarLenFeature(tf.int64),
            "s": tf.io.VarLenFeature(tf.string), "v": tf.io.VarLenFeature(tf.string),
            "q": tf.io.VarLenFeature(tf.int64)}


def _base(i: int) -> bytes:
    """Example i, its features in a fixed order (a map's order varies between processes)."""
    values = {"f": [float(i), 2.5], "i": [i, -i, 2**40], "s": "ab", "v": ["x" * (i % 3), "yz"],
              "q": [1, 300], "other": [1.0]}
    features = b"".join(_example_from_values({k: v}).features.SerializeToString()
                        for k, v in values.items())
    return b"\n" + bytes([len(features)]) + features


def _parse_or_clear_error(batch, spec):
    try:
        return tf.io.parse_example(batch, spec)
    except ValueError as e:  # InvalidArgumentError is a ValueError
        assert str(e), "an error must say what is wrong"
        return None


_MUTATION = st.tuples(st.sampled_from(["flip", "truncate", "insert", "zero"]),
                      st.floats(0.0, 0.999), st.integers(1, 255))


def _mutate(data: bytes, mutation) -> bytes:
    how, where, amount = mutation
    at = int(where * len(data))
    b = bytearray(data)
    if how == "flip":
        b[at] ^= amount
    elif how == "truncate":
        b = b[:at]
    elif how == "insert":
        b[at:at] = bytes([amount])
    else:
        b[at:at + amount % 8 + 1] = bytes(len(b[at:at + amount % 8 + 1]))
    return bytes(b)


@FUZZ
@given(st.lists(st.binary(max_size=60), min_size=1, max_size=4))
def test_parse_example_on_random_bytes(batch):
    _parse_or_clear_error(batch, SPEC)
    _parse_or_clear_error(batch, VAR_SPEC)


@FUZZ
@given(_MUTATION, st.integers(1, 5))
def test_parse_example_on_mutated_examples(mutation, n):
    """A same-shaped batch with one byte changed in every Example: both paths agree."""
    batch = [_mutate(_base(7), mutation)] * n
    ours = _parse_or_clear_error(batch, SPEC)
    for spec in (SPEC, VAR_SPEC):
        specs = check_specs(spec)
        fast = parse_same_shaped(batch, specs)
        try:
            slow = parse_with_protobuf(batch, specs, None)
        except ValueError:
            slow = None
        if fast is not None and slow is not None:
            for s in specs:
                np.testing.assert_array_equal(fast[s.key].values, slow[s.key].values)
                np.testing.assert_array_equal(fast[s.key].counts, slow[s.key].counts)
    del ours


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 9), _MUTATION), min_size=1, max_size=6))
def test_same_length_batches_agree_between_paths(rows):
    """Rows of equal length that differ anywhere: the vectorized path either declines or
    gives what protobuf gives."""
    batch = [_mutate(_base(i), ("flip", m[1], m[2])) for i, m in rows]
    specs = check_specs(VAR_SPEC)
    fast = parse_same_shaped(batch, specs)
    try:
        slow = parse_with_protobuf(batch, specs, None)
    except ValueError:
        return
    if fast is not None:
        for s in specs:
            np.testing.assert_array_equal(fast[s.key].values, slow[s.key].values)
            np.testing.assert_array_equal(fast[s.key].counts, slow[s.key].counts)


@FUZZ
@given(_MUTATION)
def test_tfrecord_reader_on_mutated_files(mutation):
    records = [_base(i) for i in range(5)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for r in records:
                w.write(r)
        data = open(path, "rb").read()
        open(path, "wb").write(_mutate(data, mutation))
        try:
            got = list(tf.io.tf_record_iterator(path))
        except tf.errors.DataLossError as e:
            assert "f.tfrecord" in str(e) and "offset" in str(e)
            return
        # accepted: the same records, or a prefix of them (the file cut at a record boundary)
        assert got == records[:len(got)]
        assert len(got) == len(records) or mutation[0] == "truncate"


def _lenient_example_class():
    """Example with its map read as `repeated Entry {bytes key = 1; bytes value = 2;}`: the
    same wire format, without what upb checks and TensorFlow's C++ parser does not (keys
    being UTF-8, the Features of keys that no spec asks for)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="fuzz_lenient.proto", package="fuzzref",
                                            syntax="proto3")
    entry = fd.message_type.add(name="Entry")
    entry.field.add(name="key", number=1, type=F.TYPE_BYTES)
    entry.field.add(name="value", number=2, type=F.TYPE_BYTES)
    fd.message_type.add(name="Features").field.add(
        name="feature", number=1, type=F.TYPE_MESSAGE, type_name=".fuzzref.Entry",
        label=F.LABEL_REPEATED)
    fd.message_type.add(name="Example").field.add(
        name="features", number=1, type=F.TYPE_MESSAGE, type_name=".fuzzref.Features")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("fuzzref.Example"))


_LENIENT = _lenient_example_class()


def _check_leniently(serialized: bytes, keys) -> None:
    """Raises DecodeError unless `serialized` is an Example to TensorFlow's parser: a valid
    map of entries whose requested Features are valid."""
    for entry in _LENIENT.FromString(serialized).features.feature:
        if entry.key.decode("utf-8", "replace") in keys:
            tf.train.Feature.FromString(entry.value)


def _agree(batch, spec):
    """The two vectorized readers give protobuf's result whenever they accept the batch."""
    specs = check_specs(spec)
    try:
        slow = parse_with_protobuf(batch, specs, None)
    except ValueError:
        slow = None
    for fast in (parse_same_shaped(batch, specs), parse_walk(batch, specs)):
        if fast is None:
            continue
        if slow is None:  # only keys that are not UTF-8 may make upb alone refuse a batch
            for b in batch:
                _check_leniently(b, spec)
            continue
        for s in specs:
            np.testing.assert_array_equal(fast[s.key].values, slow[s.key].values)
            np.testing.assert_array_equal(fast[s.key].counts, slow[s.key].counts)
            a, b = fast[s.key].missing, slow[s.key].missing
            assert (a is None and b is None) or np.array_equal(a, b), s.key


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 9), st.booleans(), _MUTATION), min_size=1,
                max_size=8))
def test_walk_agrees_with_protobuf_on_mutated_mixed_batches(rows):
    batch = [_mutate(_base(i), m) if hit else _base(i) for i, hit, m in rows]
    _agree(batch, VAR_SPEC)
    _agree(batch, SPEC)
