"""`tf.SparseTensor.from_value`, `get_shape`, `set_shape`, `with_values` (TF 2.15's public
methods it lacked; tests/test_class_methods_parity.py). Expected values are TF 2.15.1's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf


def _st():
    return tf.SparseTensor([[0, 0], [1, 2]], [1, 2], [3, 4])


def test_get_shape_is_a_tensor_shape():
    shape = _st().get_shape()
    assert isinstance(shape, tf.TensorShape)
    assert shape.as_list() == [3, 4] and repr(shape) == "TensorShape([3, 4])"


@pytest.mark.parametrize("shape", [[3, 4], [3, None], None, tf.TensorShape([3, 4]),
                                   tf.TensorShape(None), (None, 4)])
def test_set_shape_accepts_a_compatible_shape(shape):
    st = _st()
    assert st.set_shape(shape) is None
    assert st.shape == (3, 4)


@pytest.mark.parametrize("shape, message", [
    ([1, 4], "Shapes (3, 4) and (1, 4) are not compatible"),
    ([3], "Shapes (3, 4) and (3,) are not compatible"),
])
def test_set_shape_refuses_an_incompatible_shape(shape, message):
    with pytest.raises(ValueError) as info:
        _st().set_shape(shape)
    assert str(info.value) == message


def test_with_values_keeps_indices_and_shape():
    st = _st()
    out = st.with_values([1.5, 2.5])
    assert out.dtype == torch.float32
    assert tf.sparse.to_dense(out).tolist() == [[1.5, 0.0, 0.0, 0.0], [0.0, 0.0, 2.5, 0.0],
                                                [0.0, 0.0, 0.0, 0.0]]
    assert out.indices.tolist() == st.indices.tolist() and out.shape == st.shape
    assert st.values.tolist() == [1, 2]  # the original is unchanged
    strings = st.with_values(["a", "b"])
    assert strings.dtype == tf.string and list(strings.values) == ["a", "b"]


def test_with_values_needs_one_value_per_index():
    with pytest.raises(ValueError):
        _st().with_values([1.0, 2.0, 3.0])


def test_from_value_of_a_sparse_tensor_value_and_of_a_sparse_tensor():
    value = tf.compat.v1.SparseTensorValue([[0, 0]], [1], [2, 2])
    out = tf.SparseTensor.from_value(value)
    assert isinstance(out, tf.SparseTensor)
    assert tf.sparse.to_dense(out).tolist() == [[1, 0], [0, 0]]
    st = _st()
    copy = tf.sparse.SparseTensor.from_value(st)
    assert copy is not st  # TF 2.15 builds a new one
    assert tf.sparse.to_dense(copy).tolist() == [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
    assert tf.compat.v1.SparseTensor.from_value(st).dense_shape.tolist() == [3, 4]


def test_from_value_refuses_anything_else():
    with pytest.raises(TypeError, match=r"^Argument sparse_tensor_value=\[1\] is neither a "
                                        r"SparseTensor nor SparseTensorValue\.$"):
        tf.SparseTensor.from_value([1])
    with pytest.raises(TypeError):
        tf.SparseTensor.from_value((np.array([[0]]), np.array([1]), np.array([2])))
