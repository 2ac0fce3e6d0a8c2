"""Makes the parity fixtures of `tf.keras.backend` (tests/keras/backend/test_backend_parity.py).

Run with TensorFlow 2.15 (never a dependency of the project):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_keras_backend_fixtures.py

It runs each `tf.keras.backend` function on small fixed inputs and writes
tests/keras/backend/fixtures/backend.npz (inputs and outputs) and backend.json (the cases:
function, arguments, output structure; TF's signatures of every public function; the error
type and message TF gives for bad arguments).

Arguments: a numpy array is stored in the npz (`{"npz": key}`); other values are JSON (lists
stand for tuples). Outputs are flattened: a tensor is one array, a SparseTensor three
(indices, values, dense_shape), a list/tuple its items in order; a Python value is JSON.
"""

from __future__ import annotations

import inspect
import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

K = tf.keras.backend
OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "backend", "fixtures")

rng = np.random.RandomState(0)


def f32(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def prob(*shape: int) -> np.ndarray:
    p = rng.uniform(0.05, 1.0, size=shape).astype(np.float32)
    return (p / p.sum(-1, keepdims=True)).astype(np.float32)


def pos(*shape: int) -> np.ndarray:
    return rng.uniform(0.1, 2.0, size=shape).astype(np.float32)


X = f32(2, 3, 4)
Y = f32(2, 3, 4)
M = f32(3, 4)
ROUNDY = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6], np.float32)
IMG = f32(2, 5, 6, 3)
IMG_CF = f32(2, 3, 5, 6)
SEQ = f32(2, 7, 3)
VOL = f32(1, 4, 4, 4, 2)

CASES: list = []  # (case id, function name, args, kwargs)


def case(cid: str, fn: str, *args, **kwargs) -> None:
    CASES.append((cid, fn, list(args), kwargs))


# elementwise math and activations
for name in ["abs", "cos", "sin", "exp", "sign", "square", "sqrt", "tanh", "sigmoid", "softplus",
             "softsign", "hard_sigmoid"]:
    case(name, name, X)
case("log", "log", pos(3, 4))
case("round", "round", ROUNDY)
case("elu", "elu", X)
case("elu_alpha", "elu", X, alpha=0.5)
case("relu", "relu", X)
case("relu_alpha", "relu", X, alpha=0.1)
case("relu_max6", "relu", X * 10, max_value=6.0)
case("relu_max", "relu", X, max_value=0.5)
case("relu_threshold", "relu", X, threshold=0.2)
case("relu_all", "relu", X * 3, alpha=0.3, max_value=1.5, threshold=0.4)
case("pow", "pow", X, 3)
case("clip", "clip", X, -0.5, 0.5)
case("clip_swapped", "clip", X, 0.5, -0.5)
case("clip_none", "clip", X, None, 0.3)
for name in ["equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "maximum", "minimum"]:
    case(name, name, np.round(X, 1), np.round(Y, 1) * 0 + np.round(X, 1)[:, :, ::-1])

# reductions
for name in ["max", "min", "sum", "prod", "mean", "std", "var"]:
    case(name, name, X)
    case(name + "_axis1", name, X, axis=1)
    case(name + "_axes_keep", name, X, axis=[0, 2], keepdims=True)
case("all", "all", (X > -0.9).astype(np.float32), axis=1)
case("any", "any", (X > 0.9).astype(np.float32), axis=-1, keepdims=True)
case("mean_bool", "mean", X > 0, axis=1)
case("argmax", "argmax", X)
case("argmin", "argmin", X, axis=1)
case("cumsum", "cumsum", X, axis=1)
case("cumprod", "cumprod", X)

# shapes
case("concatenate", "concatenate", [X, Y], axis=-1)
case("concatenate_0", "concatenate", [X, Y], axis=0)
case("reshape", "reshape", X, (4, -1))
case("permute_dimensions", "permute_dimensions", X, (2, 0, 1))
case("repeat_elements", "repeat_elements", X, 2, 1)
case("repeat", "repeat", M, 3)
case("arange", "arange", 5)
case("arange_float", "arange", 1, 7, 2, dtype="float32")
case("arange_negative", "arange", -3)
case("tile", "tile", X, (1, 2, 3))
case("tile_int", "tile", ROUNDY, 2)
case("flatten", "flatten", X)
case("batch_flatten", "batch_flatten", X)
case("expand_dims", "expand_dims", X)
case("expand_dims_1", "expand_dims", X, axis=1)
case("squeeze", "squeeze", X[:, :1], 1)
case("stack", "stack", [X, Y], axis=1)
case("one_hot", "one_hot", np.array([[0, 2], [1, 3]], np.int32), 4)
case("reverse", "reverse", X, 1)
case("reverse_axes", "reverse", X, [0, 2])
case("temporal_padding", "temporal_padding", X, (2, 1))
case("spatial_2d_padding", "spatial_2d_padding", IMG, ((1, 0), (2, 1)))
case("spatial_2d_padding_cf", "spatial_2d_padding", IMG_CF, data_format="channels_first")
case("spatial_3d_padding", "spatial_3d_padding", VOL, ((1, 0), (0, 2), (1, 1)))
case("spatial_3d_padding_cf", "spatial_3d_padding", VOL, data_format="channels_first")
case("transpose", "transpose", X)
case("gather", "gather", M, np.array([2, 0, 2], np.int32))
case("cast", "cast", X * 3, "int32")
case("zeros_like", "zeros_like", X)
case("ones_like", "ones_like", X, dtype="int32")

# products
case("dot_2d", "dot", M, f32(4, 5))
case("dot_2d_3d", "dot", f32(2, 3), f32(4, 3, 5))
case("dot_3d_2d", "dot", X, f32(4, 5))
case("dot_3d_3d", "dot", X, f32(5, 4, 2))
case("batch_dot", "batch_dot", X, f32(2, 4, 5))
case("batch_dot_2d", "batch_dot", f32(2, 3), f32(2, 3), axes=1)
case("batch_dot_axes", "batch_dot", X, f32(2, 5, 4), axes=(2, 2))
case("batch_dot_doc", "batch_dot", f32(4, 20, 1), f32(4, 30, 20), axes=(1, 2))
case("batch_dot_4d", "batch_dot", f32(2, 3, 4, 5), f32(2, 5, 6))
case("batch_dot_2d_3d", "batch_dot", f32(2, 3), f32(2, 3, 4))
case("batch_dot_3d_2d", "batch_dot", X, f32(2, 4))
case("batch_dot_3d_4d", "batch_dot", X, f32(2, 4, 2, 5), axes=(2, 1))

# nn
case("softmax", "softmax", X)
case("softmax_axis1", "softmax", X, axis=1)
case("softmax_tuple", "softmax", X, axis=(1, 2))
case("l2_normalize", "l2_normalize", X)
case("l2_normalize_axis", "l2_normalize", X, axis=1)
case("bias_add", "bias_add", IMG, f32(3))
case("bias_add_cf", "bias_add", IMG_CF, f32(3), data_format="channels_first")
case("bias_add_nd", "bias_add", X, f32(3, 4))
case("bias_add_nd_cf", "bias_add", X, f32(4, 3), data_format="channels_first")
case("in_top_k", "in_top_k", np.array([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1]], np.float32),
     np.array([2, 0], np.int32), 1)
case("in_top_k_2", "in_top_k", np.array([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1]], np.float32),
     np.array([2, 2], np.int32), 2)
BT = (rng.uniform(size=(3, 4)) > 0.5).astype(np.float32)
case("binary_crossentropy", "binary_crossentropy", BT, prob(3, 4))
case("binary_crossentropy_logits", "binary_crossentropy", BT, M * 3, from_logits=True)
case("binary_focal_crossentropy", "binary_focal_crossentropy", BT, prob(3, 4))
case("binary_focal_crossentropy_all", "binary_focal_crossentropy", BT, M * 3,
     apply_class_balancing=True, alpha=0.4, gamma=1.5, from_logits=True)
OH = np.eye(4, dtype=np.float32)[[0, 3, 1]]
case("categorical_crossentropy", "categorical_crossentropy", OH, prob(3, 4))
case("categorical_crossentropy_logits", "categorical_crossentropy", OH, M * 3, from_logits=True)
case("categorical_crossentropy_axis0", "categorical_crossentropy", OH.T.copy(), prob(3, 4).T.copy(), axis=0)
case("categorical_focal_crossentropy", "categorical_focal_crossentropy", OH, prob(3, 4))
case("categorical_focal_crossentropy_logits", "categorical_focal_crossentropy", OH, M * 3,
     alpha=0.5, gamma=1.0, from_logits=True)
SPARSE_T = np.array([0, 3, 1], np.int32)
case("sparse_categorical_crossentropy", "sparse_categorical_crossentropy", SPARSE_T, prob(3, 4))
case("sparse_categorical_crossentropy_logits", "sparse_categorical_crossentropy", SPARSE_T, M * 3,
     from_logits=True)
case("sparse_categorical_crossentropy_3d", "sparse_categorical_crossentropy",
     np.array([[0, 1, 2], [3, 3, 0]], np.int32), prob(2, 3, 4))
case("sparse_categorical_crossentropy_axis1", "sparse_categorical_crossentropy",
     np.array([[0, 1, 3], [2, 3, 0]], np.int32), f32(2, 4, 3), from_logits=True, axis=1)
case("sparse_categorical_crossentropy_ignore", "sparse_categorical_crossentropy",
     np.array([0, 3, 1], np.int32), prob(3, 4), ignore_class=3)

# convolutions and pooling
case("conv1d", "conv1d", SEQ, f32(3, 3, 4))
case("conv1d_same_stride", "conv1d", SEQ, f32(3, 3, 4), strides=2, padding="same")
case("conv1d_causal_dilated", "conv1d", SEQ, f32(2, 3, 4), padding="causal", dilation_rate=2)
case("conv1d_cf", "conv1d", np.ascontiguousarray(SEQ.transpose(0, 2, 1)), f32(3, 3, 4),
     data_format="channels_first")
case("conv2d", "conv2d", IMG, f32(3, 3, 3, 4))
case("conv2d_same_stride", "conv2d", IMG, f32(3, 3, 3, 4), strides=(2, 2), padding="same")
case("conv2d_dilated", "conv2d", IMG, f32(2, 2, 3, 4), dilation_rate=(2, 2))
case("conv2d_cf", "conv2d", IMG_CF, f32(3, 2, 3, 4), padding="same", data_format="channels_first")
case("conv3d", "conv3d", VOL, f32(2, 2, 2, 2, 3))
case("conv3d_same_cf", "conv3d", VOL.transpose(0, 4, 1, 2, 3).copy(), f32(2, 2, 2, 2, 3),
     strides=(2, 2, 2), padding="same", data_format="channels_first")
case("conv2d_transpose", "conv2d_transpose", IMG, f32(3, 3, 4, 3), (2, 10, 12, 4), strides=(2, 2),
     padding="same")
case("conv2d_transpose_valid", "conv2d_transpose", IMG, f32(2, 2, 4, 3), (2, 6, 7, 4))
case("conv2d_transpose_cf", "conv2d_transpose", IMG_CF, f32(3, 3, 2, 3), (2, 2, 11, 13), strides=(2, 2),
     data_format="channels_first")
case("depthwise_conv2d", "depthwise_conv2d", IMG, f32(3, 3, 3, 2))
case("depthwise_conv2d_same_cf", "depthwise_conv2d", IMG_CF, f32(3, 3, 3, 2), padding="same",
     data_format="channels_first")
case("separable_conv2d", "separable_conv2d", IMG, f32(3, 3, 3, 2), f32(1, 1, 6, 4))
case("separable_conv2d_same_stride", "separable_conv2d", IMG, f32(3, 3, 3, 1), f32(1, 1, 3, 5),
     strides=(2, 2), padding="same")
case("pool2d", "pool2d", IMG, (2, 2))
case("pool2d_avg_same", "pool2d", IMG, (3, 3), strides=(2, 2), padding="same", pool_mode="avg")
case("pool2d_cf", "pool2d", IMG_CF, (2, 3), strides=(2, 2), data_format="channels_first")
case("pool3d", "pool3d", VOL, (2, 2, 2), strides=(2, 2, 2))
case("pool3d_avg_same", "pool3d", VOL, (3, 3, 3), padding="same", pool_mode="avg")
case("local_conv1d", "local_conv1d", SEQ, f32(3, 9, 4), (3,), (2,))
case("local_conv2d", "local_conv2d", IMG, f32(4, 12, 2), (2, 2), (2, 2), (2, 2))
case("local_conv2d_cf", "local_conv2d", IMG_CF, f32(4, 12, 2), (2, 2), (2, 3), (2, 2),
     data_format="channels_first")
case("resize_images", "resize_images", IMG, 2, 3, "channels_last")
case("resize_images_bilinear_cf", "resize_images", IMG_CF, 2, 2, "channels_first", interpolation="bilinear")
case("resize_volumes", "resize_volumes", VOL, 2, 1, 2, "channels_last")
case("resize_volumes_cf", "resize_volumes", VOL, 1, 2, 1, "channels_first")

# normalization
C3 = [pos(3), f32(3), f32(3), pos(3)]
case("batch_normalization", "batch_normalization", IMG, f32(3), pos(3), f32(3), pos(3))
case("batch_normalization_cf", "batch_normalization", IMG_CF, f32(3), pos(3), f32(3), pos(3), axis=1,
     epsilon=0.01)
case("batch_normalization_2d", "batch_normalization", M, f32(4), pos(4), f32(4), pos(4))
case("batch_normalization_none", "batch_normalization", M, f32(4), pos(4), None, None)
case("normalize_batch_in_training_nhwc", "normalize_batch_in_training", IMG, pos(3), f32(3), [0, 1, 2])
case("normalize_batch_in_training_nchw", "normalize_batch_in_training", IMG_CF, pos(3), f32(3), [0, 2, 3])
case("normalize_batch_in_training_2d", "normalize_batch_in_training", M, pos(4), f32(4), [0],
     epsilon=0.01)
case("normalize_batch_in_training_3d", "normalize_batch_in_training", X, pos(4), f32(4), [0, 1])
case("normalize_batch_in_training_bcast", "normalize_batch_in_training", X, pos(3), None, [0, 2])

# CTC
CTC_PRED = prob(2, 6, 4)
CTC_TRUE = np.array([[0, 1, 1], [2, 0, 0]], np.int32)
case("ctc_batch_cost", "ctc_batch_cost", CTC_TRUE, CTC_PRED, np.array([[6], [5]], np.int32),
     np.array([[3], [1]], np.int32))
case("ctc_decode_greedy", "ctc_decode", CTC_PRED, np.array([6, 4], np.int32))
case("ctc_decode_beam", "ctc_decode", CTC_PRED, np.array([6, 4], np.int32), greedy=False, beam_width=10,
     top_paths=2)
CTC_LONG = prob(3, 10, 5)
case("ctc_decode_beam_pruned", "ctc_decode", CTC_LONG, np.array([10, 7, 9], np.int32), greedy=False,
     beam_width=3, top_paths=3)
case("ctc_decode_greedy_long", "ctc_decode", CTC_LONG, np.array([10, 7, 9], np.int32))
case("ctc_batch_cost_long", "ctc_batch_cost", np.array([[1, 1, 2, 0], [3, 0, 0, 0], [2, 3, 2, 1]], np.int32),
     CTC_LONG, np.array([[10], [7], [9]], np.int32), np.array([[3], [1], [4]], np.int32))
case("ctc_label_dense_to_sparse", "ctc_label_dense_to_sparse", CTC_TRUE, np.array([3, 1], np.int32))

# creation
case("constant", "constant", [[1, 2], [3, 4]])
case("constant_shape", "constant", 2.5, dtype="float64", shape=(2, 3))
case("zeros", "zeros", (2, 3))
case("ones", "ones", (3,), dtype="int32")
case("eye", "eye", 3)
case("variable", "variable", M)
case("cast_to_floatx", "cast_to_floatx", [[1, 2], [3, 4]])

# control
case("switch_scalar", "switch", np.array(True), X, Y)
case("switch_scalar_false", "switch", np.array(0.0, np.float32), X, Y)
case("switch_rank2", "switch", X[:, :, 0] > 0, X, Y)
case("switch_rank3", "switch", X > 0, X, Y)
case("in_train_phase_1", "in_train_phase", X, Y, training=1)
case("in_train_phase_0", "in_train_phase", X, Y, training=False)
case("in_test_phase_1", "in_test_phase", X, Y, training=True)

# meta functions (JSON results)
META = [
    ("int_shape", "int_shape", [X]),
    ("ndim", "ndim", [X]),
    ("count_params", "count_params", [X]),
    ("backend", "backend", []),
    ("floatx", "floatx", []),
    ("epsilon", "epsilon", []),
    ("image_data_format", "image_data_format", []),
    ("learning_phase", "learning_phase", []),
    ("is_tf_random_generator_enabled", "experimental.is_tf_random_generator_enabled", []),
]

# errors: (case id, function, args, kwargs)
ERRORS = [
    ("conv2d_data_format", "conv2d", [IMG, f32(3, 3, 3, 4)], {"data_format": "channels_middle"}),
    ("conv2d_padding", "conv2d", [IMG, f32(3, 3, 3, 4)], {"padding": "full"}),
    ("conv1d_data_format", "conv1d", [SEQ, f32(3, 3, 4)], {"data_format": "NWC"}),
    ("pool2d_mode", "pool2d", [IMG, (2, 2)], {"pool_mode": "min"}),
    ("pool2d_pool_size", "pool2d", [IMG, (2, 2, 2)], {}),
    ("bias_add_data_format", "bias_add", [IMG, f32(3)], {"data_format": "NHWC"}),
    ("bias_add_rank", "bias_add", [IMG, f32(2, 3)], {}),
    ("spatial_2d_padding_data_format", "spatial_2d_padding", [IMG], {"data_format": "bad"}),
    ("resize_images_data_format", "resize_images", [IMG, 2, 2, "bad"], {}),
    ("resize_images_interpolation", "resize_images", [IMG, 2, 2, "channels_last"], {"interpolation": "cubic"}),
    ("resize_volumes_data_format", "resize_volumes", [VOL, 2, 2, 2, "bad"], {}),
    ("batch_dot_axis0", "batch_dot", [X, f32(2, 4, 5)], {"axes": 0}),
    ("batch_dot_mismatch", "batch_dot", [X, f32(2, 5, 5)], {"axes": (2, 1)}),
    ("batch_dot_batch", "batch_dot", [X, f32(3, 4, 5)], {}),
    ("batch_dot_rank", "batch_dot", [ROUNDY, f32(8, 2)], {}),
    ("batch_dot_nested", "batch_dot", [X, f32(2, 4, 5)], {"axes": [[1, 2], 1]}),
    ("softmax_1d", "softmax", [ROUNDY], {}),
    ("switch_rank", "switch", [X > 0, M, M], {}),
    ("placeholder_sparse_ragged", "placeholder", [], {"shape": (None, 3), "sparse": True, "ragged": True}),
    ("separable_conv2d_strides", "separable_conv2d", [IMG, f32(3, 3, 3, 1), f32(1, 1, 3, 5)],
     {"strides": (1, 1, 1)}),
]


def encode(value, key: str, arrays: dict):
    if isinstance(value, np.ndarray):
        arrays[key] = value
        return {"npz": key}
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return {"list": [encode(v, f"{key}_{i}", arrays) for i, v in enumerate(value)]}
    return {"value": value}


def decode(spec, arrays):
    if "npz" in spec:
        return tf.constant(arrays[spec["npz"]])
    if "list" in spec:
        return [decode(s, arrays) for s in spec["list"]]
    return spec["value"]


def flatten(out) -> list:
    if isinstance(out, tf.SparseTensor):
        return [out.indices.numpy(), out.values.numpy(), out.dense_shape.numpy()]
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in flatten(o)]
    if hasattr(out, "numpy"):
        return [np.asarray(out.numpy())]
    return [np.asarray(out)]


def resolve(name: str):
    obj = K
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def signatures() -> dict:
    sigs = {}
    for name in sorted(n for n in dir(K) if not n.startswith("_")):
        obj = getattr(K, name)
        if inspect.ismodule(obj):
            continue
        params = []
        for p in inspect.signature(obj).parameters.values():
            default = None if p.default is inspect.Parameter.empty else repr(p.default)
            params.append({"name": p.name, "kind": p.kind.name, "default": default})
        sigs[name] = params
    for name in ["enable_tf_random_generator", "disable_tf_random_generator", "is_tf_random_generator_enabled"]:
        sigs["experimental." + name] = [
            {"name": p.name, "kind": p.kind.name, "default": None}
            for p in inspect.signature(getattr(K.experimental, name)).parameters.values()
        ]
    return sigs


def special_cases(arrays: dict, results: dict) -> None:
    """rnn, map_fn, foldl, foldr: the callables are rebuilt by the test from the stored arrays."""
    w = f32(3, 4)
    u = f32(4, 4)
    arrays["rnn__w"] = w
    arrays["rnn__u"] = u
    inputs = f32(2, 5, 3)
    arrays["rnn__inputs"] = inputs
    h0 = f32(2, 4)
    arrays["rnn__h0"] = h0
    mask = np.array([[1, 1, 0, 1, 0], [1, 0, 0, 1, 1]], bool)
    arrays["rnn__mask"] = mask
    const = f32(2, 4)
    arrays["rnn__const"] = const
    lengths = np.array([3, 5], np.int32)
    arrays["rnn__lengths"] = lengths
    W, U = tf.constant(w), tf.constant(u)

    def step(x, states):
        h = tf.tanh(tf.matmul(x, W) + tf.matmul(states[0], U))
        if len(states) > 1:
            h = h + states[1]
        return h, [h]

    variants = {
        "plain": {},
        "backwards": {"go_backwards": True},
        "mask": {"mask": "mask"},
        "mask_zero": {"mask": "mask", "zero_output_for_mask": True},
        "mask_backwards_last_only": {"mask": "mask", "go_backwards": True, "return_all_outputs": False},
        "constants_unroll": {"constants": "const", "unroll": True},
        "time_major": {"time_major": True},
        "input_length": {"input_length": "lengths"},
        "input_length_backwards": {"input_length": "lengths", "go_backwards": True},
    }
    for vid, kw in variants.items():
        call_kw = dict(kw)
        x = tf.constant(inputs)
        if kw.get("time_major"):
            x = tf.transpose(x, [1, 0, 2])
        if "mask" in kw:
            call_kw["mask"] = tf.constant(mask)
        if "constants" in kw:
            call_kw["constants"] = [tf.constant(const)]
        if "input_length" in kw:
            call_kw["input_length"] = tf.constant(lengths)
        last, outs, states = K.rnn(step, x, [tf.constant(h0)], **call_kw)
        for i, a in enumerate([last, outs, states[0]]):
            arrays[f"rnn_{vid}__out{i}"] = a.numpy()
        results["rnn_" + vid] = {"kwargs": kw, "n_out": 3}
    elems = f32(4, 3)
    arrays["fold__elems"] = elems
    arrays["map_fn__out0"] = K.map_fn(lambda v: v * v + 1.0, tf.constant(elems)).numpy()
    arrays["foldl__out0"] = K.foldl(lambda a, v: a * 0.5 + v, tf.constant(elems)).numpy()
    arrays["foldr__out0"] = K.foldr(lambda a, v: a * 0.5 + v, tf.constant(elems)).numpy()
    arrays["foldl_init__out0"] = K.foldl(lambda a, v: a + tf.reduce_sum(v), tf.constant(elems),
                                          initializer=tf.constant(1.0)).numpy()


def main() -> None:
    os.makedirs(OUT_DIR, exist_ok=True)
    arrays: dict = {}
    cases = []
    for cid, fn, args, kwargs in CASES:
        enc_args = [encode(a, f"{cid}__in{i}", arrays) for i, a in enumerate(args)]
        enc_kwargs = {k: encode(v, f"{cid}__kw_{k}", arrays) for k, v in kwargs.items()}
        out = resolve(fn)(*[decode(a, arrays) for a in enc_args],
                          **{k: decode(v, arrays) for k, v in enc_kwargs.items()})
        flat = flatten(out)
        for i, a in enumerate(flat):
            arrays[f"{cid}__out{i}"] = a
        cases.append({"id": cid, "fn": fn, "args": enc_args, "kwargs": enc_kwargs, "n_out": len(flat),
                      "dtypes": [str(a.dtype) for a in flat]})
    meta = []
    for cid, fn, args in META:
        enc_args = [encode(a, f"{cid}__in{i}", arrays) for i, a in enumerate(args)]
        value = resolve(fn)(*[decode(a, arrays) for a in enc_args])
        if isinstance(value, np.generic):
            value = value.item()
        meta.append({"id": cid, "fn": fn, "args": enc_args, "result": value})
    errors = []
    for cid, fn, args, kwargs in ERRORS:
        enc_args = [encode(a, f"{cid}__in{i}", arrays) for i, a in enumerate(args)]
        enc_kwargs = {k: encode(v, f"{cid}__kw_{k}", arrays) for k, v in kwargs.items()}
        try:
            resolve(fn)(*[decode(a, arrays) for a in enc_args],
                        **{k: decode(v, arrays) for k, v in enc_kwargs.items()})
        except Exception as e:  # noqa: BLE001 - the error is the fixture
            errors.append({"id": cid, "fn": fn, "args": enc_args, "kwargs": enc_kwargs,
                           "type": type(e).__name__, "message": str(e)})
        else:
            print(f"no error for {cid}", file=sys.stderr)
    special: dict = {}
    special_cases(arrays, special)
    np.savez_compressed(os.path.join(OUT_DIR, "backend.npz"), **arrays)
    with open(os.path.join(OUT_DIR, "backend.json"), "w") as f:
        json.dump({"tf_version": tf.__version__, "cases": cases, "meta": meta, "errors": errors,
                   "rnn": special, "signatures": signatures()}, f, indent=1, sort_keys=True)
    print(f"{len(cases)} cases, {len(meta)} meta, {len(errors)} errors, {len(special)} rnn variants")


if __name__ == "__main__":
    main()
