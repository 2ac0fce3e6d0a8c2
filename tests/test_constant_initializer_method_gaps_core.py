"""`tf.constant_initializer` is TF 2.15's own `init_ops_v2.Constant(value=0,
support_partition=False)`, not Keras' `Constant(value=0)`: a dtype of None gives the value's
dtype, strings are accepted, the partition keywords are refused unless `support_partition`.
Every place taking an initializer takes it. Expected values are TF 2.15.1's."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import torchestimator as tf


def test_signature_and_class():
    init = tf.constant_initializer
    assert str(inspect.signature(init)) == "(value: 'Any' = 0, support_partition: 'bool' = False) -> 'None'"
    assert init is not tf.keras.initializers.Constant
    assert tf.keras.initializers.Constant(2.0).get_config() == {"value": 2.0}  # Keras' is unchanged
    c = init(1)
    assert c.value == 1 and c.support_partition is False


@pytest.mark.parametrize("value, shape, dtype, expected, expected_dtype", [
    (2.0, [2], None, [2.0, 2.0], torch.float32),
    (2.0, [2], "float64", [2.0, 2.0], torch.float64),
    (2, [2], None, [2, 2], torch.int32),
    ([1, 2], [2], None, [1, 2], torch.int32),
    (0, [2], None, [0, 0], torch.int32),
    (True, [2], None, [True, True], torch.bool),
    (np.float32(1.5), [2], None, [1.5, 1.5], torch.float32),
    (np.array([[1.0, 2.0]]), [2, 1], None, [[1.0], [2.0]], torch.float64),
    (7, [], None, 7, torch.int32),
    ([5], [2, 2], None, [[5, 5], [5, 5]], torch.int32),
    ((1.0, 2.0), [1, 2], None, [[1.0, 2.0]], torch.float32),
    (1, [2], tf.bfloat16, [1.0, 1.0], torch.bfloat16),
    (-1, [1], tf.uint8, [255], torch.uint8),
])
def test_values_as_tensorflows(value, shape, dtype, expected, expected_dtype):
    out = tf.constant_initializer(value)(shape=shape, dtype=dtype)
    assert out.dtype == expected_dtype
    assert out.tolist() == expected


def test_default_value_and_a_string_value():
    assert tf.constant_initializer()([2]).tolist() == [0, 0]
    assert list(tf.constant_initializer("ab")([2])) == ["ab", "ab"]


@pytest.mark.parametrize("value, name", [(None, "NoneType"), ({}, "dict"),
                                         (torch.tensor(1.0), "Tensor")])
def test_value_must_be_a_scalar_list_tuple_or_array(value, name):
    with pytest.raises(TypeError, match=f"^Invalid type for initial value: {name}. Expected "
                                        "Python scalar, list or tuple of values, or numpy.ndarray.$"):
        tf.constant_initializer(value)


@pytest.mark.parametrize("value, shape", [([1, 2, 3], [2]), ([1, 2], [2, 2]), ([1, 2], [1])])
def test_a_value_of_another_size_is_a_type_error(value, shape):
    with pytest.raises(TypeError, match="Eager execution of tf.constant with unsupported shape"):
        tf.constant_initializer(value)(shape)


def test_partition_arguments_need_support_partition():
    with pytest.raises(ValueError, match="^Constant initializer doesn't support partition-related "
                                         "arguments$"):
        tf.constant_initializer(2.0)([2], partition_shape=[1])
    out = tf.constant_initializer(2.0, support_partition=True)(
        [2], partition_shape=[1], partition_offset=[0])
    assert out.tolist() == [2.0, 2.0]  # TF's Constant gives the value of `shape` then too
    with pytest.raises(TypeError, match=r"^Keyword argument should be one of \['partition_shape', "
                                        r"'partition_offset'\]. Received: foo$"):
        tf.constant_initializer(2.0)([2], foo=1)


def test_config_round_trip():
    assert tf.constant_initializer([1, 2, 3, 4]).get_config() == {"value": [1, 2, 3, 4]}
    assert tf.constant_initializer(2.0, support_partition=True).get_config() == {"value": 2.0}
    restored = tf.constant_initializer.from_config({"value": 3, "dtype": "x"})
    assert restored([1]).tolist() == [3] and restored([1]).dtype == torch.int32


def test_keras_layers_take_it_and_serialize_it_as_tensorflow():
    init = tf.constant_initializer([1, 2, 3, 4, 5, 6])
    assert tf.keras.initializers.get(init) is init
    layer = tf.keras.layers.Dense(2, kernel_initializer=init,
                                  bias_initializer=tf.constant_initializer(3))
    layer.build((None, 3))
    assert layer.kernel.dtype == torch.float32
    assert layer.kernel.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert layer.bias.numpy().tolist() == [3.0, 3.0]
    config = layer.get_config()["kernel_initializer"]
    assert config["class_name"] == "Constant" and config["config"] == {"value": [1, 2, 3, 4, 5, 6]}
    # TF 2.15 reads it back as Keras' Constant
    restored = tf.keras.layers.Dense.from_config(layer.get_config())
    assert type(restored.kernel_initializer) is tf.keras.initializers.Constant


def test_get_variable_and_variable_take_it():
    v1 = tf.compat.v1
    v1.reset_default_graph()
    try:
        x = v1.get_variable("x_const_init", [2], initializer=tf.constant_initializer(3.0))
        xi = v1.get_variable("xi_const_init", [2], initializer=tf.constant_initializer(3))
        xj = v1.get_variable("xj_const_init", [2], dtype=tf.int32,
                             initializer=tf.constant_initializer(3))
    finally:
        v1.reset_default_graph()
    assert x.dtype == torch.float32 and x.numpy().tolist() == [3.0, 3.0]
    assert xi.dtype == torch.float32 and xi.numpy().tolist() == [3.0, 3.0]
    assert xj.dtype == torch.int32 and xj.numpy().tolist() == [3, 3]
    v = tf.Variable(tf.constant_initializer([1, 2])(shape=[2]))
    assert v.dtype == torch.int32 and v.numpy().tolist() == [1, 2]


def test_compat_v1_keeps_its_tf1_constant_initializer():
    init = tf.compat.v1.constant_initializer(2, dtype=tf.float32)
    assert init([2]).dtype == torch.float32
