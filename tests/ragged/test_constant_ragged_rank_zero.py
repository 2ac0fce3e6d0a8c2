"""`tf.ragged.constant` returns a Tensor when the ragged rank is 0, as TF 2.15's does: by
default for a scalar or a flat list, and when `ragged_rank=0` is given. Expected values were
printed by TF 2.15.1."""

import numpy as np
import pytest

import torchestimator as tf


@pytest.mark.parametrize("pylist, kwargs, dtype, values", [
    ([1, 2], {}, tf.int32, [1, 2]),
    (5, {}, tf.int32, 5),
    ([], {}, tf.float32, []),
    ([], {"dtype": tf.int64}, tf.int64, []),
    ([1.5, 2], {"dtype": tf.float64}, tf.float64, [1.5, 2.0]),
    ([[1, 2], [3, 4]], {"ragged_rank": 0}, tf.int32, [[1, 2], [3, 4]]),
    ([[[1, 2], [3, 4]]], {"ragged_rank": 0}, tf.int32, [[[1, 2], [3, 4]]]),
])
def test_ragged_rank_zero_gives_a_dense_tensor(pylist, kwargs, dtype, values):
    out = tf.ragged.constant(pylist, **kwargs)
    assert not isinstance(out, tf.RaggedTensor) and tf.is_tensor(out)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), np.array(values))


def test_a_nested_list_is_still_ragged_and_an_empty_row_list_too():
    assert tf.ragged.constant([[1, 2], [3]]).to_list() == [[1, 2], [3]]
    empty = tf.ragged.constant([[]])
    assert isinstance(empty, tf.RaggedTensor) and empty.to_list() == [[]]
    inner = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(2,))
    assert isinstance(inner, tf.RaggedTensor) and inner.ragged_rank == 1


def test_what_cannot_be_dense_or_ragged_is_refused():
    with pytest.raises(ValueError):
        tf.ragged.constant([[1, 2], [3]], ragged_rank=0)  # not rectangular
    with pytest.raises(ValueError, match="incompatible with ragged_rank=1"):
        tf.ragged.constant(5, ragged_rank=1)
    with pytest.raises(ValueError, match=r"4 values; inner_shape=\[2\]"):
        tf.ragged.constant([[1, 2], [3, 4]], inner_shape=(2,))  # TF: ragged rank 0, shape (2,)


def test_compat_v1_constant_value_of_rank_zero_is_a_numpy_array():
    flat = tf.compat.v1.ragged.constant_value([1, 2])
    assert isinstance(flat, np.ndarray) and flat.dtype == np.int64 and flat.tolist() == [1, 2]
    square = tf.compat.v1.ragged.constant_value([[1, 2]], ragged_rank=0)
    assert isinstance(square, np.ndarray) and square.tolist() == [[1, 2]]
