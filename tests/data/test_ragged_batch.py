"""Ragged batches in tf.data against TF 2.15's recorded values."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf
from _ragged_fixtures import TF, same

R = tf.ragged.constant


def rt():
    return R([[1, 2], [3], [], [4, 5, 6]])


def rt3():
    return R([[[1, 2], [3]], [], [[4, 5, 6]]])


def ranges():
    return tf.data.Dataset.range(6).map(lambda x: torch.arange(int(x), dtype=torch.int64))


CASES = {
    "data_ragged_batch": lambda: ranges().ragged_batch(4),
    "data_ragged_batch_drop": lambda: ranges().ragged_batch(4, drop_remainder=True),
    "data_dense_to_ragged": lambda: ranges().apply(tf.data.experimental.dense_to_ragged_batch(3)),
    "data_slices": lambda: tf.data.Dataset.from_tensor_slices(rt()),
    "data_slices3": lambda: tf.data.Dataset.from_tensor_slices(rt3()),
    "data_slices_batch": lambda: tf.data.Dataset.from_tensor_slices(rt()).batch(3),
    "data_slices_dict": lambda: tf.data.Dataset.from_tensor_slices(
        {"a": rt(), "b": tf.constant([1, 2, 3, 4])}).batch(2),
    "data_slices_rebatch": lambda: tf.data.Dataset.from_tensor_slices(rt3()).ragged_batch(2),
    "data_ragged_batch_2d": lambda: tf.data.Dataset.range(3).map(
        lambda x: torch.zeros((int(x), 2), dtype=torch.int32)).ragged_batch(2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    same(list(CASES[name]()), TF[name])


def test_element_specs_match_tf():
    assert repr(ranges().ragged_batch(4).element_spec) == TF["data_ragged_batch_spec"]["value"]
    assert repr(tf.data.Dataset.from_tensor_slices(rt()).element_spec) == \
        TF["data_slices_spec"]["value"]
    ds = tf.data.Dataset.from_tensor_slices(rt()).batch(2, drop_remainder=True)
    assert repr(ds.element_spec) == "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)"
    assert ranges().ragged_batch(4).cardinality() == 2
    assert ranges().ragged_batch(4, drop_remainder=True).cardinality() == 1


def test_row_splits_dtype_and_errors():
    b = next(iter(ranges().ragged_batch(3, row_splits_dtype=tf.int32)))
    assert b.row_splits.dtype == torch.int32
    with pytest.raises(ValueError, match="row_splits_dtype must be tf.int32 or tf.int64"):
        ranges().ragged_batch(3, row_splits_dtype=tf.float32)
    with pytest.raises(ValueError, match="batch_size"):
        ranges().ragged_batch(0)
    with pytest.raises(ValueError, match=r"same size in their first dimension; received sizes "
                                         r"\[4, 3\]"):
        tf.data.Dataset.from_tensor_slices((rt(), tf.constant([1, 2, 3])))


def test_plain_batch_unchanged():
    got = list(tf.data.Dataset.range(5).batch(2))
    assert [g.tolist() for g in got] == [[0, 1], [2, 3], [4]]
