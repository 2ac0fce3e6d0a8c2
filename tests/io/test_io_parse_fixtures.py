"""parse_example on bytes written by TensorFlow 2.15 equals TensorFlow's own parse
(fixtures from tools/make_tf_example_fixtures.py), on both parsing paths."""

from __future__ import annotations

import base64
import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.io import _parse_example
from torchestimator.io._specs import check_specs
from torchestimator.io._wire_batch import parse_same_shaped

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "parsed.json")) as _f:
    EXPECTED = json.load(_f)


def _records(name: str) -> list[bytes]:
    return list(tf.io.tf_record_iterator(os.path.join(FIXTURES, name)))


def spec_from_json(d: dict):
    dtype = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}[d["dtype"]]
    default = d.get("default_value")
    if d["kind"] == "VarLenFeature":
        return tf.io.VarLenFeature(dtype)
    if d["kind"] == "FixedLenSequenceFeature":
        return tf.io.FixedLenSequenceFeature(d["shape"], dtype, d["allow_missing"], default)
    return tf.io.FixedLenFeature(d["shape"], dtype, default)


def as_json(value):
    """Our output in the fixture's JSON form."""
    if isinstance(value, tf.SparseTensor):
        return {"indices": value.indices.tolist(), "values": as_json(value.values),
                "dense_shape": value.dense_shape.tolist()}
    if isinstance(value, (bytes, np.ndarray)) and (isinstance(value, bytes) or value.dtype == object):
        arr = np.array(value, dtype=object) if isinstance(value, bytes) else value
        assert all(isinstance(b, bytes) for b in arr.reshape(-1))
        return {"bytes": [base64.b64encode(b).decode() for b in arr.reshape(-1)],
                "shape": list(arr.shape)}
    assert isinstance(value, torch.Tensor), type(value)
    arr = value.numpy()
    return {"dtype": str(arr.dtype), "shape": list(arr.shape), "values": arr.reshape(-1).tolist()}


@pytest.mark.parametrize("set_name,file", [("mixed", "examples.tfrecord"),
                                           ("uniform", "uniform.tfrecord")])
def test_batch_parse_equals_tensorflow(set_name, file):
    expected = EXPECTED[set_name]
    spec = {k: spec_from_json(v) for k, v in expected["spec"].items()}
    records = _records(file)
    parsed = tf.io.parse_example(records, spec)
    assert set(parsed) == set(expected["batch"])
    for key, want in expected["batch"].items():
        assert as_json(parsed[key]) == want, key
    single = tf.io.parse_single_example(records[0], spec)
    for key, want in expected["first_single"].items():
        assert as_json(single[key]) == want, key


def test_uniform_batch_takes_the_vectorized_path_and_agrees_with_protobuf():
    expected = EXPECTED["uniform"]
    spec = {k: spec_from_json(v) for k, v in expected["spec"].items()}
    records = _records("uniform.tfrecord")
    fast = parse_same_shaped(records, check_specs(spec))
    assert fast is not None  # same-shaped Examples: no protobuf per example
    slow = _parse_example.parse_with_protobuf(records, check_specs(spec), None)
    for key in spec:
        np.testing.assert_array_equal(fast[key].values, slow[key].values)
        np.testing.assert_array_equal(fast[key].counts, slow[key].counts)


def test_mixed_batch_subsets_agree_with_tensorflow():
    """Each Example of the mixed set parsed alone equals its row of the whole batch."""
    expected = EXPECTED["mixed"]
    spec = {k: spec_from_json(v) for k, v in expected["spec"].items()}
    records = _records("examples.tfrecord")
    full = tf.io.parse_example(records, spec)
    for i, record in enumerate(records):
        one = tf.io.parse_example([record], spec)
        for key, value in one.items():
            whole = full[key]
            if isinstance(value, tf.SparseTensor):
                rows = whole.indices[:, 0] == i
                assert value.indices[:, 1].tolist() == whole.indices[rows, 1].tolist()
                assert as_json(value.values) == as_json(whole.values[rows.numpy()]
                                                         if isinstance(whole.values, np.ndarray)
                                                         else whole.values[rows])
            elif isinstance(value, torch.Tensor) and key == "steps":
                k = value.shape[1]
                assert torch.equal(value[0], whole[i, :k]), (key, i)
            else:
                assert as_json(value[0:1].reshape(value.shape[1:]) if isinstance(
                    value, torch.Tensor) else value[0]) == as_json(whole[i]), (key, i)


@pytest.mark.parametrize("file", ["examples.tfrecord", "examples.tfrecord.gz",
                                  "examples.tfrecord.zz"])
def test_tfrecord_dataset_reads_tensorflow_files(file):
    compression = {"gz": "GZIP", "zz": "ZLIB"}.get(file.rsplit(".", 1)[-1])
    got = [bytes(r) for r in tf.data.TFRecordDataset(os.path.join(FIXTURES, file),
                                                     compression_type=compression)]
    assert got == _records("examples.tfrecord")
    assert len(got) == 20


def test_dataset_batch_then_parse_example():
    expected = EXPECTED["mixed"]
    spec = {k: spec_from_json(v) for k, v in expected["spec"].items()}
    ds = tf.data.TFRecordDataset(os.path.join(FIXTURES, "examples.tfrecord")).batch(20)
    batch = next(iter(ds))
    parsed = tf.io.parse_example(batch, spec)
    assert as_json(parsed["vec"]) == expected["batch"]["vec"]
    assert as_json(parsed["tags"]) == expected["batch"]["tags"]


def test_sequence_example_messages_read_tensorflow_bytes():
    records = _records("sequence.tfrecord")
    seq = tf.train.SequenceExample.FromString(records[2])
    assert seq.context.feature["user"].bytes_list.value == [b"u2"]
    clicks = seq.feature_lists.feature_list["clicks"].feature
    assert [f.int64_list.value[0] for f in clicks] == [2, 12, 22]
    assert tf.train.SequenceExample.FromString(seq.SerializeToString()) == seq


def _sequence_specs():
    seq = EXPECTED["sequence"]
    return ({k: spec_from_json(v) for k, v in seq["context_spec"].items()},
            {k: spec_from_json(v) for k, v in seq["sequence_spec"].items()})


def test_parse_single_sequence_example_equals_tensorflow():
    context_spec, sequence_spec = _sequence_specs()
    for record, want in zip(_records("sequence.tfrecord"), EXPECTED["sequence"]["single"]):
        context, sequences = tf.io.parse_single_sequence_example(record, context_spec,
                                                                 sequence_spec)
        assert {k: as_json(v) for k, v in context.items()} == want["context"]
        assert {k: as_json(v) for k, v in sequences.items()} == want["sequence"]


def test_parse_sequence_example_batch_equals_tensorflow():
    context_spec, sequence_spec = _sequence_specs()
    want = EXPECTED["sequence"]["batch"]
    context, sequences, lengths = tf.io.parse_sequence_example(
        _records("sequence.tfrecord"), context_spec, sequence_spec)
    assert {k: as_json(v) for k, v in context.items()} == want["context"]
    assert {k: as_json(v) for k, v in sequences.items()} == want["sequence"]
    assert {k: as_json(v) for k, v in lengths.items()} == want["lengths"]


def test_sequence_example_errors():
    _, sequence_spec = _sequence_specs()
    record = _records("sequence.tfrecord")[0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature list 'missing' is required"):
        tf.io.parse_single_sequence_example(
            record, sequence_features={"missing": tf.io.FixedLenSequenceFeature([], tf.int64)})
    with pytest.raises(ValueError, match=r"Key: emb, Index: 0.*values size: 2.*\[3\]"):
        tf.io.parse_single_sequence_example(
            record, sequence_features={"emb": tf.io.FixedLenSequenceFeature([3], tf.float32)})
    with pytest.raises(ValueError, match="Expected type: int64.*float_list"):
        tf.io.parse_single_sequence_example(
            record, sequence_features={"emb": tf.io.FixedLenSequenceFeature([2], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a serialized "
                                                             "tf.train.SequenceExample"):
        tf.io.parse_sequence_example([b"\xff\xff"], sequence_features=sequence_spec)


def test_descriptors_serialize_as_tensorflows():
    """Byte-identical descriptors: TensorFlow and torchestimator can share a process in
    either import order (the pool accepts an identical file twice)."""
    from torchestimator.io import _example_proto

    assert _example_proto._feature_file().SerializeToString() == base64.b64decode(
        EXPECTED["descriptors"]["feature"])
    assert _example_proto._example_file().SerializeToString() == base64.b64decode(
        EXPECTED["descriptors"]["example"])


@pytest.mark.parametrize("reader", ["walk", "protobuf", "same_shaped"])
@pytest.mark.parametrize("set_name,file", [("mixed", "examples.tfrecord"),
                                           ("uniform", "uniform.tfrecord")])
def test_each_reader_equals_tensorflow(reader, set_name, file):
    """Each of the three readers, called directly, gives TensorFlow's parse of the fixture
    (parse_example picks one by batch size and shape)."""
    from torchestimator.io._columns import assemble
    from torchestimator.io._wire_walk import parse_walk

    expected = EXPECTED[set_name]
    spec = {k: spec_from_json(v) for k, v in expected["spec"].items()}
    records = _records(file)
    specs = check_specs(spec)
    columns = {"walk": lambda: parse_walk(records, specs),
               "protobuf": lambda: _parse_example.parse_with_protobuf(records, specs, None),
               "same_shaped": lambda: parse_same_shaped(records, specs)}[reader]()
    if reader == "same_shaped" and set_name == "mixed":
        assert columns is None  # Examples of different shapes: declined
        return
    assert columns is not None
    for s in specs:
        assert as_json(assemble(s, columns[s.key], len(records), None)) == \
            expected["batch"][s.key], s.key


def test_large_mixed_batch_takes_the_walk_and_matches_protobuf(monkeypatch):
    from torchestimator.io import _wire_walk

    expected = EXPECTED["mixed"]
    spec = {k: spec_from_json(v) for k, v in expected["spec"].items()}
    records = _records("examples.tfrecord") * 3  # 60 Examples of different shapes
    calls = []
    real = _wire_walk.parse_walk
    monkeypatch.setattr(_parse_example, "parse_walk", lambda *a: calls.append(1) or real(*a))
    ours = tf.io.parse_example(records, spec)
    assert calls  # the walk ran (and did not decline: protobuf would give the same anyway)
    assert real(records, check_specs(spec)) is not None
    for key, want in expected["batch"].items():
        got = as_json(ours[key])
        if "indices" in want:
            assert got["dense_shape"] == [60, want["dense_shape"][1]], key
        else:
            assert got["shape"] == [60, *want["shape"][1:]], key
            n = len(want["values" if "values" in want else "bytes"])
            field = "values" if "values" in want else "bytes"
            assert got[field][:n] == want[field] and got[field][n:2 * n] == want[field], key
