"""tf.compat.v1.ragged: tf.ragged's ops and TF1's constant_value (RaggedTensorValue)."""

import numpy as np
import pytest

import torchestimator as tf


def test_constant_value_builds_numpy_ragged_values():
    value = tf.compat.v1.ragged.constant_value([[1, 2], [3]])
    assert isinstance(value, tf.compat.v1.ragged.RaggedTensorValue)
    assert value.to_list() == [[1, 2], [3]] and value.shape == (2, None)
    assert value.dtype == np.int64 and value.row_splits.tolist() == [0, 2, 3]
    assert isinstance(value.values, np.ndarray) and value.ragged_rank == 1
    floats = tf.compat.v1.ragged.constant_value([[1.5], []])
    assert floats.dtype == np.float64 and floats.to_list() == [[1.5], []]
    assert tf.compat.v1.ragged.constant_value([[1]], dtype=tf.int32).dtype == np.int32


def test_constant_value_nests_and_keeps_inner_shapes():
    deep = tf.compat.v1.ragged.constant_value([[[1, 2], [3]], [[4]]])
    assert deep.ragged_rank == 2 and deep.shape == (2, None, None)
    assert [s.tolist() for s in deep.nested_row_splits] == [[0, 2, 3], [0, 2, 3, 4]]
    assert deep.to_list() == [[[1, 2], [3]], [[4]]]
    assert deep.flat_values.tolist() == [1, 2, 3, 4]
    inner = tf.compat.v1.ragged.constant_value([[[1.0], [2.0]], []], ragged_rank=1)
    assert inner.shape == (2, None, 1) and inner.to_list() == [[[1.0], [2.0]], []]
    assert "row_splits=array([0, 2, 2])" in repr(inner)


def test_ragged_tensor_value_checks_its_splits_and_v2_ops_are_there():
    with pytest.raises(TypeError, match="row_splits"):
        tf.compat.v1.ragged.RaggedTensorValue(np.array([1, 2]), np.array([0.0, 2.0]))
    made = tf.compat.v1.ragged.RaggedTensorValue(np.array([1, 2, 3]), np.array([0, 1, 3]))
    assert made.to_list() == [[1], [2, 3]]
    assert tf.compat.v1.ragged.range([3, 1]).to_list() == [[0, 1, 2], [0]]
    assert tf.compat.v1.ragged.constant([[1], [2, 3]]).to_list() == [[1], [2, 3]]
