"""tf.debugging's assertions and numeric checks, against messages recorded from TF 2.15 eager."""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures", "control.json")))


def build(spec):
    if isinstance(spec, dict) and "t" in spec:
        value = np.array(spec["t"], dtype=spec["dtype"])
        if "shape" in spec:
            value = value.reshape(spec["shape"])
        return torch.from_numpy(value)
    return spec


@pytest.mark.parametrize("case", FIXTURE["assert"], ids=lambda c: c["name"])
def test_assertion_messages_match_tf(case):
    fn = getattr(tf.debugging, case["name"])
    args = [build(a) for a in case["args"]]
    if case["name"] == "assert_type":
        args[1] = tf.as_dtype(args[1])
    expected = case["error"]
    error_type = {"InvalidArgumentError": InvalidArgumentError, "ValueError": ValueError,
                  "TypeError": TypeError}[expected["type"]]
    with pytest.raises(error_type) as info:
        fn(*args, **case["kwargs"])
    message = str(info.value)
    if case["name"] in ("check_numerics", "assert_all_finite"):
        assert message in expected["message"]  # TF wraps it in the op's node name
    elif case["name"] == "assert_near":
        assert message.startswith("Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true.")
        assert "x and y not equal to tolerance rtol = 1.1920929e-06, atol = 1.1920929e-06" in message
        assert message.endswith("1.0, 2.0\ny (shape=(2,) dtype=float32) = \n1.0, 2.1")
    else:
        assert message == expected["message"]


def test_assertions_that_hold_return_none():
    x = torch.tensor([1, 2, 3], dtype=torch.int32)
    assert tf.debugging.assert_equal(x, x) is None
    assert tf.assert_equal(x, torch.tensor([1, 2, 3], dtype=torch.int32)) is None
    assert tf.debugging.assert_greater(x, 0) is None
    assert tf.assert_less(x, 4) is None
    assert tf.debugging.assert_less_equal(x, 3) is None
    assert tf.debugging.assert_greater_equal(x, 1) is None
    assert tf.debugging.assert_none_equal(x, 0) is None
    assert tf.debugging.assert_near(torch.tensor([1.0]), torch.tensor([1.0000001])) is None
    assert tf.debugging.assert_near(torch.tensor([1.0]), torch.tensor([1.05]), atol=0.1) is None
    assert tf.debugging.assert_positive(x) is None
    assert tf.debugging.assert_non_negative(x - 1) is None
    assert tf.debugging.assert_negative(-x) is None
    assert tf.debugging.assert_non_positive(1 - x) is None
    assert tf.assert_rank(x, 1) is None
    assert tf.debugging.assert_rank_at_least(x, 1) is None
    assert tf.debugging.assert_rank_in(x, (1, 2)) is None
    assert tf.debugging.assert_type(x, tf.int32) is None
    assert tf.debugging.assert_integer(x) is None
    assert tf.debugging.assert_scalar(torch.tensor(1.0)) is not None
    assert tf.Assert(torch.tensor(True), ["never shown"]) is None


def test_assert_equal_broadcasts_and_compares_strings():
    tf.debugging.assert_equal(torch.ones(2, 3), torch.ones(3))
    with pytest.raises(InvalidArgumentError, match=r"incompatible shapes \[2\] and \[3\]"):
        tf.debugging.assert_equal(torch.ones(2), torch.ones(3))
    with pytest.raises(TypeError, match="float"):
        tf.debugging.assert_equal(torch.tensor([1, 2]), 1.5)
    tf.debugging.assert_equal(np.array(["a", "b"], dtype=object), np.array(["a", "b"], dtype=object))
    with pytest.raises(InvalidArgumentError, match="Corresponding x values:\n\\['b'\\]"):
        tf.debugging.assert_equal(np.array(["a", "b"], dtype=object), np.array(["a", "c"], dtype=object))


def test_assert_equal_summarize_negative_shows_everything():
    with pytest.raises(InvalidArgumentError) as info:
        tf.debugging.assert_equal(torch.zeros(5), torch.ones(5), summarize=-1)
    assert "First 5 elements of x:\n[0. 0. 0. 0. 0.]" in str(info.value)


def test_assert_with_data_and_python_condition():
    with pytest.raises(InvalidArgumentError) as info:
        tf.debugging.Assert(False, [torch.arange(5), "label"], summarize=2)
    assert str(info.value) == "Expected 'False' to be true. Summarized data: 0, 1, ...\nlabel"


def test_assert_shapes():
    x, y = torch.zeros(2, 3), torch.zeros(3)
    tf.debugging.assert_shapes([(x, ("N", "D")), (y, ("D",))])
    tf.debugging.assert_shapes({x: (2, None), y: ("...", 3)})
    with pytest.raises(ValueError, match="dimension 0 must have size 3.  Received size 4"):
        tf.debugging.assert_shapes([(x, ("N", "D")), (torch.zeros(4), ("D",))])
    with pytest.raises(ValueError, match="must have rank 1"):
        tf.debugging.assert_shapes([(x, ("N",))])
    with pytest.raises(ValueError, match="Specified explicitly"):
        tf.debugging.assert_shapes([(x, (2, 4))])


def test_check_numerics_returns_the_tensor_and_rejects_integers():
    x = torch.tensor([1.0, 2.0])
    assert tf.debugging.check_numerics(x, "fine") is x
    assert tf.debugging.assert_all_finite(x, "fine") is x
    with pytest.raises(InvalidArgumentError, match="attr 'T' of int32"):
        tf.debugging.check_numerics(torch.tensor([1, 2], dtype=torch.int32), "ints")


def test_dtype_checks():
    with pytest.raises(TypeError, match='Expected "x" to be integer type'):
        tf.debugging.assert_integer(torch.tensor([1.0]))
    assert tf.debugging.assert_same_float_dtype([torch.zeros(1), torch.zeros(2)]) == torch.float32
    with pytest.raises(ValueError, match="same type"):
        tf.debugging.assert_same_float_dtype([torch.zeros(1), torch.zeros(1, dtype=torch.float64)])
    with pytest.raises(ValueError, match="floating"):
        tf.debugging.assert_same_float_dtype([torch.zeros(1, dtype=torch.int32)])
    with pytest.raises(TypeError, match="proper"):
        tf.debugging.assert_proper_iterable("abc")
    tf.debugging.assert_proper_iterable([1, 2])
    assert tf.debugging.is_numeric_tensor(torch.tensor([1.0]))
    assert not tf.debugging.is_numeric_tensor(torch.tensor([True]))
    assert not tf.debugging.is_numeric_tensor(np.array([1.0]))


def test_enable_check_numerics_names_the_op():
    tf.debugging.enable_check_numerics()
    try:
        torch.tensor([1.0]) + 1  # fine
        with pytest.raises(InvalidArgumentError, match='Detected Infinity or NaN in output 0 of eagerly-executing op "log"'):
            torch.log(torch.tensor([-1.0]))
    finally:
        tf.debugging.disable_check_numerics()
    assert torch.isnan(torch.log(torch.tensor([-1.0]))).all()  # off again


def test_switches_are_remembered():
    assert tf.debugging.get_log_device_placement() is False
    tf.debugging.set_log_device_placement(True)
    assert tf.debugging.get_log_device_placement() is True
    tf.debugging.set_log_device_placement(False)
    tf.debugging.disable_traceback_filtering()
    assert tf.debugging.is_traceback_filtering_enabled() is False
    tf.debugging.enable_traceback_filtering()
    assert tf.debugging.is_traceback_filtering_enabled() is True
