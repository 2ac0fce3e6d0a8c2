"""TF 2.15's public methods the core classes lacked (tests/test_class_methods_parity.py):
`Tensor.ref` / `experimental_ref`, `compat.v1.Dimension`'s compatibility methods,
`TensorShape.is_subtype_of` / `most_specific_common_supertype`, `TensorSpec.from_spec` /
`from_tensor`. Expected values are TF 2.15.1's."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf

D = tf.compat.v1.Dimension
S = tf.TensorShape


# ------------------------------------------------------------------------- Tensor.ref
def test_tensor_ref_keys_dicts_and_sets_by_identity():
    x, y, z = tf.constant(5), tf.constant(10), tf.constant(10)
    tensor_set = {x.ref(), y.ref(), z.ref()}
    assert len(tensor_set) == 3 and x.ref() in tensor_set
    tensor_dict = {x.ref(): "five", y.ref(): "ten", z.ref(): "ten"}
    assert tensor_dict[y.ref()] == "ten"
    assert x.ref().deref() is x
    assert x.ref() == x.ref() and hash(x.ref()) == hash(x.ref())
    assert y.ref() != z.ref()  # equal values, different tensors


def test_tensor_ref_compares_only_with_references():
    x = tf.constant([1.0, 2.0])
    assert (x.ref() == x) is False and (x.ref() == None) is False  # noqa: E711
    assert x.ref() != x
    with pytest.raises(TypeError, match="Cannot compare wrapped object with unwrapped object"):
        _ = x.ref() < x
    a, b = x.ref(), tf.constant(1).ref()
    assert sorted([a, b]) == sorted([b, a])


def test_tensor_experimental_ref_is_ref():
    x = tf.constant([1, 2])
    assert x.experimental_ref() == x.ref()
    assert x.experimental_ref().deref() is x
    assert repr(x.ref()).startswith("<Reference wrapping ")


def test_variable_ref_is_the_same_kind_of_reference():
    v = tf.Variable(1.0)
    t = tf.constant(1.0)
    assert type(v.ref()) is type(t.ref())
    assert v.ref() == v.ref() and v.ref().deref() is v
    assert v.experimental_ref() == v.ref()
    assert {v.ref(): 1, t.ref(): 2}[v.ref()] == 1
    assert v.ref() != tf.Variable(1.0).ref()


# ------------------------------------------------------------------------- Dimension
@pytest.mark.parametrize("a, b, expected", [
    (3, 3, True), (3, D(4), False), (None, 4, True), (3, None, True), (None, D(None), True),
])
def test_dimension_is_compatible_with(a, b, expected):
    assert D(a).is_compatible_with(b) is expected


def test_dimension_is_compatible_with_refuses_what_is_no_dimension():
    with pytest.raises(TypeError):
        D(3).is_compatible_with("a")
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        D(3).is_compatible_with(-1)


def test_dimension_assert_is_compatible_with():
    D(3).assert_is_compatible_with(None)
    D(None).assert_is_compatible_with(D(None))
    with pytest.raises(ValueError, match="^Dimensions 3 and 4 are not compatible$"):
        D(3).assert_is_compatible_with(4)


def test_dimension_merge_with():
    assert repr(D(None).merge_with(3)) == "Dimension(3)"
    assert repr(D(3).merge_with(None)) == "Dimension(3)"
    assert repr(D(3).merge_with(D(3))) == "Dimension(3)"
    assert repr(D(None).merge_with(None)) == "Dimension(None)"
    with pytest.raises(ValueError, match="^Dimensions 3 and 4 are not compatible$"):
        D(3).merge_with(4)
    with pytest.raises(TypeError):
        D(3).merge_with(2.5)


# ------------------------------------------------------------------------- TensorShape
@pytest.mark.parametrize("a, b, expected", [
    ([32, 784], S([None, 784]), True), ([None, 784], S([32, 784]), False),
    ([32, 784], S(None), True), (None, S([1]), False), ([1], [1], False),
    ([1, 2], S([1]), False), (None, S(None), True),
])
def test_tensor_shape_is_subtype_of(a, b, expected):
    assert S(a).is_subtype_of(b) is expected


@pytest.mark.parametrize("a, others, expected", [
    ([2, 1], [S([5, 1])], [None, 1]), ([1, 2, 3], [S([1, 2])], None),
    ([1, 2], [S(None)], None), (None, [S([1])], None), ([1, 2], [], [1, 2]),
    ([2, None], [S([None, 3])], [None, None]), ([1, 2], [S([1, 2]), S([1, 3])], [1, None]),
])
def test_tensor_shape_most_specific_common_supertype(a, others, expected):
    common = S(a).most_specific_common_supertype(others)
    assert isinstance(common, S)
    assert common == S(expected) and common.rank == S(expected).rank


def test_tensor_shape_most_specific_common_supertype_of_no_shape_is_none():
    assert S([1, 2]).most_specific_common_supertype([[1, 2]]) is None
    assert S(None).most_specific_common_supertype([5]) is None


# ------------------------------------------------------------------------- TensorSpec
def test_tensor_spec_from_spec():
    spec = tf.TensorSpec([8, 3], tf.int32, "OriginalName")
    assert repr(tf.TensorSpec.from_spec(spec, "NewName")) == \
        "TensorSpec(shape=(8, 3), dtype=tf.int32, name='NewName')"
    assert repr(tf.TensorSpec.from_spec(spec)) == \
        "TensorSpec(shape=(8, 3), dtype=tf.int32, name='OriginalName')"
    assert repr(tf.TensorSpec.from_spec(spec, name="")) == \
        "TensorSpec(shape=(8, 3), dtype=tf.int32, name='OriginalName')"
    assert repr(tf.TensorSpec.from_spec(tf.TensorSpec(None, tf.string))) == \
        "TensorSpec(shape=<unknown>, dtype=tf.string, name=None)"
    assert repr(tf.TensorSpec.from_spec(tf.keras.Input([3], name="inp"))) == \
        "TensorSpec(shape=(None, 3), dtype=tf.float32, name='inp')"
    with pytest.raises(AttributeError):
        tf.TensorSpec.from_spec(3)


def test_tensor_spec_from_tensor():
    assert repr(tf.TensorSpec.from_tensor(tf.constant([1, 2]))) == \
        "TensorSpec(shape=(2,), dtype=tf.int32, name=None)"
    assert repr(tf.TensorSpec.from_tensor(tf.constant([1, 2]), name="x")) == \
        "TensorSpec(shape=(2,), dtype=tf.int32, name='x')"
    assert repr(tf.TensorSpec.from_tensor(tf.constant(1.5, dtype=tf.float64))) == \
        "TensorSpec(shape=(), dtype=tf.float64, name=None)"
    assert repr(tf.TensorSpec.from_tensor(tf.constant(["a"]))) == \
        "TensorSpec(shape=(1,), dtype=tf.string, name=None)"


def test_tensor_spec_from_tensor_of_a_placeholder_takes_its_name():
    # TF 2.15 in a graph: from_tensor(placeholder(tf.float32, [None, 2], name='ph'))
    ph = tf.compat.v1.placeholder(tf.float32, [None, 2], name="ph")
    assert repr(tf.TensorSpec.from_tensor(ph)) == \
        "TensorSpec(shape=(None, 2), dtype=tf.float32, name='ph')"
    assert tf.TensorSpec.from_tensor(ph, name="other").name == "other"


@pytest.mark.parametrize("value", [
    lambda: tf.Variable([1.0, 2.0]), lambda: [1, 2], lambda: np.zeros(3),
    lambda: tf.sparse.from_dense([[1]]), lambda: tf.keras.Input([3]),
    lambda: tf.ragged.constant([[1], [1, 2]]),
], ids=["variable", "list", "ndarray", "sparse", "keras_input", "ragged"])
def test_tensor_spec_from_tensor_refuses_what_is_no_tensor(value):
    with pytest.raises(ValueError, match="`tensor` should be a tf.Tensor, but got type"):
        tf.TensorSpec.from_tensor(value())
