"""tf.math and its top-level aliases: values against numpy computations of TF's documented
definitions, TF's dtype and axis rules, TF's errors, and a replay of outputs recorded from
TF 2.15 (fixtures/math.json, made by fixtures/make_math_fixture.py)."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._dtypes import dtype_name

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "math.json").read_text())
RNG = np.random.default_rng(0)


def arr(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


# --------------------------------------------------------------------------- fixture replay
def _decode(value):
    if isinstance(value, dict) and "tensor" in value:
        return tf.constant(value["tensor"], dtype=value["dtype"])
    if isinstance(value, dict) and "dtype" in value:
        return tf.as_dtype(value["dtype"])
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _resolve(path):
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _check(result, expected, name):
    if isinstance(expected, list):
        assert isinstance(result, tuple) and len(result) == len(expected), name
        for r, e in zip(result, expected):
            _check(r, e, name)
        return
    assert isinstance(result, torch.Tensor), (name, type(result))
    assert dtype_name(result.dtype) == expected["dtype"], (name, result.dtype)
    assert list(result.shape) == expected["shape"], (name, result.shape)
    want = np.asarray(expected["values"], dtype=arr(result).dtype)
    if result.is_floating_point():
        np.testing.assert_allclose(arr(result), want, rtol=2e-7, atol=1e-37, equal_nan=True,
                                   err_msg=name)
        # signed zeros and infinities as TF gives them (atol: TF flushes denormals to 0)
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(arr(result))[numbers], np.signbit(want)[numbers],
                                      err_msg=name)
    else:
        np.testing.assert_array_equal(arr(result), want, err_msg=name)


def _error_class(name):
    return getattr(tf.errors, name, None) or getattr(builtins, name)


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=[c["name"] for c in FIXTURE["cases"]])
def test_matches_tensorflow_2_15(case):
    fn = _resolve(case["op"])
    args = _decode(case["args"])
    kwargs = {k: _decode(v) for k, v in case["kwargs"].items()}
    if "error" in case:
        with pytest.raises(_error_class(case["error"])):
            fn(*args, **kwargs)
        return
    _check(fn(*args, **kwargs), case["result"], case["name"])


def test_fixture_is_from_tf_2_15_and_large_enough():
    assert FIXTURE["tensorflow"].startswith("2.15")
    assert len(FIXTURE["cases"]) >= 40


# --------------------------------------------------------------------------- names
def test_top_level_aliases_are_the_tf_math_functions():
    for name in ["add", "subtract", "multiply", "divide", "truediv", "pow", "square", "sqrt",
                 "exp", "sigmoid", "tanh", "sin", "cos", "maximum", "minimum", "negative", "sign",
                 "round", "floor", "equal", "not_equal", "less", "less_equal", "greater",
                 "greater_equal", "logical_and", "logical_or", "logical_not", "reduce_sum",
                 "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
                 "reduce_all", "reduce_logsumexp", "argmax", "argmin", "cumsum", "add_n", "abs",
                 "scalar_mul"]:
        assert getattr(tf, name) is getattr(tf.math, name), name


def test_math_only_names_are_not_top_level():
    # TF 2.15 has these only under tf.math
    for name in ["log", "log1p", "ceil", "floordiv", "mod", "rsqrt", "top_k", "segment_sum",
                 "divide_no_nan", "is_nan", "bincount", "confusion_matrix", "cumprod",
                 "reduce_std", "count_nonzero", "logical_xor", "erf", "softplus"]:
        assert hasattr(tf.math, name), name
        assert name not in tf._ops.math_ops.__all__, name


# --------------------------------------------------------------------------- elementwise
BINARY = [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("maximum", np.maximum), ("minimum", np.minimum),
    ("squared_difference", lambda a, b: (a - b) ** 2),
]


@pytest.mark.parametrize("name,ref", BINARY)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_binary_broadcasting_keeps_dtype(name, ref, dtype):
    a = (RNG.normal(size=(3, 1, 4)) * 10).astype(dtype)
    b = (RNG.normal(size=(2, 1)) * 10).astype(dtype)
    out = getattr(tf.math, name)(tf.constant(a), tf.constant(b))
    assert out.dtype == tf.as_dtype(dtype)
    assert tuple(out.shape) == (3, 2, 4)
    np.testing.assert_allclose(arr(out), ref(a, b), rtol=1e-6)


def test_python_numbers_take_the_tensor_dtype():
    x = tf.constant([1, 2, 3])
    assert tf.add(x, 2).dtype == torch.int32
    assert tf.subtract(10, x).tolist() == [9, 8, 7]
    assert tf.maximum(x, 2).tolist() == [2, 2, 3]
    assert tf.multiply(2, tf.constant([1.5], tf.float64)).dtype == torch.float64
    assert tf.add([1, 2], [3, 4]).dtype == torch.int32
    assert tf.add(np.array([1.0, 2.0]), tf.constant([1.0, 1.0])).dtype == torch.float32
    with pytest.raises(TypeError):
        tf.add(x, 1.5)


def test_binary_dtype_and_shape_errors_name_both():
    with pytest.raises(tf.errors.InvalidArgumentError, match="float32 and float64"):
        tf.add(tf.ones([2]), tf.ones([2], tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\] and \[4\]"):
        tf.multiply(tf.ones([2, 3]), tf.ones([4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] and \[3\]"):
        tf.equal(tf.ones([2]), tf.ones([3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.multiply(tf.constant([True]), tf.constant([True]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.less(tf.constant([1]), tf.constant([1.0]))


def test_division():
    a, b = np.array([7, -7, 9], np.int32), np.array([2, 2, -4], np.int32)
    out = tf.divide(tf.constant(a), tf.constant(b))
    assert out.dtype == torch.float64
    np.testing.assert_allclose(arr(out), a / b)
    assert tf.truediv(tf.constant([3], tf.uint8), tf.constant([2], tf.uint8)).dtype == torch.float32
    assert tf.divide(tf.constant([1.0]), 4).tolist() == [0.25]
    fa, fb = RNG.normal(size=(4, 3)).astype(np.float32), RNG.normal(size=3).astype(np.float32)
    np.testing.assert_allclose(arr(tf.math.floordiv(tf.constant(fa), tf.constant(fb))),
                               np.floor(fa / fb))
    np.testing.assert_allclose(arr(tf.math.floormod(tf.constant(fa), tf.constant(fb))),
                               np.mod(fa, fb), rtol=1e-5, atol=1e-6)
    assert tf.math.floordiv(tf.constant([-7], tf.int64), 2).tolist() == [-4]
    assert tf.math.mod(tf.constant([-7]), 3).tolist() == [2]
    with tf.device("/CPU:0"), pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        tf.math.mod(tf.constant([1]), tf.constant([0]))  # a value check: the CPU's, as TF's
    with pytest.raises(TypeError):
        tf.divide(tf.constant([True]), tf.constant([True]))
    assert tf.realdiv(tf.constant([1.0]), tf.constant([4.0])).tolist() == [0.25]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.realdiv(tf.constant([1]), tf.constant([4]))


def test_no_nan_ops():
    x = tf.constant([[1.0, np.inf], [np.nan, 4.0]])
    y = tf.constant([0.0, 2.0])
    np.testing.assert_array_equal(arr(tf.math.divide_no_nan(x, y)), [[0, np.inf], [0, 2]])
    np.testing.assert_array_equal(arr(tf.math.multiply_no_nan(x, y)), [[0, np.inf], [0, 8]])
    np.testing.assert_array_equal(arr(tf.math.reciprocal_no_nan(y)), [0, 0.5])
    np.testing.assert_allclose(arr(tf.math.xlogy(tf.constant([0.0, 2.0]), tf.constant([0.0, 3.0]))),
                               [0, 2 * np.log(3)], rtol=1e-6)
    np.testing.assert_array_equal(arr(tf.math.xdivy(tf.constant([0.0, 2.0]), tf.constant([0.0, 4.0]))),
                                  [0, 0.5])


UNARY_FLOAT = [
    ("abs", np.abs, 1), ("negative", np.negative, 1), ("square", np.square, 1),
    ("sqrt", np.sqrt, 2), ("rsqrt", lambda v: 1 / np.sqrt(v), 2), ("exp", np.exp, 1),
    ("log", np.log, 2), ("log1p", np.log1p, 2), ("expm1", np.expm1, 1),
    ("sigmoid", lambda v: 1 / (1 + np.exp(-v)), 1), ("tanh", np.tanh, 1), ("sin", np.sin, 1),
    ("cos", np.cos, 1), ("tan", np.tan, 1), ("atan", np.arctan, 1), ("sinh", np.sinh, 1),
    ("cosh", np.cosh, 1), ("asin", np.arcsin, 3), ("acos", np.arccos, 3),
    ("asinh", np.arcsinh, 1), ("atanh", np.arctanh, 3), ("acosh", np.arccosh, 4),
    ("reciprocal", np.reciprocal, 2), ("floor", np.floor, 1), ("ceil", np.ceil, 1),
    ("softplus", lambda v: np.log1p(np.exp(v)), 1), ("log_sigmoid", lambda v: -np.log1p(np.exp(-v)), 1),
    ("sign", np.sign, 1), ("round", np.round, 1), ("rint", np.rint, 1),
    ("is_nan", np.isnan, 1), ("is_inf", np.isinf, 1), ("is_finite", np.isfinite, 1),
]


@pytest.mark.parametrize("name,ref,domain", UNARY_FLOAT)
def test_unary_float_ops(name, ref, domain):
    v = RNG.normal(size=(3, 5)) * 2
    v = {1: v, 2: np.abs(v) + 0.1, 3: np.tanh(v) * 0.9, 4: np.abs(v) + 1.1}[domain]
    for dtype in (np.float32, np.float64):
        x = v.astype(dtype)
        out = getattr(tf.math, name)(tf.constant(x))
        want = ref(x)
        assert out.shape == x.shape
        if want.dtype == bool:
            assert out.dtype == torch.bool
            np.testing.assert_array_equal(arr(out), want)
        else:
            assert out.dtype == tf.as_dtype(np.dtype(dtype).name)
            np.testing.assert_allclose(arr(out), want, rtol=2e-6 if dtype == np.float32 else 1e-12,
                                       atol=1e-7)


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sigmoid", "tanh", "sin", "floor", "ceil",
                                  "rsqrt", "is_nan", "erf", "softplus", "reciprocal"])
def test_float_only_ops_refuse_integers(name):
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        getattr(tf.math, name)(tf.constant([1, 2]))


def test_integer_unary_ops_keep_dtype():
    x = tf.constant([-3, 0, 5], tf.int64)
    for name, ref in [("abs", np.abs), ("negative", np.negative), ("square", np.square),
                      ("sign", np.sign), ("round", lambda v: v)]:
        out = getattr(tf.math, name)(x)
        assert out.dtype == torch.int64
        np.testing.assert_array_equal(arr(out), ref(arr(x)))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.abs(tf.constant([True]))
    assert tf.abs(-2.5).tolist() == 2.5


def test_round_is_bankers():
    assert tf.round(tf.constant([0.5, 1.5, 2.5, -0.5, -1.5, 2.4])).tolist() == \
        [0.0, 2.0, 2.0, -0.0, -2.0, 2.0]


def test_special_functions():
    x = np.array([0.2, 0.5, 1.5, 3.0], np.float64)
    t = tf.constant(x)
    from math import erf, erfc, lgamma
    np.testing.assert_allclose(arr(tf.math.erf(t)), [erf(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(arr(tf.math.erfc(t)), [erfc(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(arr(tf.math.lgamma(t)), [lgamma(v) for v in x], rtol=1e-12)
    p = tf.constant([0.1, 0.5, 1.2], tf.float64)
    np.testing.assert_allclose(arr(tf.math.erfc(tf.math.erfcinv(p))), arr(p), rtol=1e-10)
    np.testing.assert_allclose(arr(tf.math.erf(tf.math.erfinv(tf.constant([-0.5, 0.3])))), [-0.5, 0.3],
                               rtol=1e-5)
    np.testing.assert_allclose(arr(tf.math.lbeta(tf.constant([[1.0, 2.0], [3.0, 4.0]]))),
                               [np.log(0.5), lgamma(3) + lgamma(4) - lgamma(7)], rtol=1e-6)


def test_comparisons_and_logic():
    a = RNG.integers(-3, 3, size=(4, 1)).astype(np.int32)
    b = RNG.integers(-3, 3, size=(5,)).astype(np.int32)
    for name, ref in [("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
                      ("less_equal", np.less_equal), ("greater", np.greater),
                      ("greater_equal", np.greater_equal)]:
        out = getattr(tf, name)(tf.constant(a), tf.constant(b))
        assert out.dtype == torch.bool and out.shape == (4, 5)
        np.testing.assert_array_equal(arr(out), ref(a, b))
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert arr(tf.logical_and(p, q)).tolist() == np.logical_and(p, q).tolist()
    assert arr(tf.logical_or(p, q)).tolist() == np.logical_or(p, q).tolist()
    assert arr(tf.math.logical_xor(p, q)).tolist() == np.logical_xor(p, q).tolist()
    assert arr(tf.logical_not(p)).tolist() == [False, False, True, True]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.logical_and(tf.constant([1]), tf.constant([0]))
    assert tf.equal(tf.constant([True, False]), True).tolist() == [True, False]


def test_strings_add_and_compare():
    s = tf.constant(["a", "b"])
    assert tf.add(s, "c").tolist() == ["ac", "bc"]
    assert tf.equal(s, "a").tolist() == [True, False]
    assert tf.not_equal(s, ["a", "c"]).tolist() == [False, True]


def test_add_n_and_scalar_mul():
    parts = [RNG.normal(size=(2, 3)).astype(np.float32) for _ in range(4)]
    np.testing.assert_allclose(arr(tf.add_n([tf.constant(p) for p in parts])), sum(parts), rtol=1e-6)
    assert tf.add_n([tf.constant([1.5])]).tolist() == [1.5]
    with pytest.raises(tf.errors.InvalidArgumentError, match="input #1"):
        tf.add_n([tf.constant([1.0]), tf.constant([1], tf.int32)])
    assert tf.math.accumulate_n([tf.constant([1]), tf.constant([2])]).tolist() == [3]
    assert tf.scalar_mul(2, tf.constant([1.0, 2.0])).tolist() == [2.0, 4.0]
    assert tf.scalar_mul(tf.constant(3), tf.constant([1, 2])).tolist() == [3, 6]
    with pytest.raises(ValueError, match="0-D"):
        tf.scalar_mul(tf.constant([2.0, 3.0]), tf.constant([1.0, 2.0]))


def test_pow_and_atan2():
    a = np.abs(RNG.normal(size=(3, 2))).astype(np.float32)
    np.testing.assert_allclose(arr(tf.pow(tf.constant(a), tf.constant([2.0, 0.5]))),
                               a ** np.array([2.0, 0.5], np.float32), rtol=1e-6)
    assert tf.pow(2, 10).tolist() == 1024
    y, x = np.array([1.0, -1.0, 0.5], np.float32), np.array([-1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(arr(tf.atan2(tf.constant(y), tf.constant(x))), np.arctan2(y, x),
                               rtol=1e-6)


def test_polyval_and_complex_parts():
    x = RNG.normal(size=5).astype(np.float64)
    np.testing.assert_allclose(arr(tf.math.polyval([1.0, -2.0, 0.5, 3.0], tf.constant(x))),
                               np.polyval([1.0, -2.0, 0.5, 3.0], x), rtol=1e-12)
    assert tf.math.polyval([], tf.constant([1.0, 2.0])).tolist() == [0.0, 0.0]
    z = tf.constant(np.array([3 + 4j, -1j]))
    assert arr(tf.math.real(z)).tolist() == [3.0, 0.0]
    assert arr(tf.math.imag(z)).tolist() == [4.0, -1.0]
    assert arr(tf.abs(z)).tolist() == [5.0, 1.0]
    assert arr(tf.math.conj(z)).tolist() == [3 - 4j, 1j]
    np.testing.assert_allclose(arr(tf.math.angle(tf.constant([-1.0, 2.0]))), [np.pi, 0], rtol=1e-6)


# --------------------------------------------------------------------------- reductions
REDUCE = [
    ("reduce_sum", np.sum), ("reduce_mean", np.mean), ("reduce_max", np.max),
    ("reduce_min", np.min), ("reduce_prod", np.prod),
    ("reduce_std", np.std), ("reduce_variance", np.var),
    ("reduce_logsumexp", lambda v, axis, keepdims: np.log(np.sum(np.exp(v), axis=axis,
                                                                 keepdims=keepdims))),
    ("reduce_euclidean_norm", lambda v, axis, keepdims: np.sqrt(np.sum(v * v, axis=axis,
                                                                        keepdims=keepdims))),
]


@pytest.mark.parametrize("name,ref", REDUCE)
@pytest.mark.parametrize("axis", [None, 0, -1, 1, [0, 2], [-1, 0, 1], (1,)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_float_reductions(name, ref, axis, keepdims):
    v = RNG.normal(size=(2, 3, 4)).astype(np.float64)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    out = getattr(tf.math, name)(tf.constant(v), axis=axis, keepdims=keepdims)
    want = ref(v, axis=np_axis, keepdims=keepdims)
    assert out.dtype == torch.float64
    assert tuple(out.shape) == np.shape(want)
    np.testing.assert_allclose(arr(out), want, rtol=1e-10)


@pytest.mark.parametrize("axis", [None, 0, -1, [0, 1]])
def test_integer_reductions_stay_integer(axis):
    v = RNG.integers(-20, 20, size=(3, 4)).astype(np.int32)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    t = tf.constant(v)
    for name, ref in [("reduce_sum", np.sum), ("reduce_max", np.max), ("reduce_min", np.min),
                      ("reduce_prod", np.prod)]:
        out = getattr(tf, name)(t, axis=axis)
        assert out.dtype == torch.int32, name
        np.testing.assert_array_equal(arr(out), ref(v, axis=np_axis).astype(np.int32))
    mean = tf.reduce_mean(t, axis=axis)
    assert mean.dtype == torch.int32
    total, count = np.sum(v, axis=np_axis), v.size // np.size(np.sum(v, axis=np_axis))
    np.testing.assert_array_equal(arr(mean), np.trunc(total / count).astype(np.int32))


def test_bool_reductions():
    v = RNG.random(size=(3, 4)) > 0.5
    for axis in (None, 0, -1, [0, 1]):
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        np.testing.assert_array_equal(arr(tf.reduce_any(v, axis=axis)), np.any(v, axis=np_axis))
        np.testing.assert_array_equal(arr(tf.reduce_all(v, axis=axis, keepdims=True)),
                                      np.all(v, axis=np_axis, keepdims=True))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.reduce_sum(tf.constant([True, False]))


def test_reduction_axis_none_keepdims_and_scalar():
    x = tf.ones([2, 3])
    assert tf.reduce_sum(x, keepdims=True).shape == (1, 1)
    assert tf.reduce_max(x, keepdims=True).shape == (1, 1)
    assert tf.reduce_sum(tf.constant(5.0)).tolist() == 5.0
    assert tf.reduce_sum(x, axis=tf.constant(1)).tolist() == [3.0, 3.0]
    assert tf.reduce_sum(x, axis=np.array([0, 1])).tolist() == 6.0
    assert tf.reduce_sum([[1, 2], [3, 4]], axis=0).dtype == torch.int32


def test_reduction_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"2 for input with 2 dimension"):
        tf.reduce_mean(tf.ones([2, 3]), axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="-3"):
        tf.reduce_max(tf.ones([2, 3]), axis=-3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate"):
        tf.reduce_prod(tf.ones([2, 3]), axis=[1, -1])
    with pytest.raises(TypeError, match="integer"):
        tf.math.reduce_variance(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.reduce_logsumexp(tf.constant([1, 2]))


def test_empty_reductions():
    e = tf.zeros([0, 3])
    assert tf.reduce_sum(e, axis=0).tolist() == [0.0, 0.0, 0.0]
    assert np.isnan(arr(tf.reduce_mean(e))).all()
    assert tf.reduce_max(e, axis=0).tolist() == [-np.inf] * 3
    assert tf.reduce_max(e, axis=1).shape == (0,)
    assert tf.reduce_min(tf.zeros([0], tf.int64)).tolist() == np.iinfo(np.int64).max
    assert tf.reduce_prod(e).tolist() == 1.0
    assert tf.reduce_logsumexp(e).tolist() == -np.inf
    assert np.isnan(arr(tf.math.reduce_std(tf.zeros([0]))))


def test_count_nonzero():
    v = RNG.integers(0, 3, size=(3, 4)).astype(np.int64)
    np.testing.assert_array_equal(arr(tf.math.count_nonzero(v)), np.count_nonzero(v))
    np.testing.assert_array_equal(arr(tf.math.count_nonzero(v, axis=-1)),
                                  np.count_nonzero(v, axis=-1))
    out = tf.math.count_nonzero(v, axis=0, keepdims=True, dtype=tf.int32)
    assert out.dtype == torch.int32 and out.shape == (1, 4)
    assert tf.math.count_nonzero(tf.constant(["", "a", "bc"])).tolist() == 2
    assert tf.math.count_nonzero(tf.constant([True, False, True])).tolist() == 2


# --------------------------------------------------------------------------- arg, scan, top_k
def test_argmax_argmin():
    v = RNG.normal(size=(3, 4, 5)).astype(np.float32)
    t = tf.constant(v)
    np.testing.assert_array_equal(arr(tf.argmax(t)), np.argmax(v, axis=0))
    np.testing.assert_array_equal(arr(tf.argmin(t, axis=-1)), np.argmin(v, axis=-1))
    out = tf.math.argmax(t, axis=1, output_type=tf.int32)
    assert out.dtype == torch.int32
    np.testing.assert_array_equal(arr(out), np.argmax(v, axis=1))
    assert tf.argmax(tf.constant([False, True])).tolist() == 1
    assert tf.argmax(tf.constant([[1, 3], [3, 1]]), axis=1).dtype == torch.int64
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.argmax(t, axis=[0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.argmax(t, output_type=tf.float32)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_cumprod(exclusive, reverse, axis):
    v = RNG.integers(1, 4, size=(3, 4)).astype(np.int32)

    def ref(fn, identity):
        w = np.flip(v, axis) if reverse else v
        out = fn(w, axis=axis)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis=axis), identity),
                                  np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out

    s = tf.cumsum(tf.constant(v), axis=axis, exclusive=exclusive, reverse=reverse)
    assert s.dtype == torch.int32
    np.testing.assert_array_equal(arr(s), ref(np.cumsum, 0))
    p = tf.math.cumprod(tf.constant(v), axis=axis, exclusive=exclusive, reverse=reverse)
    assert p.dtype == torch.int32
    np.testing.assert_array_equal(arr(p), ref(np.cumprod, 1))


def test_top_k():
    v = RNG.normal(size=(4, 10)).astype(np.float32)
    values, indices = tf.math.top_k(tf.constant(v), k=3)
    order = np.argsort(-v, axis=-1, kind="stable")[:, :3]
    np.testing.assert_array_equal(arr(indices), order)
    np.testing.assert_array_equal(arr(values), np.take_along_axis(v, order, axis=-1))
    assert indices.dtype == torch.int32
    result = tf.math.top_k(tf.constant([1, 3, 3, 2]), k=2)
    assert result.values.tolist() == [3, 3] and result.indices.tolist() == [1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least k"):
        tf.math.top_k(tf.constant([1.0]), k=2)
    mx = tf.math.approx_max_k(tf.constant([[1.0, 3.0, 2.0]]), 2)
    mn = tf.math.approx_min_k(tf.constant([[1.0, 3.0, 2.0]]), 2)
    assert mx.indices.tolist() == [[1, 2]] and mn.values.tolist() == [[1.0, 2.0]]


def test_in_top_k_counts_ties_as_in():
    preds = tf.constant([[0.1, 0.5, 0.5, 0.2], [0.9, 0.0, 0.0, 0.1]])
    assert tf.math.in_top_k(tf.constant([2, 3]), preds, 1).tolist() == [True, False]
    assert tf.math.in_top_k(tf.constant([3, 3]), preds, 2).tolist() == [False, True]


# --------------------------------------------------------------------------- segments
def _segment_ref(data, ids, n, fn, empty):
    out = np.full((n,) + data.shape[1:], empty, dtype=np.float64)
    for s in range(n):
        rows = data[ids == s]
        if len(rows):
            out[s] = fn(rows, axis=0)
    return out


@pytest.mark.parametrize("name,fn,empty", [
    ("segment_sum", np.sum, 0), ("segment_mean", np.mean, 0), ("segment_max", np.max, 0),
    ("segment_min", np.min, 0), ("segment_prod", np.prod, 1)])
def test_sorted_segments(name, fn, empty):
    data = RNG.normal(size=(7, 3))
    ids = np.array([0, 0, 1, 3, 3, 3, 5])
    out = getattr(tf.math, name)(tf.constant(data), tf.constant(ids))
    assert out.dtype == torch.float64 and out.shape == (6, 3)
    np.testing.assert_allclose(arr(out), _segment_ref(data, ids, 6, fn, empty), rtol=1e-12)


@pytest.mark.parametrize("name,fn,empty", [
    ("unsorted_segment_sum", np.sum, 0), ("unsorted_segment_mean", np.mean, 0),
    ("unsorted_segment_prod", np.prod, 1),
    ("unsorted_segment_max", np.max, np.finfo(np.float64).min),
    ("unsorted_segment_min", np.min, np.finfo(np.float64).max),
    ("unsorted_segment_sqrt_n", lambda r, axis: np.sum(r, axis) / np.sqrt(len(r)), 0)])
def test_unsorted_segments(name, fn, empty):
    data = RNG.normal(size=(8, 2))
    ids = np.array([3, -1, 0, 3, 1, 0, -1, 3])
    out = getattr(tf.math, name)(tf.constant(data), tf.constant(ids), num_segments=5)
    assert out.shape == (5, 2)
    np.testing.assert_allclose(arr(out), _segment_ref(data, ids, 5, fn, empty), rtol=1e-12)


def test_segment_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
        tf.math.segment_sum(tf.constant([1, 2]), tf.constant([1, 0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
        tf.math.segment_sum(tf.constant([1, 2]), tf.constant([0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        tf.math.unsorted_segment_sum(tf.constant([1, 2]), tf.constant([0, 2]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not start with"):
        tf.math.unsorted_segment_sum(tf.constant([1, 2]), tf.constant([0, 1, 1]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tindices"):
        tf.math.segment_sum(tf.constant([1, 2]), tf.constant([0.0, 1.0]))


# --------------------------------------------------------------------------- counting
def test_bincount():
    v = RNG.integers(0, 6, size=20).astype(np.int32)
    np.testing.assert_array_equal(arr(tf.math.bincount(v)), np.bincount(v))
    w = RNG.random(20).astype(np.float32)
    out = tf.math.bincount(tf.constant(v), weights=tf.constant(w), minlength=9)
    assert out.dtype == torch.float32
    np.testing.assert_allclose(arr(out), np.bincount(v, weights=w, minlength=9), rtol=1e-5)
    rows = RNG.integers(0, 4, size=(3, 5)).astype(np.int64)
    per_row = tf.math.bincount(tf.constant(rows), axis=-1)
    size = rows.max() + 1
    np.testing.assert_array_equal(arr(per_row), [np.bincount(r, minlength=size) for r in rows])
    np.testing.assert_array_equal(arr(tf.math.bincount(tf.constant(rows))),
                                  np.bincount(rows.reshape(-1)))
    assert tf.math.bincount(tf.zeros([0], tf.int32)).shape == (0,)
    with pytest.raises(ValueError, match="mutually exclusive"):
        tf.math.bincount(tf.constant([1]), weights=tf.constant([1.0]), binary_output=True)


def test_confusion_matrix():
    labels = RNG.integers(0, 4, size=30)
    preds = RNG.integers(0, 4, size=30)
    want = np.zeros((4, 4), np.int32)
    np.add.at(want, (labels, preds), 1)
    out = tf.math.confusion_matrix(tf.constant(labels), tf.constant(preds), num_classes=4)
    assert out.dtype == torch.int32
    np.testing.assert_array_equal(arr(out), want)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bound"):
        tf.math.confusion_matrix([0, 5], [0, 1], num_classes=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] and \[3\]"):
        tf.math.confusion_matrix([0, 1], [0, 1, 1])


def test_misc_tf_math():
    assert tf.math.invert_permutation([2, 0, 1]).tolist() == [1, 2, 0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.invert_permutation([0, 0])
    assert tf.math.is_non_decreasing([1, 1, 2]).tolist() is True
    assert tf.math.is_strictly_increasing([1, 1, 2]).tolist() is False
    assert tf.math.zero_fraction(tf.constant([0, 1, 0, 2])).tolist() == 0.5
    np.testing.assert_allclose(
        arr(tf.math.cumulative_logsumexp(tf.constant([0.0, 1.0, 2.0]), reverse=True)),
        np.log(np.cumsum(np.exp([0.0, 1.0, 2.0])[::-1]))[::-1], rtol=1e-6)


# --------------------------------------------------------------------------- autograd, speed
def test_gradients_flow_through_ops():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(tf.multiply(v, 2.0))) + tf.reduce_mean(tf.sigmoid(v))
    grad = tape.gradient(loss, v)
    s = 1 / (1 + np.exp(-np.array([1.0, 2.0, 3.0])))
    np.testing.assert_allclose(arr(grad), 8 * np.array([1.0, 2.0, 3.0]) + s * (1 - s) / 3,
                               rtol=1e-5)
