"""TF 2.15's `tf.errors.OpError(node_def, op, message, error_code, *args)` and
`tf.as_dtype(type_value)`."""

from __future__ import annotations

import pytest

import torchestimator as tf


def test_op_error_takes_error_code_fourth_and_by_name():
    error = tf.errors.OpError(None, None, "went wrong", tf.errors.INVALID_ARGUMENT)
    assert error.error_code == 3 and error.message == "went wrong" and str(error) == "went wrong"
    assert error.experimental_payloads == {}
    named = tf.errors.OpError(node_def=None, op=None, message="m", error_code=tf.errors.NOT_FOUND)
    assert named.error_code == 5
    with pytest.raises(tf.errors.OpError):
        raise named
    assert tf.compat.v1.OpError is tf.errors.OpError


def test_subclasses_keep_their_code_and_take_payloads_fourth():
    error = tf.errors.InvalidArgumentError(None, None, "m", {"key": 1})
    assert error.error_code == tf.errors.INVALID_ARGUMENT
    assert error.experimental_payloads == {"key": 1}
    assert tf.errors.NotFoundError(None, None, "gone").error_code == tf.errors.NOT_FOUND
    assert tf.errors.OpError("just a message").message == "just a message"


def test_as_dtype_takes_type_value():
    assert tf.as_dtype(type_value="float64") is tf.float64
    assert tf.dtypes.as_dtype(type_value="int8") is tf.int8
