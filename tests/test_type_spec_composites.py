"""`tf.RaggedTensorSpec` / `tf.SparseTensorSpec` are `tf.TypeSpec`s and
`tf.type_spec_from_value` gives them, as in TF 2.15 (tests/fixtures/tf_sparse_flow.json,
tools/make_tf_sparse_flow_fixtures.py)."""

import json
import os

import pytest

import torchestimator as tf

FX = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures",
                                 "tf_sparse_flow.json")))["specs"]


def test_type_spec_from_value():
    r = tf.ragged.constant([[1, 2], [3]])
    spec = tf.type_spec_from_value(r)
    assert repr(spec) == FX["ragged_spec"]
    assert isinstance(spec, tf.TypeSpec) is FX["ragged_is_typespec"]
    assert isinstance(spec, tf.RaggedTensorSpec)
    r3 = tf.ragged.constant([[[1.0]], [[2.0], [3.0]]])
    assert repr(tf.type_spec_from_value(r3)) == FX["ragged3_spec"]
    sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 3]],
                         [1.0, 2.0, 3.0, 4.0, 5.0], [3, 4])
    assert repr(tf.type_spec_from_value(sp)) == FX["sparse_spec"]


def test_subclasses_of_type_spec():
    assert issubclass(tf.RaggedTensorSpec, tf.TypeSpec) is FX["issub_ragged"]
    assert issubclass(tf.SparseTensorSpec, tf.TypeSpec) is FX["issub_sparse"]


def test_ragged_spec_relations():
    r = tf.ragged.constant([[1, 2], [3]])
    a = tf.RaggedTensorSpec([2, None], tf.int32, 1)
    assert tf.RaggedTensorSpec([None, None], tf.int32, 1).is_compatible_with(r) \
        is FX["ragged_compat"]
    assert repr(a.most_specific_common_supertype([tf.RaggedTensorSpec([3, None], tf.int32, 1)])) \
        == FX["ragged_common"]
    assert a.is_subtype_of(tf.RaggedTensorSpec([None, None], tf.int32, 1)) is FX["ragged_subtype"]
    assert not a.is_subtype_of(tf.RaggedTensorSpec([None, None], tf.float32, 1))
    assert a.most_specific_common_supertype([tf.RaggedTensorSpec([2, None], tf.int32, 1,
                                                                 tf.int32)]) is None
    assert a == tf.RaggedTensorSpec([2, None], tf.int32, 1) and hash(a) == hash(
        tf.RaggedTensorSpec([2, None], tf.int32, 1))
    assert not a.is_compatible_with(tf.SparseTensorSpec([2, None], tf.int32))


def test_type_spec_from_value_refuses_a_spec():
    with pytest.raises(TypeError, match="expects a value"):
        tf.type_spec_from_value(tf.RaggedTensorSpec([2, None], tf.int32, 1))
