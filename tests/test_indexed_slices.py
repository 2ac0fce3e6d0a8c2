"""tf.IndexedSlices / IndexedSlicesSpec / SparseTensorSpec / type_spec_from_value against
TF 2.15 (values recorded by tools/make_tf_api_types_fixtures.py)."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf
from _api_types_fixtures import FIXTURES

TF = FIXTURES["indexed_slices"]
SPECS = FIXTURES["type_specs"]


def _slices():
    return tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([0, 2]), tf.constant([3, 2]))


def test_convert_to_tensor_gives_the_dense_tensor_and_sums_repeats():
    s = _slices()
    assert tf.convert_to_tensor(s).tolist() == TF["dense"]
    repeated = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([0, 0]), tf.constant([3, 2]))
    assert tf.convert_to_tensor(repeated).tolist() == TF["repeated"]
    assert tf.convert_to_tensor(-s).tolist() == TF["neg"]
    assert tf.reduce_sum(s).item() == TF["reduce_sum"]  # ops take it through convert_to_tensor
    np.testing.assert_array_equal(np.asarray(s), TF["dense"])


def test_attributes_and_spec_as_tfs():
    s = _slices()
    assert s.shape.as_list() == TF["shape"] and s.dtype == tf.float32
    assert s.values.tolist() == [[1.0, 2.0], [3.0, 4.0]] and s.indices.tolist() == [0, 2]
    assert s.dense_shape.tolist() == [3, 2]
    assert repr(s._type_spec) == TF["spec"] and repr(tf.type_spec_from_value(s)) == TF["spec"]
    assert repr(tf.IndexedSlicesSpec(shape=[3, 2], dtype=tf.float32)) == TF["default_spec"]


def test_without_dense_shape_conversion_is_tfs_error():
    s = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]))
    with pytest.raises(ValueError, match="Tensor conversion requested for IndexedSlices for argument `value` "
                                         "without dense_shape"):
        tf.convert_to_tensor(s)


def test_type_specs():
    assert repr(tf.SparseTensorSpec([2, 3], tf.int32)) == SPECS["sparse_spec"]
    assert repr(tf.type_spec_from_value(tf.sparse.from_dense(tf.constant([[1, 0]])))) == SPECS["from_sparse"]
    assert tf.SparseTensorSpec([2, None]).is_compatible_with(tf.SparseTensorSpec([2, 3])) == SPECS["compatible"]
    assert repr(tf.SparseTensorSpec([2, 3]).most_specific_common_supertype([tf.SparseTensorSpec([3, 3])])) == \
        SPECS["supertype"]
    spec = tf.type_spec_from_value(tf.constant([1, 2]))
    assert isinstance(spec, tf.TypeSpec) and spec.shape == (2,) and spec.dtype == tf.int32
    opt = tf.experimental.Optional.from_value(tf.constant([1, 2]))
    assert isinstance(tf.type_spec_from_value(opt), tf.OptionalSpec)
    with pytest.raises(TypeError, match="Could not build a TypeSpec"):
        tf.type_spec_from_value(object())


def test_register_tensor_conversion_function_is_consulted():
    class Meters:
        def __init__(self, value):
            self.value = value

    tf.register_tensor_conversion_function(Meters, lambda v, dtype=None, name=None, as_ref=False:
                                           tf.constant(v.value, dtype=dtype or tf.float32))
    assert tf.convert_to_tensor(Meters(2.5)).item() == 2.5
    assert tf.add(Meters(1.0), tf.constant(1.0)).item() == 2.0
    with pytest.raises(TypeError, match="Python numeric types"):
        tf.register_tensor_conversion_function(float, lambda *a, **k: None)
