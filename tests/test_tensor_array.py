"""tf.TensorArray against TF 2.15's eager TensorArray (values recorded by
tools/make_tf_api_types_fixtures.py)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf
from _api_types_fixtures import FIXTURES

TF = FIXTURES["tensor_arrays"]


def _raises(fn, recorded):
    with pytest.raises(getattr(tf.errors, recorded["error"], None) or getattr(__builtins__, recorded["error"],
                                                                              ValueError)) as info:
        fn()
    assert str(info.value) == recorded["message"]


def test_write_read_stack_and_zeros_for_unwritten():
    ta = tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0]).write(2, [3.0, 4.0])
    assert ta.stack().tolist() == TF["write_stack"]
    assert ta.element_shape.as_list() == TF["element_shape"]
    assert tf.TensorArray(tf.float32, size=1).write(0, 3).stack().tolist() == TF["python_int_into_float"]


def test_unstack_gather_concat_size_and_clear_after_read():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True).unstack([[1, 2], [3, 4], [5, 6]])
    assert ta.gather([2, 0]).tolist() == TF["gather"]
    assert ta.concat().tolist() == TF["concat"]
    assert ta.size().item() == TF["size"] and ta.size().dtype == torch.int32
    assert ta.read(1).tolist() == TF["read"]
    _raises(lambda: ta.read(1), TF["read_twice"])
    keep = tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(1, 5.0)
    assert [keep.read(1).item(), keep.read(1).item(), keep.read(0).item()] == TF["no_clear"]


def test_errors_are_tfs():
    _raises(lambda: tf.TensorArray(tf.float32, size=2).write(2, 1.0), TF["write_oob"])
    _raises(lambda: tf.TensorArray(tf.float32, size=2).read(5), TF["read_oob"])
    _raises(lambda: tf.TensorArray(tf.float32, size=1).write(0, tf.constant(1)), TF["wrong_dtype"])
    _raises(lambda: tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(1, [1.0, 2.0]), TF["wrong_shape"])
    _raises(lambda: tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 2, 0]), TF["split_bad"])
    _raises(lambda: tf.TensorArray(tf.float32, size=1).unstack([1.0, 2.0]), TF["unstack_static_too_many"])
    _raises(lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0).concat(), TF["concat_scalar"])


def test_split_scatter_empty_stack_and_spec():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).split([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 2, 3])
    assert ta.concat().tolist() == TF["split_concat"] and ta.read(1).tolist() == TF["split_read"]
    assert tf.TensorArray(tf.float32, size=4).scatter([3, 1], [[1.0], [2.0]]).stack().tolist() == TF["scatter_stack"]
    assert list(tf.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack().shape) == TF["empty_stack_shape"]
    assert repr(tf.TensorArraySpec([2], tf.float32)) == TF["spec"]
    assert tf.type_spec_from_value(tf.TensorArray(tf.float32, size=1).write(0, [1.0, 2.0])) == \
        tf.TensorArraySpec([2], tf.float32)


def test_a_loop_accumulates_and_gradients_flow():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in range(4):
            ta = ta.write(i, tf.cast(i, tf.float32) ** 2)
        ta = ta.write(4, x * 3.0)
        total = tf.reduce_sum(ta.stack())
    assert ta.stack()[:4].tolist() == TF["loop"]
    assert tape.gradient(total, x).item() == 3.0


def test_random_index_shuffle_is_tfs_permutation():
    want = FIXTURES["random_index_shuffle"]
    assert tf.random_index_shuffle(tf.range(10, dtype=tf.int64), [1, 2, 3], 9).tolist() == want["small"]
    assert sorted(want["small"]) == list(range(10))
    assert tf.random_index_shuffle(tf.constant(5, tf.int32), tf.constant([7, 8, 9], tf.int32),
                                   tf.constant(1000, tf.int32), rounds=6).item() == want["rounds6"]
    assert tf.random_index_shuffle(tf.constant([0, 1, 123456, 999999], tf.int64),
                                   tf.constant([-1, 2 ** 40, 5], tf.int64),
                                   tf.constant(999999, tf.int64)).tolist() == want["large"]
    assert tf.random_index_shuffle(tf.constant([3, 2 ** 40], tf.int64), tf.constant([11, 12, 13], tf.int64),
                                   tf.constant(2 ** 41, tf.int64)).tolist() == want["huge"]
    assert tf.random_index_shuffle(tf.constant([1, 1], tf.int32), tf.constant([[1, 2, 3], [4, 5, 6]]),
                                   tf.constant([20, 70000], tf.int32)).tolist() == want["per_row"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="rounds must be an even integer"):
        tf.random_index_shuffle(tf.constant(1), [1, 2, 3], tf.constant(5), rounds=3)
