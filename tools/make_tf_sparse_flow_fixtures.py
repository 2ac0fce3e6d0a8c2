"""Records TF 2.15 values of composite tensors flowing through tf.data, Keras inputs,
tf.strings.split and TextVectorization (run with TF 2.15's python:
~/anchor-venvs/tf215/bin/python tools/make_tf_sparse_flow_fixtures.py).

Writes tests/fixtures/tf_sparse_flow.json.
"""

import base64
import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                   "fixtures", "tf_sparse_flow.json")


def enc(x):
    if isinstance(x, tf.SparseTensor):
        return {"indices": x.indices.numpy().tolist(), "values": _py(x.values.numpy()),
                "dense_shape": x.dense_shape.numpy().tolist()}
    if isinstance(x, tf.RaggedTensor):
        return {"ragged": _py(x.to_list())}
    if isinstance(x, dict):
        return {k: enc(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    return {"value": _py(np.asarray(x).tolist())}


def _py(v):
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, list):
        return [_py(a) for a in v]
    if isinstance(v, bytes):
        return v.decode()
    return v


ST = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 3]], [1.0, 2.0, 3.0, 4.0, 5.0], [3, 4])
ST3 = tf.SparseTensor([[0, 0, 1], [1, 1, 0], [2, 0, 2]], [7, 8, 9], [3, 2, 3])


def data_cases():
    out = {}
    ds = tf.data.Dataset.from_tensor_slices(ST)
    out["slices"] = enc(list(ds))
    out["slices_spec"] = repr(ds.element_spec)
    b = ds.batch(2)
    out["slices_batch"] = enc(list(b))
    out["slices_batch_spec"] = repr(b.element_spec)
    out["slices_batch_drop_spec"] = repr(ds.batch(2, drop_remainder=True).element_spec)
    ds3 = tf.data.Dataset.from_tensor_slices(ST3)
    out["slices3"] = enc(list(ds3))
    out["slices3_spec"] = repr(ds3.element_spec)
    out["slices3_batch"] = enc(list(ds3.batch(3)))
    d = tf.data.Dataset.from_tensor_slices({"s": ST, "y": tf.constant([1, 2, 3])})
    out["dict_spec"] = repr(d.element_spec["s"])
    out["dict_batch"] = enc(list(d.batch(2)))
    out["map_dense"] = enc(list(ds.map(tf.sparse.to_dense)))
    out["map_values"] = enc(list(ds.map(lambda s: s.values * 2.0)))
    out["map_sparse"] = enc(list(ds.map(lambda s: tf.SparseTensor(s.indices, s.values + 1.0,
                                                                  s.dense_shape)).batch(3)))
    lens = tf.data.Dataset.from_tensor_slices(tf.constant([2, 4, 1], tf.int64))
    var = lens.map(lambda n: tf.SparseTensor([[0]], [tf.cast(n, tf.float32)], [n]))
    out["var_spec"] = repr(var.element_spec)
    out["var_batch"] = enc(list(var.batch(3)))
    out["batch_map_dense"] = enc(list(ds.batch(2).map(tf.sparse.to_dense)))
    return out


def keras_cases():
    out = {}
    inp = tf.keras.Input(shape=(4,), sparse=True)
    dense = tf.keras.layers.Dense(2)
    model = tf.keras.Model(inp, dense(inp))
    kernel = np.arange(8, dtype=np.float32).reshape(4, 2) / 10.0
    bias = np.array([0.5, -0.5], np.float32)
    dense.set_weights([kernel, bias])
    out["input_config"] = {k: v for k, v in model.layers[0].get_config().items()
                           if k in ("sparse", "ragged", "batch_input_shape")}
    out["input_config"]["batch_input_shape"] = list(out["input_config"]["batch_input_shape"])
    out["kernel"] = kernel.tolist()
    out["bias"] = bias.tolist()
    out["call"] = model(ST).numpy().tolist()
    out["predict"] = model.predict(ST, batch_size=2, verbose=0).tolist()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
    hist = model.fit(ST, y, batch_size=3, epochs=2, shuffle=False, verbose=0)
    out["fit_loss"] = hist.history["loss"]
    out["fit_kernel"] = dense.kernel.numpy().tolist()
    out["fit_bias"] = dense.bias.numpy().tolist()
    # a sparse input into a non-Dense layer: TF feeds the layer the SparseTensor; tests
    # compare the dense numbers.
    inp2 = tf.keras.Input(shape=(4,), sparse=True)
    model2 = tf.keras.Model(inp2, tf.keras.layers.Lambda(lambda s: tf.sparse.to_dense(s) * 3.0)(inp2))
    out["lambda_dense"] = model2(ST).numpy().tolist()
    return out


def string_cases():
    out = {}
    s = tf.strings.split(["a b  c", "d", "", " e f "])
    out["split_1d_type"] = type(s).__name__
    out["split_1d"] = enc(s)
    out["split_1d_splits"] = s.row_splits.numpy().tolist()
    out["split_sep"] = enc(tf.strings.split(["a,,b", "c", ""], sep=","))
    out["split_max"] = enc(tf.strings.split(["a b c d", "e f"], maxsplit=1))
    out["split_sep_max"] = enc(tf.strings.split(["a,b,c", "d"], sep=",", maxsplit=1))
    sc = tf.strings.split("x y  z")
    out["split_scalar_type"] = type(sc).__name__
    out["split_scalar"] = enc(sc)
    s2 = tf.strings.split([["a b", "c"], ["d e f", ""]])
    out["split_2d"] = enc(s2)
    out["split_2d_ragged_rank"] = s2.ragged_rank
    out["split_2d_shape"] = str(s2.shape)
    tv = tf.keras.layers.TextVectorization(vocabulary=["a", "b", "c"], ragged=True)
    r = tv(tf.constant(["a b c d", "b", "c a"]))
    out["tv_ragged_type"] = type(r).__name__
    out["tv_ragged"] = enc(r)
    tv2 = tf.keras.layers.TextVectorization(vocabulary=["a", "b", "c"], ragged=True,
                                            output_sequence_length=None)
    out["tv_ragged_config"] = tv2.get_config()["ragged"]
    tv3 = tf.keras.layers.TextVectorization(vocabulary=["a", "b"], ragged=True, split=None)
    out["tv_ragged_nosplit"] = enc(tv3(tf.constant([["a"], ["b"]])))
    return out


def example(feats):
    f = {}
    for k, v in feats.items():
        if isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif isinstance(v[0], int):
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        else:
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[x.encode() for x in v]))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


def features_cases(tmp):
    recs = [
        example({"r": [1, 2, 3], "idx": [0, 3], "val": [1.5, 2.5], "w": ["a"], "y": [1]}),
        example({"r": [4], "idx": [2], "val": [7.0], "w": ["b", "c"], "y": [0]}),
        example({"r": [5, 6], "idx": [1, 4], "val": [3.0, 4.0], "w": ["d"], "y": [1]}),
    ]
    path = os.path.join(tmp, "f.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for r in recs:
            w.write(r)
    features = {
        "r": tf.io.RaggedFeature(tf.int64),
        "sp": tf.io.SparseFeature("idx", "val", tf.float32, 5),
        "w": tf.io.VarLenFeature(tf.string),
        "y": tf.io.FixedLenFeature([1], tf.int64),
    }
    ds = tf.data.experimental.make_batched_features_dataset(
        path, 2, features, label_key="y", num_epochs=1, shuffle=False)
    out = {"records": [base64.b64encode(r).decode() for r in recs]}
    out["batches"] = [enc(list(e)) for e in ds]
    spec = ds.element_spec[0]
    out["spec"] = {k: repr(v) for k, v in sorted(spec.items())}
    return out


def spec_cases():
    r = tf.ragged.constant([[1, 2], [3]])
    out = {
        "ragged_spec": repr(tf.type_spec_from_value(r)),
        "ragged_is_typespec": isinstance(tf.type_spec_from_value(r), tf.TypeSpec),
        "sparse_spec": repr(tf.type_spec_from_value(ST)),
        "ragged3_spec": repr(tf.type_spec_from_value(tf.ragged.constant([[[1.0]], [[2.0], [3.0]]]))),
        "issub_ragged": issubclass(tf.RaggedTensorSpec, tf.TypeSpec),
        "issub_sparse": issubclass(tf.SparseTensorSpec, tf.TypeSpec),
        "ragged_compat": tf.RaggedTensorSpec([None, None], tf.int32, 1).is_compatible_with(r),
        "ragged_common": repr(tf.RaggedTensorSpec([2, None], tf.int32, 1)
                              .most_specific_common_supertype(
                                  [tf.RaggedTensorSpec([3, None], tf.int32, 1)])),
        "ragged_subtype": tf.RaggedTensorSpec([2, None], tf.int32, 1).is_subtype_of(
            tf.RaggedTensorSpec([None, None], tf.int32, 1)),
    }
    return out


def main():
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        fx = {"tf_version": tf.__version__, "data": data_cases(), "keras": keras_cases(),
              "strings": string_cases(), "features": features_cases(tmp),
              "specs": spec_cases()}
    with open(OUT, "w") as f:
        json.dump(fx, f, indent=1, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
