"""Records TF 2.15's RaggedTensor / tf.ragged / RaggedFeature results (issue 32) as JSON.

Run with a Python that has TensorFlow 2.15 (never a dependency of the project):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_ragged_fixtures.py

Writes tests/fixtures/tf_ragged.json: for each case the value TF returns
(`to_list()` of a RaggedTensor, a list for a dense tensor, indices/values/
dense_shape for a SparseTensor), its shape and dtype, error messages, and the
serialized `tf.train.Example`s parse_example was given (hex). Read by
tests/test_ragged_tensor.py, tests/ragged/test_ragged_ops.py,
tests/io/test_parse_ragged_sparse_features.py and tests/data/test_ragged_batch.py.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "tf_ragged.json")


def py(value):
    """A TF value as JSON: {"kind", "value", "shape", "dtype", ...}."""
    if isinstance(value, tf.RaggedTensor):
        return {"kind": "ragged", "value": _plain(value.to_list()), "shape": value.shape.as_list(),
                "dtype": value.dtype.name, "ragged_rank": value.ragged_rank,
                "nested_row_splits": [s.numpy().tolist() for s in value.nested_row_splits]}
    if isinstance(value, tf.SparseTensor):
        return {"kind": "sparse", "indices": value.indices.numpy().tolist(),
                "value": _plain(value.values.numpy().tolist()),
                "dense_shape": value.dense_shape.numpy().tolist(), "dtype": value.dtype.name}
    if isinstance(value, (tf.Tensor, tf.Variable)):
        return {"kind": "tensor", "value": _plain(value.numpy().tolist()),
                "shape": value.shape.as_list(), "dtype": value.dtype.name}
    if isinstance(value, (list, tuple)):
        return {"kind": "list", "items": [py(v) for v in value]}
    if isinstance(value, dict):
        return {"kind": "dict", "items": {k: py(v) for k, v in value.items()}}
    return {"kind": "python", "value": _plain(value)}


def _plain(v):
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, float) and v != v:
        return "nan"
    return v


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording TF's error
        return {"kind": "error", "type": type(e).__name__, "message": str(e)[:400]}
    return {"kind": "no error"}


R = tf.ragged.constant
rt = R([[1, 2], [3], [], [4, 5, 6]])
rt3 = R([[[1, 2], [3]], [], [[4, 5, 6]]])
rtf = R([[1.5, 2.0], [3.0], [], [4.0, 5.0, 6.0]])
S = {}

# ---- RaggedTensor factories
S["from_row_splits"] = tf.RaggedTensor.from_row_splits([1, 2, 3, 4, 5, 6], [0, 2, 3, 3, 6])
S["from_row_lengths"] = tf.RaggedTensor.from_row_lengths([1, 2, 3, 4, 5, 6], [2, 1, 0, 3])
S["from_value_rowids"] = tf.RaggedTensor.from_value_rowids([1, 2, 3, 4, 5, 6], [0, 0, 1, 3, 3, 3])
S["from_value_rowids_nrows"] = tf.RaggedTensor.from_value_rowids(
    [1, 2, 3, 4, 5, 6], [0, 0, 1, 3, 3, 3], nrows=6)
S["from_row_starts"] = tf.RaggedTensor.from_row_starts([1, 2, 3, 4, 5, 6], [0, 2, 3, 3])
S["from_row_limits"] = tf.RaggedTensor.from_row_limits([1, 2, 3, 4, 5, 6], [2, 3, 3, 6])
S["from_uniform_row_length"] = tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 2)
S["from_nested_row_splits"] = tf.RaggedTensor.from_nested_row_splits(
    [1, 2, 3, 4, 5, 6], [[0, 2, 2, 3], [0, 2, 3, 6]])
S["from_nested_row_lengths"] = tf.RaggedTensor.from_nested_row_lengths(
    [1, 2, 3, 4, 5, 6], [[2, 0, 1], [2, 1, 3]])
S["from_tensor"] = tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
S["from_tensor_lengths"] = tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]],
                                                       lengths=[2, 1, 3])
S["from_tensor_padding"] = tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]],
                                                       padding=0)
S["from_tensor_rank2"] = tf.RaggedTensor.from_tensor(
    [[[1, 0], [2, 3]], [[0, 0], [4, 0]]], padding=0, ragged_rank=2)
S["from_tensor_3d_rank1"] = tf.RaggedTensor.from_tensor([[[1, 0], [2, 3]], [[0, 0], [4, 0]]])
S["from_sparse"] = tf.RaggedTensor.from_sparse(
    tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], [1, 2, 3, 4, 5, 6], [4, 3]))

# ---- accessors
for name in ("row_lengths", "value_rowids", "nrows", "row_starts", "row_limits",
             "bounding_shape", "to_tensor", "to_sparse"):
    S[f"rt.{name}"] = getattr(rt, name)()
    S[f"rt3.{name}"] = getattr(rt3, name)()
S["rt3.row_lengths_axis2"] = rt3.row_lengths(axis=2)
S["rt.values"] = rt.values
S["rt3.flat_values"] = rt3.flat_values
S["rt3.values"] = rt3.values
S["rt.shape"] = {"kind": "python", "value": rt.shape.as_list()}
S["rt3.shape"] = {"kind": "python", "value": rt3.shape.as_list()}
S["rt.to_tensor_default"] = rt.to_tensor(default_value=-1)
S["rt.to_tensor_shape"] = rt.to_tensor(shape=[3, 2])
S["rt.to_tensor_shape_wide"] = rt.to_tensor(default_value=9, shape=[5, 4])
S["rt3.to_tensor"] = rt3.to_tensor()
S["rt.numpy"] = {"kind": "python", "value": [a.tolist() for a in rt.numpy()],
                  "type": type(rt.numpy()).__name__, "dtype": str(rt.numpy().dtype)}
S["rt.merge_dims_0_1"] = rt.merge_dims(0, 1)
S["rt3.merge_dims_1_2"] = rt3.merge_dims(1, 2)
S["rt3.merge_dims_0_1"] = rt3.merge_dims(0, 1)
S["rt.with_values"] = rt.with_values(rt.values * 10)
S["rt3.with_flat_values"] = rt3.with_flat_values(tf.cast(rt3.flat_values, tf.float32) / 2)
S["rt[1]"] = rt[1]
S["rt[-1]"] = rt[-1]
S["rt[1:3]"] = rt[1:3]
S["rt[::2]"] = rt[::2]
S["rt[:, 0]_error"] = error(lambda: rt[:, 0])
S["rt[3, 1]"] = rt[3, 1]
S["rt3[2]"] = rt3[2]
S["rt3[0, 0]"] = rt3[0, 0]
S["rt[:, 1:]"] = rt[:, 1:]
S["rt[:, :2]"] = rt[:, :2]
S["rtu[:, 1]_error"] = error(lambda: R([[1, 2], [3, 4]])[:, 1])
S["rt+1"] = rt + 1
S["rt*rt"] = rt * rt
S["rt-rt"] = rt - rt
S["rtf/2"] = rtf / 2
S["2*rt"] = 2 * rt
S["rtf+rtf"] = rtf + rtf
S["-rt"] = -rt
S["rt==rt_error"] = {"kind": "python", "value": None}
S["repr"] = {"kind": "python", "value": repr(rt)}
S["repr3"] = {"kind": "python", "value": repr(rt3)}
S["repr_str"] = {"kind": "python", "value": repr(R([["a", "b"], ["c"]]))}
S["str"] = {"kind": "python", "value": str(rt)}
S["bad_splits_error"] = error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1]))
S["bad_splits_start_error"] = error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 2, 3]))
S["bad_splits_end_error"] = error(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2]))
S["bad_lengths_error"] = error(lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, 2]))
S["bad_rowids_error"] = error(lambda: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 1]))
S["spec"] = {"kind": "python", "value": repr(tf.RaggedTensorSpec([None, None], tf.int32))}
S["spec_of_rt"] = {"kind": "python", "value": repr(tf.RaggedTensorSpec.from_value(rt))}
S["is_tensor"] = {"kind": "python", "value": tf.is_tensor(rt)}

# ---- tf.ragged
S["constant"] = R([[1, 2], [3]])
S["constant_float"] = R([[1.0, 2.5], [3.0]])
S["constant_str"] = R([["a", "bc"], [], ["d"]])
S["constant_dtype"] = R([[1, 2], [3]], dtype=tf.float64)
S["constant_rank3"] = R([[[1, 2], [3]], [[4]]])
S["constant_ragged_rank1"] = R([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
S["constant_inner_shape_error"] = error(lambda: R([[1, 2], [3, 4], [5, 6]], ragged_rank=1, inner_shape=(2,)))
S["constant_inner_shape_rr"] = R([[[1, 2], [3, 4]], [[5, 6]]], inner_shape=(2,))
S["constant_empty"] = R([[], []])
S["constant_error"] = error(lambda: R([[1, 2], [[3]]]))
S["range_limits"] = tf.ragged.range([3, 0, 2])
S["range"] = tf.ragged.range([0, 5, 8], [3, 3, 12])
S["range_deltas"] = tf.ragged.range([0, 5, 8], [3, 3, 12], 2)
S["range_neg"] = tf.ragged.range([5, 3], [0, 0], -2)
S["range_float"] = tf.ragged.range([0.0, 1.0], [1.0, 2.0], 0.5)
S["range_scalar"] = tf.ragged.range(0, [2, 3])
S["range_error"] = error(lambda: tf.ragged.range([0], [3], 0))
S["stack_0"] = tf.ragged.stack([rt, R([[7], [8, 9]])])
S["stack_1"] = tf.ragged.stack([rt, rt * 10], axis=1)
S["stack_dense"] = tf.ragged.stack([tf.constant([1, 2]), tf.constant([3, 4, 5])])
S["stack_mixed"] = tf.ragged.stack([tf.constant([[1, 2]]), R([[3]])])
S["boolean_mask_ragged"] = tf.ragged.boolean_mask(
    rt, R([[True, False], [True], [], [False, True, True]]))
S["boolean_mask_dense_2d"] = tf.ragged.boolean_mask(
    tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([[True, False, True], [False, False, True]]))
S["boolean_mask_rows"] = tf.ragged.boolean_mask(rt, tf.constant([True, False, True, True]))
S["boolean_mask_1d"] = tf.ragged.boolean_mask(tf.constant([1, 2, 3]),
                                              tf.constant([True, False, True]))
S["map_flat_values"] = tf.ragged.map_flat_values(tf.ones_like, rt)
S["map_flat_values_add"] = tf.ragged.map_flat_values(tf.add, rt, rt)
S["map_flat_values_kw"] = tf.ragged.map_flat_values(tf.cast, rtf, dtype=tf.int32)
cs = [R([["a"], ["b", "c"]]), R([["d", "e"], []])]
ci = [R([[1, 2], [3]]), tf.constant([["x"], ["y"]])]
S["cross_str"] = tf.ragged.cross(cs)
S["cross_int_dense"] = tf.ragged.cross(ci)
S["cross_three"] = tf.ragged.cross([R([["a", "b"], ["c"]]), R([[1, 2], [3]]),
                                    tf.constant([["z"], ["w"]])])
S["cross_hashed"] = tf.ragged.cross_hashed(cs)
S["cross_hashed_buckets"] = tf.ragged.cross_hashed(cs, num_buckets=10)
S["cross_hashed_key"] = tf.ragged.cross_hashed(ci, num_buckets=1000, hash_key=7)
S["cross_hashed_int"] = tf.ragged.cross_hashed([R([[1, 2], [3]]), R([[4], [5, 6]])])
S["cross_sparse"] = tf.ragged.cross([tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["p", "q", "r"],
                                                     [2, 2]), R([["a"], ["b"]])])
S["row_splits_to_segment_ids"] = tf.ragged.row_splits_to_segment_ids([0, 2, 3, 3, 6])
S["segment_ids_to_row_splits"] = tf.ragged.segment_ids_to_row_splits([0, 0, 1, 3, 3, 3])
S["segment_ids_to_row_splits_n"] = tf.ragged.segment_ids_to_row_splits([0, 0, 1], num_segments=5)
S["segment_ids_to_row_splits_i32"] = tf.ragged.segment_ids_to_row_splits(
    [0, 1], out_type=tf.int32)
S["row_splits_to_segment_ids_i32"] = tf.ragged.row_splits_to_segment_ids(
    [0, 2, 3], out_type=tf.int32)
S["stack_dynamic_partitions"] = tf.ragged.stack_dynamic_partitions(
    ["a", "b", "c", "d", "e"], [3, 0, 2, 2, 3], 5)
S["stack_dynamic_partitions_int"] = tf.ragged.stack_dynamic_partitions(
    tf.constant([[1, 2], [3, 4], [5, 6]]), [1, 0, 1], 3)

# ---- parse_example with RaggedFeature / SparseFeature
def ex(**feats):
    f = {}
    for k, v in feats.items():
        if k in ("val", "fl"):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif k == "s":
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        else:
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


examples = [
    ex(v=[1, 2, 3, 4], s=[b"a", b"b"], lens=[1, 3], splits=[0, 2, 4], rid=[0, 0, 1, 1],
       idx=[3, 0], idx2=[1, 0], val=[1.5, 2.5], fl=[0.5, 1.0, 2.0, 3.0]),
    ex(v=[5], s=[], lens=[0, 1], splits=[0, 0, 1], rid=[1],
       idx=[1], idx2=[2], val=[9.0], fl=[4.0, 5.0]),
    ex(v=[], s=[b"c"], lens=[], splits=[0], rid=[],
       idx=[], idx2=[], val=[], fl=[]),
]
RF = tf.io.RaggedFeature
P = RF
specs = {
    "v": RF(tf.int64),
    "s": RF(tf.string),
    "by_lengths": RF(tf.int64, value_key="v", partitions=[P.RowLengths("lens")]),
    "by_splits": RF(tf.int64, value_key="v", partitions=[P.RowSplits("splits")]),
    "by_rowids": RF(tf.int64, value_key="v", partitions=[P.ValueRowIds("rid")]),
    "uniform": RF(tf.float32, value_key="fl", partitions=[P.UniformRowLength(2)]),
    "starts": RF(tf.int64, value_key="v", partitions=[P.RowStarts("splits")]),
    "sp": tf.io.SparseFeature("idx", "val", tf.float32, 4),
    "sp2": tf.io.SparseFeature(["idx", "idx2"], "val", tf.float32, [4, 3]),
    "v32": RF(tf.int64, value_key="v", row_splits_dtype=tf.int32),
}
parse_cases = {}
for key, spec in specs.items():
    if key == "starts":
        continue
    parse_cases[key] = {"batch": py(tf.io.parse_example(examples, {key: spec})[key]),
                        "single": [py(tf.io.parse_single_example(e, {key: spec})[key])
                                   for e in examples]}
S["parse_examples_hex"] = {"kind": "python", "value": [e.hex() for e in examples]}
S["parse"] = {"kind": "python", "value": parse_cases}
S["parse_nested"] = py(tf.io.parse_example(examples[:2], {"n": RF(
    tf.int64, value_key="v", partitions=[P.RowLengths("lens"), P.UniformRowLength(1)])})["n"])
S["sparse_feature_repr"] = {"kind": "python", "value": repr(tf.io.SparseFeature("i", "v", tf.float32, 4))}
S["ragged_feature_repr"] = {"kind": "python", "value": repr(RF(tf.int64, partitions=[P.RowLengths("l")]))}

# ---- tf.data
ds = tf.data.Dataset.range(6).map(lambda x: tf.range(x))
S["data_ragged_batch"] = [py(b) for b in ds.ragged_batch(4)]
S["data_ragged_batch_drop"] = [py(b) for b in ds.ragged_batch(4, drop_remainder=True)]
S["data_ragged_batch_spec"] = {"kind": "python", "value": repr(ds.ragged_batch(4).element_spec)}
S["data_dense_to_ragged"] = [py(b) for b in ds.apply(
    tf.data.experimental.dense_to_ragged_batch(3))]
S["data_slices"] = [py(b) for b in tf.data.Dataset.from_tensor_slices(rt)]
S["data_slices3"] = [py(b) for b in tf.data.Dataset.from_tensor_slices(rt3)]
S["data_slices_spec"] = {"kind": "python", "value": repr(
    tf.data.Dataset.from_tensor_slices(rt).element_spec)}
S["data_slices_batch"] = [py(b) for b in tf.data.Dataset.from_tensor_slices(rt).batch(3)]
S["data_slices_dict"] = [py(b) for b in tf.data.Dataset.from_tensor_slices(
    {"a": rt, "b": tf.constant([1, 2, 3, 4])}).batch(2)]
S["data_slices_rebatch"] = [py(b) for b in tf.data.Dataset.from_tensor_slices(rt3).ragged_batch(2)]
S["data_ragged_batch_2d"] = [py(b) for b in tf.data.Dataset.range(3).map(
    lambda x: tf.zeros([x, 2], tf.int32)).ragged_batch(2)]


# ---- Keras: Input(ragged=True) -> Embedding / Lambda(to_tensor) -> GlobalAveragePooling1D
EMB = np.arange(30, dtype=np.float32).reshape(10, 3) / 10.0
DW, DB = np.array([[0.5], [-1.0], [0.25]], np.float32), np.array([0.1], np.float32)
krt = tf.ragged.constant([[1, 2], [3], [4, 5, 6], [7]], dtype=tf.int64)


def keras_model(lambda_first):
    x = tf.keras.Input(shape=(None,), ragged=True, dtype="int64")
    h = tf.keras.layers.Lambda(lambda t: t.to_tensor())(x) if lambda_first else x
    e = tf.keras.layers.Embedding(10, 3)
    h = e(h)
    p = tf.keras.layers.GlobalAveragePooling1D()(h)
    d = tf.keras.layers.Dense(1)
    m = tf.keras.Model(x, d(p))
    e.set_weights([EMB])
    d.set_weights([DW, DB])
    return m, e


for flag, key in ((False, "keras_embedding"), (True, "keras_lambda")):
    m, e = keras_model(flag)
    S[key + "_predict"] = tf.constant(m.predict(krt, verbose=0))
    S[key + "_call"] = m(krt)
S["keras_embedding_out"] = keras_model(False)[1](krt)
S["keras_input_config"] = {"kind": "python", "value": tf.keras.layers.InputLayer(
    input_shape=(None,), ragged=True, dtype="int64").get_config()}


def enc(v):
    if isinstance(v, dict) and "kind" in v:
        return v
    if isinstance(v, list) and all(isinstance(x, dict) and "kind" in x for x in v):
        return {"kind": "list", "items": v}
    return py(v)


json.dump({k: enc(v) for k, v in S.items()}, open(OUT, "w"), indent=0, sort_keys=True)
print("wrote", OUT, len(S))
