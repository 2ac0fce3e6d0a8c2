"""Records TF 2.15's values for the API-types tests of issue 32 (dtypes' enums, DeviceSpec
strings, TensorArray results, IndexedSlices, AdagradDA steps, LinearSDCA weights), run with
TF 2.15: ~/anchor-venvs/tf215/bin/python tools/make_tf_api_types_fixtures.py

Writes tests/fixtures/tf_api_types.json: {section: {case: value}}; a tensor is a nested list,
an error {"error": class name, "message": text}.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "tf_api_types.json")


def plain(v):
    if isinstance(v, (tf.Tensor, tf.Variable)):
        v = v.numpy()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def attempt(fn):
    try:
        return plain(fn())
    except Exception as e:  # noqa: BLE001 - the error is the recorded value
        return {"error": type(e).__name__, "message": str(e)}


def dtypes():
    out = {}
    for d in (tf.qint8, tf.quint8, tf.qint16, tf.quint16, tf.qint32, tf.resource, tf.variant,
              tf.experimental.float8_e4m3fn, tf.experimental.float8_e5m2, tf.experimental.int4,
              tf.experimental.uint4):
        out[d.name] = {"enum": d.as_datatype_enum, "size": d.size, "is_quantized": d.is_quantized,
                       "is_integer": d.is_integer, "is_unsigned": d.is_unsigned, "is_numeric": d.is_numeric,
                       "is_floating": d.is_floating, "repr": repr(d),
                       "min": attempt(lambda d=d: d.min), "max": attempt(lambda d=d: d.max)}
    out["QUANTIZED"] = sorted(d.name for d in tf.dtypes.QUANTIZED_DTYPES if not d.name.endswith("_ref"))
    return out


def device_specs():
    out = {}
    for s in ["/job:worker/replica:0/task:1/device:GPU:0", "/gpu:1", "/job:ps/cpu:0", "GPU:2", "/device:CPU:*",
              "/task:3", "", "/job:a/b:1", "/cpu:0/gpu:1", "/job:w/device:CUSTOM:3", "/replica:2/device:TPU:1"]:
        out[s] = attempt(lambda s=s: tf.DeviceSpec.from_string(s).to_string())
    a = tf.DeviceSpec.from_string("/job:worker/replica:0/task:1/device:GPU:0")
    out["merged"] = a.make_merged_spec(tf.DeviceSpec(device_type="cpu", task=3)).to_string()
    out["replace"] = a.replace(job="ps", device_index=2).to_string()
    out["ctor"] = tf.DeviceSpec(job="w", replica=1, task="2", device_type="gpu", device_index=0).to_string()
    v1 = tf.compat.v1.DeviceSpec.from_string("/job:a/task:1")
    v1.merge_from(tf.compat.v1.DeviceSpec(device_type="GPU", device_index=1))
    out["v1_merge_from"] = v1.to_string()
    v1.job = "b"
    out["v1_set_job"] = v1.to_string()
    return out


def tensor_arrays():
    out = {}
    ta = tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0]).write(2, [3.0, 4.0])
    out["write_stack"] = plain(ta.stack())
    out["element_shape"] = ta.element_shape.as_list()
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True).unstack([[1, 2], [3, 4], [5, 6]])
    out["gather"] = plain(ta.gather([2, 0]))
    out["concat"] = plain(ta.concat())
    out["size"] = plain(ta.size())
    out["read"] = plain(ta.read(1))
    out["read_twice"] = attempt(lambda: ta.read(1))
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(1, 5.0)
    out["no_clear"] = [plain(ta.read(1)), plain(ta.read(1)), plain(ta.read(0))]
    ta = tf.TensorArray(tf.float32, size=2)
    out["write_oob"] = attempt(lambda: ta.write(2, 1.0))
    out["read_oob"] = attempt(lambda: ta.read(5))
    out["wrong_dtype"] = attempt(lambda: tf.TensorArray(tf.float32, size=1).write(0, tf.constant(1)))
    out["wrong_shape"] = attempt(lambda: tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(1, [1.0, 2.0]))
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).split([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 2, 3])
    out["split_concat"] = plain(ta.concat())
    out["split_read"] = plain(ta.read(1))
    out["split_bad"] = attempt(lambda: tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 2, 0]))
    ta = tf.TensorArray(tf.float32, size=4).scatter([3, 1], [[1.0], [2.0]])
    out["scatter_stack"] = plain(ta.stack())
    out["unstack_static_too_many"] = attempt(lambda: tf.TensorArray(tf.float32, size=1).unstack([1.0, 2.0]))
    out["empty_stack_shape"] = list(tf.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack().shape)
    out["python_int_into_float"] = plain(tf.TensorArray(tf.float32, size=1).write(0, 3).stack())
    out["concat_scalar"] = attempt(lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0).concat())
    out["spec"] = repr(tf.TensorArraySpec([2], tf.float32))

    def loop():
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in range(4):
            ta = ta.write(i, tf.cast(i, tf.float32) ** 2)
        return ta.stack()
    out["loop"] = plain(loop())
    return out


def indexed_slices():
    out = {}
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([0, 2]), tf.constant([3, 2]))
    out["dense"] = plain(tf.convert_to_tensor(s))
    out["repeated"] = plain(tf.convert_to_tensor(
        tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([0, 0]), tf.constant([3, 2]))))
    out["spec"] = repr(s._type_spec)
    out["shape"] = s.shape.as_list()
    out["neg"] = plain(tf.convert_to_tensor(-s))
    out["no_dense_shape"] = attempt(lambda: tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.0]]),
                                                                                  tf.constant([0]))))
    out["reduce_sum"] = plain(tf.reduce_sum(s))
    v = tf.Variable([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [2, 0, 2]))
    g = tape.gradient(y, v)
    out["gather_grad"] = {"type": type(g).__name__, "dense": plain(tf.convert_to_tensor(g))}
    out["default_spec"] = repr(tf.IndexedSlicesSpec(shape=[3, 2], dtype=tf.float32))
    return out


def type_specs():
    return {
        "sparse_spec": repr(tf.SparseTensorSpec([2, 3], tf.int32)),
        "from_sparse": repr(tf.type_spec_from_value(tf.sparse.from_dense([[1, 0]]))),
        "from_tensor": repr(tf.type_spec_from_value(tf.constant([1, 2]))),
        "compatible": tf.SparseTensorSpec([2, None]).is_compatible_with(tf.SparseTensorSpec([2, 3])),
        "supertype": repr(tf.SparseTensorSpec([2, 3]).most_specific_common_supertype(
            [tf.SparseTensorSpec([3, 3])])),
    }


def _sdca_data():
    rng = np.random.RandomState(0)
    n = 40
    x = rng.normal(size=(n, 2)).astype(np.float32)
    cats = np.array(["a", "b", "c"])[rng.randint(0, 3, size=n)]
    effect = {"a": 0.5, "b": -1.0, "c": 0.0}
    y_reg = (1.5 * x[:, 0] - 2.0 * x[:, 1] + np.array([effect[c] for c in cats]) + 0.3
             + 0.1 * rng.normal(size=n)).astype(np.float32)
    y_cls = (y_reg + 0.5 * rng.normal(size=n) > 0.3).astype(np.int64)
    weights = rng.uniform(0.5, 2.0, size=n).astype(np.float32)
    ids = np.array([f"ex{i}" for i in range(n)])
    return {"x": x.tolist(), "c": cats.tolist(), "y_reg": y_reg.tolist(), "y_cls": y_cls.tolist(),
            "w": weights.tolist(), "ids": ids.tolist()}


SDCA_CASES = {
    "squared": {"kind": "regressor", "l1": 0.0, "l2": 1.0, "weighted": False},
    "squared_l1": {"kind": "regressor", "l1": 2.0, "l2": 1.0, "weighted": True},
    "logistic": {"kind": "classifier", "l1": 0.0, "l2": 1.0, "weighted": False},
    "logistic_l1": {"kind": "classifier", "l1": 1.0, "l2": 0.5, "weighted": True},
}


def linear_sdca():
    import tempfile

    data = _sdca_data()
    out = {"data": data, "cases": {}}
    for name, case in SDCA_CASES.items():
        x_col = tf.feature_column.numeric_column("x", shape=(2,))
        c_col = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])
        sdca = tf.estimator.experimental.LinearSDCA(example_id_column="example_id",
                                                    symmetric_l1_regularization=case["l1"],
                                                    symmetric_l2_regularization=case["l2"])
        weight = "w" if case["weighted"] else None
        if case["kind"] == "regressor":
            est = tf.estimator.LinearRegressor([x_col, c_col], optimizer=sdca, weight_column=weight,
                                               model_dir=tempfile.mkdtemp())
            labels = np.array(data["y_reg"], np.float32)
        else:
            est = tf.estimator.LinearClassifier([x_col, c_col], optimizer=sdca, weight_column=weight,
                                                model_dir=tempfile.mkdtemp())
            labels = np.array(data["y_cls"], np.int64)

        def input_fn(labels=labels):
            feats = {"x": np.array(data["x"], np.float32), "c": np.array(data["c"]),
                     "example_id": np.array(data["ids"]), "w": np.array(data["w"], np.float32)}
            return tf.data.Dataset.from_tensors((feats, labels)).repeat()

        est.train(input_fn, steps=200)
        out["cases"][name] = {
            "weights": {n: est.get_variable_value(n).tolist() for n in est.get_variable_names()
                        if n.startswith("linear/linear_model/") and "unshrunk" not in n},
            "loss": float(est.evaluate(input_fn, steps=1)["loss"]),
        }
    return out


def adagrad_da():
    out = {}
    for name, kwargs in {"plain": {}, "l1_l2": {"l1_regularization_strength": 0.05,
                                                "l2_regularization_strength": 0.1},
                         "init_acc": {"initial_gradient_squared_accumulator_value": 0.5}}.items():
        w = tf.Variable([1.0, -2.0, 0.5])
        gs = tf.Variable(0, dtype=tf.int64)
        opt = tf.compat.v1.train.AdagradDAOptimizer(0.3, gs, **kwargs)
        target = tf.constant([0.5, 0.25, -1.0])
        steps = []
        for _ in range(5):
            opt.minimize(lambda w=w, target=target: tf.reduce_sum((w - target) ** 2 * tf.constant([1.0, 2.0, 3.0])),
                         global_step=gs, var_list=[w])
            steps.append(w.numpy().tolist())
        out[name] = {"kwargs": kwargs, "steps": steps, "global_step": int(gs.numpy()),
                     "slots": sorted(opt.get_slot_names()),
                     "g_acc": opt.get_slot(w, "gradient_accumulator").numpy().tolist()}
    return out


def loss_scale():
    e = tf.compat.v1.train.experimental
    scale = e.DynamicLossScale(initial_loss_scale=4.0, increment_period=2, multiplier=2.0)
    w = tf.Variable([1.0, 2.0])
    gs = tf.Variable(0, dtype=tf.int64)
    opt = e.MixedPrecisionLossScaleOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1), scale)
    trace = []
    for factor in (1.0, 1.0, 1.0, float("inf"), 1.0):
        opt.minimize(lambda factor=factor: tf.reduce_sum(w * w) * factor, global_step=gs, var_list=[w])
        trace.append({"w": w.numpy().tolist(), "scale": float(scale().numpy()), "step": int(gs.numpy())})
    grads = opt.compute_gradients(lambda: tf.reduce_sum(w * w), var_list=[w])
    return {"trace": trace, "grads": grads[0][0].numpy().tolist(), "config": e.DynamicLossScale().get_config(),
            "fixed": float(e.FixedLossScale(8.0)().numpy())}


def quantization():
    q = tf.quantization
    x = tf.constant([-7.0, -1.03, -0.5, 0.0, 0.26, 0.9999, 2.5, 5.97, 6.2], tf.float32)
    out = {"x": x.numpy().tolist()}
    out["args"] = q.fake_quant_with_min_max_args(x).numpy().tolist()
    out["args_narrow4"] = q.fake_quant_with_min_max_args(x, min=-1.1, max=2.3, num_bits=4,
                                                         narrow_range=True).numpy().tolist()
    out["args_grad"] = q.fake_quant_with_min_max_args_gradient(tf.ones_like(x), x, min=-1.0, max=1.0).numpy().tolist()
    out["vars"] = q.fake_quant_with_min_max_vars(x, -0.7, 3.1).numpy().tolist()
    g = tf.range(9, dtype=tf.float32) + 1.0
    out["vars_grad"] = [t.numpy().tolist() for t in q.fake_quant_with_min_max_vars_gradient(g, x, -0.7, 3.1)]
    m = tf.reshape(x[:8], [4, 2])
    mins, maxs = tf.constant([-1.0, -0.2]), tf.constant([1.0, 6.0])
    out["per_channel"] = q.fake_quant_with_min_max_vars_per_channel(m, mins, maxs).numpy().tolist()
    out["per_channel_grad"] = [t.numpy().tolist() for t in q.fake_quant_with_min_max_vars_per_channel_gradient(
        tf.ones_like(m) * 2.0, m, mins, maxs)]
    out["qdq"] = q.quantize_and_dequantize(x, 0.0, 0.0).numpy().tolist()
    out["qdq_given"] = q.quantize_and_dequantize_v2(x, -1.0, 2.0, range_given=True, num_bits=4).numpy().tolist()
    out["qdq_unsigned_half_up"] = q.quantize_and_dequantize_v2(tf.abs(x), 0.0, 0.0, signed_input=False,
                                                               round_mode="HALF_UP").numpy().tolist()
    out["qdq_axis"] = q.quantize_and_dequantize_v2(m, [0.0, 0.0], [0.0, 0.0], axis=1,
                                                   narrow_range=True).numpy().tolist()
    v = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(q.quantize_and_dequantize_v2(v, -1.0, 2.0, range_given=True) * g)
    out["qdq_v2_grad"] = tape.gradient(y, v).numpy().tolist()
    return out


def random_index_shuffle():
    return {
        "small": tf.random_index_shuffle(tf.range(10, dtype=tf.int64), [1, 2, 3], 9).numpy().tolist(),
        "rounds6": int(tf.random_index_shuffle(tf.constant(5, tf.int32), tf.constant([7, 8, 9], tf.int32),
                                               tf.constant(1000, tf.int32), rounds=6).numpy()),
        "large": tf.random_index_shuffle(tf.constant([0, 1, 123456, 999999], tf.int64),
                                         tf.constant([-1, 2 ** 40, 5], tf.int64), tf.constant(999999, tf.int64)
                                         ).numpy().tolist(),
        "huge": tf.random_index_shuffle(tf.constant([3, 2 ** 40], tf.int64), tf.constant([11, 12, 13], tf.int64),
                                        tf.constant(2 ** 41, tf.int64)).numpy().tolist(),
        "per_row": tf.random_index_shuffle(tf.constant([1, 1], tf.int32), tf.constant([[1, 2, 3], [4, 5, 6]]),
                                           tf.constant([20, 70000], tf.int32)).numpy().tolist(),
    }


SECTIONS = {"dtypes": dtypes, "device_specs": device_specs, "tensor_arrays": tensor_arrays,
            "indexed_slices": indexed_slices, "type_specs": type_specs, "linear_sdca": linear_sdca,
            "adagrad_da": adagrad_da, "loss_scale": loss_scale,
            "quantization": quantization, "random_index_shuffle": random_index_shuffle}


def main():
    existing = json.load(open(OUT)) if os.path.exists(OUT) else {}
    import sys

    wanted = sys.argv[1:] or list(SECTIONS)
    for name in wanted:
        existing[name] = SECTIONS[name]()
    with open(OUT, "w") as f:
        json.dump(existing, f, indent=1, sort_keys=True)
    print("wrote", OUT, wanted)


if __name__ == "__main__":
    main()
