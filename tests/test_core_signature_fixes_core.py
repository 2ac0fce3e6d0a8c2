"""TF 2.15's signatures of `tf.Variable.assign*` (use_locking=False), the private
`tf.RaggedTensor(values, row_partition, internal=False)` and
`tf.TensorArraySpec.is_compatible_with(other)`."""

from __future__ import annotations

import inspect

import pytest

import torchestimator as tf


def test_variable_assign_use_locking_is_false_by_default_and_accepted():
    v = tf.Variable([1.0, 2.0])
    for method in (v.assign, v.assign_add, v.assign_sub):
        assert inspect.signature(method).parameters["use_locking"].default is False
    assert v.assign([3.0, 4.0], False).tolist() == [3.0, 4.0]
    assert v.assign_add([1.0, 1.0], use_locking=True).tolist() == [4.0, 5.0]
    assert v.assign_sub([1.0, 1.0], False).tolist() == [3.0, 4.0]
    assert v[0].assign(9.0, False).tolist() == [9.0, 4.0]


def test_ragged_tensor_constructor_is_private_as_tfs():
    with pytest.raises(ValueError, match="constructor is private"):
        tf.RaggedTensor([1, 2], [0, 2])
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 3])
    same = tf.RaggedTensor(values=rt.values, row_partition=rt.row_splits, internal=True)
    assert same.to_list() == [[1, 2], [3]]
    uniform = tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4], 2)
    assert uniform.to_list() == [[1, 2], [3, 4]] and uniform.uniform_row_length is not None


def test_tensor_array_spec_is_compatible_with_other():
    spec = tf.TensorArraySpec([None, 2], tf.float32)
    assert spec.is_compatible_with(other=tf.TensorArraySpec([3, 2], tf.float32, infer_shape=False))
    assert not spec.is_compatible_with(other=tf.TensorArraySpec([3, 2], tf.float32, dynamic_size=True))
    assert not spec.is_compatible_with(tf.TensorArraySpec([3, 3], tf.float32))
    assert spec.is_compatible_with(tf.TensorArray(tf.float32, size=2))
