"""Tensor creation, shapes, casts and dtypes: tf.zeros/ones/fill/eye, tf.range, tf.linspace,
tf.shape/rank/size, tf.TensorShape, tf.cast, tf.identity, tf.stop_gradient, tf.dtypes."""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._ops import creation


def arr(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


def test_creation_names_are_top_level():
    for name in creation.__all__:
        # tf.<op> takes symbolic Keras tensors too: a wrapper around the same function
        assert inspect.unwrap(getattr(tf, name)) is getattr(creation, name), name


# --------------------------------------------------------------------------- zeros, ones, fill, eye
def test_zeros_ones_default_float32_and_shapes():
    z = tf.zeros([2, 3])
    assert z.dtype == torch.float32 and z.shape == (2, 3) and not z.any()
    assert tf.ones(3, dtype=tf.int64).tolist() == [1, 1, 1]
    assert tf.zeros(tf.constant([2, 1])).shape == (2, 1)
    assert tf.zeros(tf.TensorShape([4])).shape == (4,)
    assert tf.zeros(torch.Size([1, 2]), "bool").dtype == torch.bool
    assert tf.ones([]).shape == ()
    assert tf.zeros([2], tf.string).tolist() == ["", ""]
    with pytest.raises(tf.errors.InvalidArgumentError, match="-1"):
        tf.zeros([-1])
    with pytest.raises(ValueError, match="None"):
        tf.ones([None, 2])
    with pytest.raises(TypeError):
        tf.ones([1], tf.string)


def test_zeros_like_ones_like():
    x = tf.constant([[1, 2]])
    assert tf.zeros_like(x).dtype == torch.int32
    assert tf.ones_like(x, dtype=tf.float32).tolist() == [[1.0, 1.0]]
    assert tf.zeros_like([1.5, 2.0]).dtype == torch.float32
    assert tf.ones_like(tf.constant([True, False])).tolist() == [True, True]
    assert tf.zeros_like(tf.constant(["a", "b"])).tolist() == ["", ""]


def test_fill():
    assert tf.fill([2, 2], 9).dtype == torch.int32
    assert tf.fill([2], 1.5).tolist() == [1.5, 1.5]
    assert tf.fill([3], tf.constant(7, tf.int64)).dtype == torch.int64
    assert tf.fill([2], "ab").tolist() == ["ab", "ab"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.fill([2], [1, 2])


def test_eye():
    np.testing.assert_array_equal(arr(tf.eye(2, 3)), np.eye(2, 3))
    batch = tf.eye(3, batch_shape=[2, 4], dtype=tf.int32)
    assert batch.shape == (2, 4, 3, 3) and batch.dtype == torch.int32
    np.testing.assert_array_equal(arr(batch[1, 2]), np.eye(3))
    batch[0, 0, 0, 0] = 5  # a real tensor, not a broadcast view
    assert batch[1, 1, 0, 0] == 1


# --------------------------------------------------------------------------- range, linspace
def test_range_dtypes_follow_tf():
    assert tf.range(5).dtype == torch.int32 and tf.range(5).tolist() == [0, 1, 2, 3, 4]
    assert tf.range(1.0, 3).dtype == torch.float32
    assert tf.range(tf.constant(4, tf.int64)).dtype == torch.int64
    assert tf.range(tf.constant(1), tf.constant(5, tf.int64)).dtype == torch.int64
    assert tf.range(np.float64(3)).dtype == torch.float64
    assert tf.range(2**31 + 2, 2**31 + 4).dtype == torch.int64
    assert tf.range(3, dtype=tf.float64).dtype == torch.float64
    assert tf.range(10, 1, -3).tolist() == [10, 7, 4]
    np.testing.assert_allclose(arr(tf.range(0.0, 1.0, 0.1)), np.arange(0, 1, 0.1, dtype=np.float32),
                               rtol=1e-6)
    assert tf.range(5, 5).shape == (0,)


def test_range_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="delta != 0"):
        tf.range(0, 5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="start <= limit"):
        tf.range(5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="start >= limit"):
        tf.range(0, 5, -1)
    with pytest.raises(TypeError):
        tf.range(0.5, 3, dtype=tf.int32)


def test_linspace():
    np.testing.assert_allclose(arr(tf.linspace(0.0, 1.0, 5)), np.linspace(0, 1, 5))
    out = tf.linspace(0, 10, 4)
    assert out.dtype == torch.float64
    np.testing.assert_allclose(arr(out), np.linspace(0, 10, 4))
    batch = tf.linspace([0.0, 10.0], [1.0, 20.0], 3)
    assert batch.shape == (3, 2)
    np.testing.assert_allclose(arr(batch), np.linspace([0, 10], [1, 20], 3))
    np.testing.assert_allclose(arr(tf.linspace([0.0, 10.0], [1.0, 20.0], 3, axis=-1)),
                               np.linspace([0, 10], [1, 20], 3, axis=-1))
    assert tf.linspace(2.0, 5.0, 1).tolist() == [2.0]
    assert tf.linspace(2.0, 5.0, 0).shape == (0,)
    assert tf.linspace(0.0, 1.0, 7)[-1].item() == 1.0


# --------------------------------------------------------------------------- shapes
def test_shape_rank_size():
    x = tf.ones([2, 3, 4])
    s = tf.shape(x)
    assert s.dtype == torch.int32 and s.tolist() == [2, 3, 4]
    assert tf.shape(x, out_type=tf.int64).dtype == torch.int64
    assert tf.shape([[1, 2]]).tolist() == [1, 2]
    assert tf.shape(tf.constant(["a", "b"])).tolist() == [2]
    assert tf.rank(x).tolist() == 3 and tf.rank(x).dtype == torch.int32
    assert tf.size(x).tolist() == 24 and tf.size(x, out_type=tf.int64).dtype == torch.int64
    assert tf.size(tf.zeros([0, 3])).tolist() == 0
    assert [t.tolist() for t in tf.shape_n([tf.ones([2]), tf.ones([1, 3])])] == [[2], [1, 3]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out_type"):
        tf.shape(x, out_type=tf.float32)


def test_is_tensor():
    assert tf.is_tensor(tf.constant(1))
    assert tf.is_tensor(tf.Variable(1.0))
    assert not tf.is_tensor(np.ones(2))
    assert not tf.is_tensor(3)
    keras_input = tf.keras.Input(shape=(3,))
    assert tf.is_tensor(keras_input)


def test_tensorshape_basics():
    s = tf.TensorShape([2, None, 3])
    assert repr(s) == "TensorShape([2, None, 3])" and str(s) == "(2, None, 3)"
    assert str(tf.TensorShape([5])) == "(5,)" and str(tf.TensorShape([])) == "()"
    u = tf.TensorShape(None)
    assert repr(u) == "TensorShape(None)" and str(u) == "<unknown>"
    assert s.rank == 3 and s.ndims == 3 and u.rank is None
    assert s.as_list() == [2, None, 3]
    assert s[0] == 2 and s[1] is None and s[-1] == 3
    assert s[1:] == tf.TensorShape([None, 3]) and isinstance(s[1:], tf.TensorShape)
    assert u[0] is None and u[1:] == tf.TensorShape(None)
    assert len(s) == 3 and list(s) == [2, None, 3]
    assert [d.value for d in s.dims] == [2, None, 3] and s.dims[0] == 2 and u.dims is None
    assert bool(tf.TensorShape([])) and not bool(u)
    assert tf.TensorShape(3) == [3]
    assert tf.TensorShape(tf.constant([2, 3])) == (2, 3)
    with pytest.raises(IndexError):
        tf.TensorShape([2])[5]
    with pytest.raises(ValueError, match="unknown TensorShape"):
        u.as_list()
    with pytest.raises(ValueError, match="unknown rank"):
        len(u)
    with pytest.raises(ValueError, match="unknown rank"):
        list(u)
    with pytest.raises(ValueError, match="must be >= 0"):
        tf.TensorShape([-1])
    with pytest.raises(TypeError):
        tf.TensorShape("ab")


def test_tensorshape_equality_and_hash():
    s = tf.TensorShape([2, 3])
    assert s == [2, 3] and s == (2, 3) and s == torch.Size([2, 3]) and s == tf.TensorShape([2, 3])
    assert torch.ones(2, 3).shape == s
    assert s != [2, 4] and not (s != [2, 3])
    assert tf.TensorShape([None]) == tf.TensorShape([None])
    assert tf.TensorShape(None) == tf.TensorShape(None)
    assert s != "ab"
    assert hash(s) == hash(tf.TensorShape((2, 3)))
    assert {s: 1}[tf.TensorShape([2, 3])] == 1
    assert pickle.loads(pickle.dumps(s)) == s
    assert pickle.loads(pickle.dumps(tf.TensorShape(None))).rank is None


def test_tensorshape_compatibility():
    s = tf.TensorShape([2, None])
    assert s.is_compatible_with([2, 3]) and not s.is_compatible_with([3, 3])
    assert not s.is_compatible_with([2]) and s.is_compatible_with(tf.TensorShape(None))
    assert s.merge_with([None, 3]) == [2, 3]
    assert tf.TensorShape(None).merge_with([1]) == [1]
    with pytest.raises(ValueError, match="not compatible"):
        tf.TensorShape([2]).merge_with([3])
    with pytest.raises(ValueError, match="incompatible"):
        tf.TensorShape([2, 3]).assert_is_compatible_with([2, 4])
    assert tf.TensorShape([2, 3]).most_specific_compatible_shape([2, 4]) == [2, None]
    assert s.num_elements() is None and tf.TensorShape([2, 3]).num_elements() == 6
    assert tf.TensorShape([]).num_elements() == 1
    assert not s.is_fully_defined() and tf.TensorShape([1]).is_fully_defined()
    with pytest.raises(ValueError, match="not fully defined"):
        s.assert_is_fully_defined()
    assert tf.TensorShape([2]).concatenate([3, None]) == [2, 3, None]
    assert tf.TensorShape([2]).concatenate(tf.TensorShape(None)).rank is None
    assert tf.TensorShape([2]) + tf.TensorShape([4]) == [2, 4]
    assert [1] + tf.TensorShape([4]) == [1, 4]
    assert tf.TensorShape(None).with_rank(2) == [None, None]
    with pytest.raises(ValueError, match="rank 3"):
        tf.TensorShape([2, 3]).with_rank(3)
    with pytest.raises(ValueError, match="same rank"):
        tf.TensorShape([2, 3]).assert_same_rank([2])


def test_ensure_shape_and_broadcast_shapes():
    x = tf.ones([2, 3])
    assert tf.ensure_shape(x, [None, 3]) is x
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\].*\[\?,4\]"):
        tf.ensure_shape(x, [None, 4])
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])) == [2, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3])) == [None, 3]
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    out = tf.broadcast_dynamic_shape([2, 1], [3])
    assert out.tolist() == [2, 3] and out.dtype == torch.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] and \[3\]"):
        tf.broadcast_dynamic_shape([2], [3])


# --------------------------------------------------------------------------- cast, identity
def test_cast():
    f = tf.constant([-1.7, -0.5, 0.5, 1.7, 2.5])
    out = tf.cast(f, tf.int32)
    assert out.dtype == torch.int32
    np.testing.assert_array_equal(arr(out), np.trunc(arr(f)).astype(np.int32))
    assert tf.cast(tf.constant([0.0, 0.5, np.nan]), tf.bool).tolist() == [False, True, True]
    assert tf.cast(tf.constant([True, False]), "float32").tolist() == [1.0, 0.0]
    assert tf.cast(1.7, tf.int32).tolist() == 1
    assert tf.cast([1, 2], tf.float64).dtype == torch.float64
    assert tf.cast(np.array([1.5]), np.float32).dtype == torch.float32
    assert tf.cast(tf.constant(np.array([1 + 2j], np.complex64)), tf.float32).tolist() == [1.0]
    x = tf.constant([1.0])
    assert tf.cast(x, tf.float32) is x
    with pytest.raises(tf.errors.UnimplementedError, match="to_number"):
        tf.cast(tf.constant(["1"]), tf.int32)
    with pytest.raises(tf.errors.UnimplementedError, match="as_string"):
        tf.cast(tf.constant([1]), tf.string)


def test_cast_keeps_gradients():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.cast(v, tf.float64) * 3)
    assert tape.gradient(y, v).tolist() == [3.0, 3.0]


def test_saturate_cast():
    assert tf.saturate_cast(tf.constant([-1.0, 300.0, 255.7]), tf.uint8).tolist() == [0, 255, 255]
    assert tf.saturate_cast(tf.constant([-200, 300, 5]), tf.int8).tolist() == [-128, 127, 5]
    assert tf.saturate_cast(tf.constant([1e10]), tf.float16).tolist() == [65504.0]


def test_complex():
    z = tf.complex(tf.constant([1.0, 2.0]), tf.constant([3.0, -1.0]))
    assert z.dtype == torch.complex64 and z.tolist() == [1 + 3j, 2 - 1j]
    assert tf.complex(tf.constant([1.0], tf.float64), tf.constant([0.0], tf.float64)).dtype == \
        torch.complex128
    with pytest.raises(TypeError):
        tf.complex(tf.constant([1]), tf.constant([1]))


def test_identity_and_stop_gradient():
    x = tf.constant([1.0, 2.0])
    assert tf.identity(x) is x
    assert tf.identity([1, 2]).dtype == torch.int32
    v = tf.Variable([1.0, 2.0])
    snapshot = tf.identity(v)
    v.assign([5.0, 6.0])
    assert snapshot.tolist() == [1.0, 2.0]
    assert [t.tolist() for t in tf.identity_n([x, [3]])] == [[1.0, 2.0], [3]]
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.stop_gradient(v) * v)
    assert tape.gradient(y, v).tolist() == [5.0, 6.0]
    assert not tf.stop_gradient(v).requires_grad
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]


# --------------------------------------------------------------------------- dtypes
def test_dtypes_namespace():
    import torchestimator.dtypes as dtypes

    assert dtypes.float32 is torch.float32 and dtypes.complex128 is torch.complex128
    assert dtypes.as_dtype("int64") is torch.int64
    assert dtypes.cast(tf.constant([1.5]), dtypes.int32).tolist() == [1]
    assert dtypes.saturate_cast is inspect.unwrap(tf.saturate_cast)
    assert isinstance(torch.float32, dtypes.DType) and isinstance(dtypes.string, tf.DType)
    assert not isinstance("float32", tf.DType)
    assert tf.DType("float16") is torch.float16
    assert isinstance(tf.ones([1]).dtype, tf.DType)


def test_string_tensors_hold_any_bytes():
    """A serialized tf.train.Example passes through tf.constant (TF's string tensors hold
    bytes): UTF-8 text becomes str, other bytes stay bytes, and parse_example reads both."""
    binary = tf.train.Example(features=tf.train.Features(feature={
        "k": tf.train.Feature(int64_list=tf.train.Int64List(value=[192]))})).SerializeToString()
    text = tf.train.Example(features=tf.train.Features(feature={
        "k": tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))})).SerializeToString()
    assert b"\xc0" in binary  # 192 as a varint is not UTF-8
    t = tf.constant([binary, text, b"\xc0\x01", "caf\u00e9".encode()])
    assert list(t) == [binary, text.decode(), b"\xc0\x01", "caf\u00e9"]
    parsed = tf.io.parse_example(t[:2], {"k": tf.io.FixedLenFeature([1], tf.int64)})
    assert parsed["k"].tolist() == [[192], [1]]


def test_as_dtype_takes_tfs_datatype_enum_values():
    assert tf.as_dtype(1) is torch.float32 and tf.as_dtype(9) is torch.int64
    assert tf.as_dtype(7) is tf.string and tf.as_dtype(10) is torch.bool
    assert tf.zeros(1, 1).dtype == torch.float32  # tf.zeros(shape, dtype=1)
    with pytest.raises(ValueError, match="999.*DataType enum"):
        tf.as_dtype(999)
