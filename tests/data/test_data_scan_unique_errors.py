"""scan, unique, ignore_errors, assert_cardinality and get_single_element against TF 2.15's
recorded values and messages (tests/data/fixtures/tf_data_transforms.json, made by
tools/make_tf_data_transform_fixtures.py)."""

import logging

import numpy as np
import pytest
import torch
from _tf_fixture import TF, record, tf_message

import torchestimator as tf
from torchestimator.errors import FailedPreconditionError, InvalidArgumentError

r = tf.data.Dataset.range


def test_scan_matches_tf():
    assert record(r(1, 8).scan(tf.constant(0, tf.int64),
                               lambda s, x: (s + x, s * 10 + x))) == TF["scan"]
    nested = r(5).scan((tf.constant(0, tf.int64), tf.constant(1.0)),
                       lambda s, x: ((s[0] + x, s[1] * 2.0), {"sum": s[0] + x, "pow": s[1]}))
    assert record(nested) == TF["scan_nested"]
    applied = r(4).apply(tf.data.experimental.scan(tf.constant(1, tf.int64),
                                                   lambda s, x: (s * 2, s + x)))
    assert record(applied) == TF["scan_exp"]


def test_scan_state_restarts_each_pass_and_unpacks_tuples():
    ds = tf.data.Dataset.from_tensor_slices((np.array([1, 2, 3]), np.array([10, 20, 30])))
    running = ds.scan(tf.constant(0, tf.int64), lambda s, a, b: (s + a + b, s + a + b))
    assert [int(x) for x in running] == [11, 33, 66]
    assert [int(x) for x in running] == [11, 33, 66]


def test_scan_state_type_errors():
    with pytest.raises(TypeError) as e:
        list(r(3).scan(tf.constant(0, tf.int64), lambda s, x: (s.to(torch.float32), x)))
    assert str(e.value) == TF["scan_err_dtype"]["message"]
    with pytest.raises(TypeError, match="pair"):
        list(r(3).scan(0, lambda s, x: s))


def test_unique_matches_tf():
    assert record(tf.data.Dataset.from_tensor_slices(
        np.array([3, 1, 3, 2, 1, 5, 2])).unique()) == TF["unique_int"]
    assert record(tf.data.Dataset.from_tensor_slices(
        ["b", "a", "b", "c", "a"]).unique()) == TF["unique_str"]
    assert [int(x) for x in r(6).map(lambda x: x // 2).apply(tf.data.experimental.unique())] \
        == [0, 1, 2]


def test_unique_errors_have_tfs_messages():
    with pytest.raises(TypeError) as e:
        tf.data.Dataset.from_tensor_slices([1.0, 2.0]).unique()
    assert str(e.value) == TF["unique_err_float"]["message"]
    with pytest.raises(InvalidArgumentError) as e:
        tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).unique()
    assert str(e.value) == tf_message("unique_err_tuple")


def test_ignore_errors_drops_failing_elements_like_tf():
    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "error"))
    assert record(ds.ignore_errors()) == TF["ignore_errors"]
    with pytest.raises(InvalidArgumentError):
        list(ds)


def test_ignore_errors_filter_chain_and_logging(caplog):
    def parse(x):
        if int(x) % 3 == 0:
            raise ValueError(f"bad record {int(x)}")
        return x * 10

    ds = r(8).map(parse).filter(lambda y: y != 40).apply(tf.data.experimental.ignore_errors(
        log_warning=True))
    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        assert [int(x) for x in ds] == [10, 20, 50, 70]
    assert sum("Error raised with error message bad record" in m for m in caplog.messages) == 3


def test_ignore_errors_ends_the_pass_when_the_input_itself_fails():
    def gen():
        yield 1
        yield 2
        raise OSError("disk gone")

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64))
    assert [int(x) for x in ds.ignore_errors()] == [1, 2]


def test_assert_cardinality_matches_tf():
    ok = r(5).apply(tf.data.experimental.assert_cardinality(5))
    assert record(ok) == TF["assert_card_ok"]
    for n, key in ((3, "assert_card_few"), (8, "assert_card_many")):
        with pytest.raises(FailedPreconditionError) as e:
            list(r(n).apply(tf.data.experimental.assert_cardinality(5)))
        assert str(e.value) == tf_message(key)
    filtered = r(10).filter(lambda x: x > 3)
    assert int(filtered.assert_cardinality(6).cardinality()) == TF["assert_card_unknown"]
    assert len(filtered.assert_cardinality(6)) == 6


def test_get_single_element_errors_match_tf():
    empty, two = TF["get_single_element_err"]
    with pytest.raises(InvalidArgumentError) as e:
        r(0).get_single_element()
    assert str(e.value) == empty["message"].split("}} ")[1].split(" [Op:")[0]
    with pytest.raises(InvalidArgumentError) as e:
        tf.data.experimental.get_single_element(r(2))
    assert str(e.value) == two["message"].split("}} ")[1].split(" [Op:")[0]
    assert int(r(5, 6).get_single_element()) == 5
