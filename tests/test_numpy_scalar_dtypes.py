"""A numpy scalar keeps its dtype when it becomes a tensor, as in TF 2.15: `np.float64(1.5)`
is a subclass of Python's float, but `tf.constant` of it is float64, not the float32 of a
Python float. Beside a tensor (a binary op's dtype hint) it takes the tensor's dtype. The
expected dtypes were printed by TF 2.15.1."""

import numpy as np
import pytest

import torchestimator as tf


@pytest.mark.parametrize("value, dtype", [
    (np.float64(1.5), tf.float64),
    (np.float32(1.5), tf.float32),
    (np.float16(1.5), tf.float16),
    (np.complex128(1j), tf.complex128),
    (1.5, tf.float32),
    (np.int64(3), tf.int64),
    (3, tf.int32),
])
def test_constant_keeps_a_numpy_scalars_dtype(value, dtype):
    assert tf.constant(value).dtype == dtype
    assert tf.convert_to_tensor(value).dtype == dtype


def test_beside_a_tensor_or_with_a_dtype_the_scalar_takes_that_dtype():
    assert (tf.ones([2]) * np.float64(2.0)).dtype == tf.float32
    assert tf.convert_to_tensor(np.float64(2.0), dtype=tf.float32).dtype == tf.float32
    assert float(tf.constant(np.float64(0.1))) == 0.1  # no float32 rounding
