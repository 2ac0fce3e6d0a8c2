"""`tf.compat.v1.VariableScope.get_collection` / `local_variables` and
`tf.compat.v1.losses.Reduction.validate` (TF 2.15's public methods they lacked;
tests/test_class_methods_parity.py). Expected values are TF 2.15.1's (in a TF1 graph)."""

from __future__ import annotations

import pytest

import torchestimator as tf

v1 = tf.compat.v1


@pytest.fixture(autouse=True)
def _fresh_graph():
    v1.reset_default_graph()
    yield
    v1.reset_default_graph()


def _names(variables):
    return [v.name for v in variables]


def test_local_variables_of_a_scope():
    with v1.variable_scope("s") as s:
        v1.get_variable("v", [1], collections=[v1.GraphKeys.LOCAL_VARIABLES])
        v1.get_variable("w", [1])
    with v1.variable_scope("s2"):
        v1.get_variable("z", [1], collections=[v1.GraphKeys.LOCAL_VARIABLES])
    with v1.variable_scope("s", reuse=True):  # handed back, not added twice
        v1.get_variable("v", [1], collections=[v1.GraphKeys.LOCAL_VARIABLES])
    assert _names(s.local_variables()) == ["s/v:0"]
    assert _names(v1.get_variable_scope().local_variables()) == ["s/v:0", "s2/z:0"]
    assert _names(v1.get_collection(v1.GraphKeys.LOCAL_VARIABLES)) == ["s/v:0", "s2/z:0"]


def test_get_collection_of_a_scope():
    with v1.variable_scope("s") as s:
        v1.get_variable("w", [1])
    with v1.variable_scope("t"):
        v1.get_variable("u", [1])
    assert _names(s.get_collection(v1.GraphKeys.GLOBAL_VARIABLES)) == ["s/w:0"]
    assert _names(s.get_collection("trainable_variables")) == ["s/w:0"]
    # items without a name only belong to the top scope's collection, as TF's
    v1.add_to_collection("foo", 3)
    assert s.get_collection("foo") == []
    assert v1.get_variable_scope().get_collection("foo") == [3]


def test_get_variable_puts_the_variable_in_a_named_collection():
    with v1.variable_scope("s") as s:
        w = v1.get_variable("w", [1], collections=["mine", v1.GraphKeys.GLOBAL_VARIABLES])
    assert s.get_collection("mine") == [w] and v1.get_collection("mine") == [w]


def test_reduction_validate():
    R = v1.losses.Reduction
    for key in ("none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
                "weighted_sum_by_nonzero_weights"):
        assert R.validate(key) is None
    message = ("Invalid Reduction Key sum. Key should be one of ('none', 'weighted_sum', "
               "'weighted_mean', 'weighted_sum_over_batch_size', 'weighted_sum_by_nonzero_weights', "
               "'weighted_sum_by_nonzero_weights').")
    with pytest.raises(ValueError) as info:
        R.validate("sum")
    assert str(info.value) == message
    with pytest.raises(ValueError, match="Invalid Reduction Key None"):
        R.validate(None)


def test_reduction_all_is_tensorflows_tuple():
    assert v1.losses.Reduction.all() == (
        "none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
        "weighted_sum_by_nonzero_weights", "weighted_sum_by_nonzero_weights")
