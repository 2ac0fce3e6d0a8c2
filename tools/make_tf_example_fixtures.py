"""Writes the tf.train.Example / TFRecord fixtures of tests/io with TensorFlow 2.15.

    ~/anchor-venvs/tf215/bin/python tools/make_tf_example_fixtures.py
    ~/anchor-venvs/tf215/bin/python tools/make_tf_example_fixtures.py --check FILE.tfrecord

The first form writes, under tests/io/fixtures/:
  examples.tfrecord     20 Examples: floats, int64s, strings, multi-valued and missing features
  examples.tfrecord.gz  the same records, GZIP-compressed by TensorFlow's writer
  examples.tfrecord.zz  the same records, ZLIB-compressed
  uniform.tfrecord      20 same-shaped Examples (the serving fast path)
  sequence.tfrecord     3 SequenceExamples
  parsed.json           TensorFlow's parse_example / parse_(single_)sequence_example results
                        for the specs below (bytes as base64), and TensorFlow's serialized
                        descriptors of feature.proto and example.proto

`--check FILE` reads a TFRecord file written by torchestimator with TensorFlow,
parses it with the same specs and compares with the expected JSON written
beside it (FILE.json), printing OK or the differences: the check that our
bytes parse in TensorFlow (tests do not import TensorFlow).
"""

from __future__ import annotations

import base64
import json
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "io", "fixtures")

SPECS = {
    "mixed": {
        "age": tf.io.FixedLenFeature([], tf.float32, default_value=-1.0),
        "vec": tf.io.FixedLenFeature([3], tf.float32),
        "count": tf.io.FixedLenFeature([], tf.int64, default_value=0),
        "ids": tf.io.VarLenFeature(tf.int64),
        "tags": tf.io.VarLenFeature(tf.string),
        "name": tf.io.FixedLenFeature([], tf.string, default_value="none"),
        "weights": tf.io.VarLenFeature(tf.float32),
        "steps": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                               default_value=-9.0),
        "mat": tf.io.FixedLenFeature([2, 2], tf.int64, default_value=[1, 2, 3, 4]),
    },
    "uniform": {
        "x": tf.io.FixedLenFeature([4], tf.float32),
        "n": tf.io.FixedLenFeature([], tf.int64),
        "code": tf.io.FixedLenFeature([], tf.string),
        "pair": tf.io.VarLenFeature(tf.int64),
    },
}
SEQ_CONTEXT = {"user": tf.io.FixedLenFeature([], tf.string),
               "score": tf.io.FixedLenFeature([], tf.float32, default_value=0.5)}
SEQ_FEATURES = {"clicks": tf.io.FixedLenSequenceFeature([], tf.int64),
                "emb": tf.io.FixedLenSequenceFeature([2], tf.float32),
                "words": tf.io.VarLenFeature(tf.string)}


def _f(values):
    values = list(values)
    if values and isinstance(values[0], (bytes, str)):
        return tf.train.Feature(bytes_list=tf.train.BytesList(
            value=[v.encode() if isinstance(v, str) else v for v in values]))
    if values and isinstance(values[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def mixed_examples() -> list[bytes]:
    rng = np.random.default_rng(14)
    out = []
    for i in range(20):
        feats = {"vec": _f(rng.normal(size=3).astype(np.float32).tolist())}
        if i % 3:
            feats["age"] = _f([float(np.float32(20 + i * 1.5))])
        if i % 4:
            feats["count"] = _f([i * 1000 - 5000])
        if i % 5:
            feats["ids"] = _f([int(v) for v in rng.integers(-2**40, 2**40, size=i % 4 + 1)]
                              + [-1, 0, 127, 128, 2**63 - 1][: i % 6])
        if i % 2:
            feats["tags"] = _f([f"t{j}-{'é' * j}" for j in range(i % 5 + 1)])
        elif i % 4 == 0:
            feats["tags"] = tf.train.Feature(bytes_list=tf.train.BytesList())  # empty list
        if i % 7:
            feats["name"] = _f([b"name-\x00\xff" + bytes([i])])
        if i % 3 == 1:
            feats["weights"] = _f([float(v) for v in rng.random(i % 4)] or [0.0])
        if i % 4 != 3:
            feats["steps"] = _f([float(v) for v in range(2 * (i % 3))]) if i % 3 else \
                tf.train.Feature()  # an empty Feature counts as missing
        if i % 6:
            feats["mat"] = _f([i, -i, i * i, 7])
        feats["unused"] = _f([b"ignored"])
        out.append(tf.train.Example(features=tf.train.Features(feature=feats))
                   .SerializeToString())
    return out


def uniform_examples() -> list[bytes]:
    rng = np.random.default_rng(15)
    out = []
    for i in range(20):
        feats = {"x": _f(rng.normal(size=4).astype(np.float32).tolist()),
                 "n": _f([int(rng.integers(0, 100))]),
                 "code": _f([["US", "DE", "FR", "JP"][i % 4]]),
                 "pair": _f([int(v) for v in rng.integers(0, 120, size=2)])}
        out.append(tf.train.Example(features=tf.train.Features(feature=feats))
                   .SerializeToString())
    return out


def sequence_examples() -> list[bytes]:
    out = []
    for i in range(3):
        ctx = {"user": _f([f"u{i}"])}
        if i != 1:
            ctx["score"] = _f([float(i) + 0.25])
        lists = {
            "clicks": tf.train.FeatureList(feature=[_f([j * 10 + i]) for j in range(i + 1)]),
            "emb": tf.train.FeatureList(feature=[_f([float(j), float(-j)]) for j in range(i + 2)]),
            "words": tf.train.FeatureList(feature=[_f([f"w{j}"] * (j + 1)) for j in range(i)]),
        }
        out.append(tf.train.SequenceExample(
            context=tf.train.Features(feature=ctx),
            feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString())
    return out


def _json(value):
    if isinstance(value, tf.sparse.SparseTensor):
        return {"indices": value.indices.numpy().tolist(), "values": _json(value.values),
                "dense_shape": value.dense_shape.numpy().tolist()}
    arr = value.numpy() if hasattr(value, "numpy") else value
    arr = np.array(arr, dtype=object) if isinstance(arr, bytes) else np.asarray(arr)
    if arr.dtype == object:
        return {"bytes": [base64.b64encode(b).decode() for b in arr.reshape(-1)],
                "shape": list(arr.shape)}
    return {"dtype": str(arr.dtype), "shape": list(arr.shape), "values": arr.reshape(-1).tolist()}


def _spec_json(spec):
    kind = type(spec).__name__
    d = {"kind": kind, "dtype": spec.dtype.name}
    if hasattr(spec, "shape"):
        d["shape"] = list(spec.shape)
    if getattr(spec, "default_value", None) is not None:
        d["default_value"] = np.asarray(spec.default_value).tolist()
    if kind == "FixedLenSequenceFeature":
        d["allow_missing"] = spec.allow_missing
    return d


def _write(name: str, records: list[bytes], options=None) -> None:
    with tf.io.TFRecordWriter(os.path.join(OUT, name), options) as w:
        for r in records:
            w.write(r)


def _parse_all(records_by_set):
    result = {}
    for set_name, records in records_by_set.items():
        spec = SPECS[set_name]
        result[set_name] = {
            "spec": {k: _spec_json(v) for k, v in spec.items()},
            "batch": {k: _json(v) for k, v in tf.io.parse_example(records, spec).items()},
            "first_single": {k: _json(v) for k, v in
                             tf.io.parse_single_example(records[0], spec).items()},
        }
    return result


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    mixed, uniform, seq = mixed_examples(), uniform_examples(), sequence_examples()
    _write("examples.tfrecord", mixed)
    _write("examples.tfrecord.gz", mixed, tf.io.TFRecordOptions(compression_type="GZIP"))
    _write("examples.tfrecord.zz", mixed, tf.io.TFRecordOptions(compression_type="ZLIB"))
    _write("uniform.tfrecord", uniform)
    _write("sequence.tfrecord", seq)
    parsed = _parse_all({"mixed": mixed, "uniform": uniform})
    parsed["sequence"] = {
        "context_spec": {k: _spec_json(v) for k, v in SEQ_CONTEXT.items()},
        "sequence_spec": {k: _spec_json(v) for k, v in SEQ_FEATURES.items()},
        "single": [],
    }
    for r in seq:
        ctx, lists = tf.io.parse_single_sequence_example(r, SEQ_CONTEXT, SEQ_FEATURES)
        parsed["sequence"]["single"].append(
            {"context": {k: _json(v) for k, v in ctx.items()},
             "sequence": {k: _json(v) for k, v in lists.items()}})
    ctx, lists, lengths = tf.io.parse_sequence_example(seq, SEQ_CONTEXT, SEQ_FEATURES)
    parsed["sequence"]["batch"] = {
        "context": {k: _json(v) for k, v in ctx.items()},
        "sequence": {k: _json(v) for k, v in lists.items()},
        "lengths": {k: _json(v) for k, v in lengths.items()}}
    # The same records read back through TensorFlow's TFRecordDataset (both compressions).
    for name in ("examples.tfrecord", "examples.tfrecord.gz", "examples.tfrecord.zz"):
        comp = {"gz": "GZIP", "zz": "ZLIB"}.get(name.rsplit(".", 1)[-1], "")
        back = [r.numpy() for r in tf.data.TFRecordDataset(os.path.join(OUT, name), comp)]
        assert back == mixed, name
    from tensorflow.core.example import example_pb2, feature_pb2

    # TensorFlow's own descriptors: ours must serialize to the same bytes (see the test)
    parsed["descriptors"] = {
        "feature": base64.b64encode(feature_pb2.DESCRIPTOR.serialized_pb).decode(),
        "example": base64.b64encode(example_pb2.DESCRIPTOR.serialized_pb).decode()}
    with open(os.path.join(OUT, "parsed.json"), "w") as f:
        json.dump(parsed, f, indent=1, sort_keys=True)
    print("wrote", sorted(os.listdir(OUT)))


def check(path: str) -> None:
    """Parses a TFRecord file written by torchestimator with TensorFlow; compares to FILE.json."""
    with open(path + ".json") as f:
        expected = json.load(f)
    comp = expected.get("compression_type", "")
    records = [r.numpy() for r in tf.data.TFRecordDataset(path, comp)]
    spec = SPECS[expected["spec_set"]]
    got = {k: _json(v) for k, v in tf.io.parse_example(records, spec).items()}
    problems = [k for k in expected["batch"] if expected["batch"][k] != got.get(k)]
    if len(records) != expected["num_records"]:
        problems.append(f"{len(records)} records, expected {expected['num_records']}")
    print("OK: TensorFlow parses", path, "as torchestimator did" if not problems else "",
          "" if not problems else f"DIFFERENCES in {problems}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    else:
        main()
