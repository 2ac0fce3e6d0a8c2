"""`make_batched_features_dataset` / `parse_example_dataset` with RaggedFeature,
SparseFeature and VarLenFeature: batches hold tf.RaggedTensor / tf.SparseTensor, as TF 2.15
gives them (tests/fixtures/tf_sparse_flow.json, tools/make_tf_sparse_flow_fixtures.py)."""

import base64
import json
import os

import numpy as np

import torchestimator as tf

FX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                                 "tf_sparse_flow.json")))["features"]


def enc(x):
    if isinstance(x, tf.SparseTensor):
        return {"indices": x.indices.tolist(), "values": _text(np.asarray(x.values).tolist()),
                "dense_shape": x.dense_shape.tolist()}
    if isinstance(x, tf.RaggedTensor):
        return {"ragged": x.to_list()}
    if isinstance(x, dict):
        return {k: enc(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    return {"value": np.asarray(x).tolist()}


def _text(v):
    if isinstance(v, list):
        return [_text(a) for a in v]
    return v.decode() if isinstance(v, bytes) else v


def features():
    return {
        "r": tf.io.RaggedFeature(tf.int64),
        "sp": tf.io.SparseFeature("idx", "val", tf.float32, 5),
        "w": tf.io.VarLenFeature(tf.string),
        "y": tf.io.FixedLenFeature([1], tf.int64),
    }


def write_records(tmp_path):
    path = str(tmp_path / "f.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for r in FX["records"]:
            w.write(base64.b64decode(r))
    return path


def test_batches_match_tf(tmp_path):
    path = write_records(tmp_path)
    ds = tf.data.experimental.make_batched_features_dataset(
        path, 2, features(), label_key="y", num_epochs=1, shuffle=False)
    batches = list(ds)
    assert [enc(list(b)) for b in batches] == FX["batches"]
    feats, label = batches[0]
    assert isinstance(feats["r"], tf.RaggedTensor)
    assert isinstance(feats["sp"], tf.SparseTensor) and isinstance(feats["w"], tf.SparseTensor)
    assert label.shape == (2, 1)


def test_element_spec_kinds(tmp_path):
    path = write_records(tmp_path)
    ds = tf.data.experimental.make_batched_features_dataset(
        path, 2, features(), label_key="y", num_epochs=1, shuffle=False)
    spec = ds.element_spec[0]
    assert repr(spec["r"]) == FX["spec"]["r"]
    assert repr(spec["sp"]) == FX["spec"]["sp"]
    assert isinstance(spec["w"], tf.SparseTensorSpec) and spec["w"].dtype == tf.string
    assert spec["w"].shape[0] is None  # TF: [None, None]; the width here is the first batch's


def test_parse_example_dataset_and_repeat(tmp_path):
    path = write_records(tmp_path)
    parsed = tf.data.TFRecordDataset(path).batch(3).apply(
        tf.data.experimental.parse_example_dataset(features()))
    batch = next(iter(parsed))
    assert batch["r"].to_list() == [[1, 2, 3], [4], [5, 6]]
    assert tf.sparse.to_dense(batch["sp"]).tolist() == [
        [1.5, 0, 0, 2.5, 0], [0, 0, 7.0, 0, 0], [0, 3.0, 0, 0, 4.0]]
    forever = tf.data.experimental.make_batched_features_dataset(path, 2, features(),
                                                                 shuffle_seed=1)
    sizes = [int(b["sp"].dense_shape[0]) for b in forever.take(4)]
    assert sizes == [2, 2, 2, 2]  # repeating: full batches only
