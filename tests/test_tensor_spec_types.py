"""TensorSpec's type relations, as TF 2.15's (the expected values were printed by TF 2.15.1):
`is_compatible_with` checks the dtype as well as the shape and takes specs and tensors only;
`is_subtype_of`, `most_specific_common_supertype` and `most_specific_compatible_type`."""

import numpy as np
import pytest

import torchestimator as tf


def test_is_compatible_with_checks_dtype_and_shape_of_tensors_and_specs():
    spec = tf.TensorSpec([2, None], tf.float32, name="a")
    assert spec.is_compatible_with(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert not spec.is_compatible_with(tf.constant([[1, 2], [3, 4]]))  # int32
    assert not spec.is_compatible_with(tf.constant([[1.0, 2.0]]))  # 1 row, not 2
    assert spec.is_compatible_with(tf.TensorSpec([2, 3], tf.float32, "another name"))
    assert spec.is_compatible_with(tf.TensorSpec(None, tf.float32))
    assert not spec.is_compatible_with(tf.TensorSpec([2, 3], tf.float64))
    assert tf.TensorSpec([], tf.string).is_compatible_with(tf.constant("x"))


def test_numpy_arrays_and_lists_are_not_tensors():
    spec = tf.TensorSpec([2, None], tf.float32)
    assert not spec.is_compatible_with(np.zeros((2, 3), np.float32))
    assert not spec.is_compatible_with([[1.0, 2.0], [3.0, 4.0]])


def test_is_subtype_of():
    general = tf.TensorSpec([None, 4], tf.float32)
    assert tf.TensorSpec([2, 4], tf.float32).is_subtype_of(general)
    assert not tf.TensorSpec([2, 4], tf.float32, "x").is_subtype_of(general)  # TF: named ones
    assert tf.TensorSpec([2, 4], tf.float32).is_subtype_of(  # are not subtypes of unnamed ones
        tf.TensorSpec([None, 4], tf.float32, "x"))
    assert tf.TensorSpec([2, 4], tf.float32, "x").is_subtype_of(
        tf.TensorSpec([None, 4], tf.float32, "x"))
    assert not tf.TensorSpec([2, 4], tf.float32, "x").is_subtype_of(
        tf.TensorSpec([None, 4], tf.float32, "y"))
    assert tf.TensorSpec([2, 4], tf.float32).is_subtype_of(tf.TensorSpec(None, tf.float32))
    assert not tf.TensorSpec(None, tf.float32).is_subtype_of(tf.TensorSpec([2], tf.float32))
    assert not tf.TensorSpec([2], tf.float32).is_subtype_of(tf.TensorSpec([2], tf.float64))


@pytest.mark.parametrize("first, others, expected", [
    (([2, 4], tf.float32, "a"), [([3, 4], tf.float32, "a")],
     "TensorSpec(shape=(None, 4), dtype=tf.float32, name='a')"),
    (([2, 4], tf.float32, None), [([2, 4, 1], tf.float32, None)],
     "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)"),
    (([2, 4], tf.float32, None), [], "TensorSpec(shape=(2, 4), dtype=tf.float32, name=None)"),
    (([2, None], tf.float32, "a"), [([3, 4], tf.float32, "b")], "None"),
    (([2], tf.float32, "a"), [([2], tf.float32, None)], "None"),
    (([2, 4], tf.float32, None), [([2, 4], tf.int32, None)], "None"),
])
def test_most_specific_common_supertype(first, others, expected):
    common = tf.TensorSpec(*first).most_specific_common_supertype(
        [tf.TensorSpec(*other) for other in others])
    assert repr(common) == expected


def test_most_specific_compatible_type_is_tf1s_name_and_raises_without_one():
    common = tf.TensorSpec([2, 4], tf.float32).most_specific_compatible_type(
        tf.TensorSpec([3, 4], tf.float32))
    assert common == tf.TensorSpec([None, 4], tf.float32)
    with pytest.raises(ValueError, match="No TypeSpec is compatible with both"):
        tf.TensorSpec([2, 4], tf.float32).most_specific_compatible_type(
            tf.TensorSpec([3, 4], tf.int32))


def test_a_composite_spec_holding_tensor_specs_finds_their_common_supertype():
    left = tf.OptionalSpec(tf.TensorSpec([2], tf.float32))
    right = tf.OptionalSpec(tf.TensorSpec([3], tf.float32))
    assert left.most_specific_common_supertype([right]) == tf.OptionalSpec(
        tf.TensorSpec([None], tf.float32))
