"""tf.ragged's ten functions against TF 2.15's recorded values."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf
from _ragged_fixtures import TF, same
from torchestimator.errors import InvalidArgumentError

R = tf.ragged.constant


def rt():
    return R([[1, 2], [3], [], [4, 5, 6]])


def rtf():
    return R([[1.5, 2.0], [3.0], [], [4.0, 5.0, 6.0]])


CS = lambda: [R([["a"], ["b", "c"]]), R([["d", "e"], []])]  # noqa: E731
CI = lambda: [R([[1, 2], [3]]), tf.constant([["x"], ["y"]])]  # noqa: E731

CASES = {
    "constant": lambda: R([[1, 2], [3]]),
    "constant_float": lambda: R([[1.0, 2.5], [3.0]]),
    "constant_str": lambda: R([["a", "bc"], [], ["d"]]),
    "constant_dtype": lambda: R([[1, 2], [3]], dtype=tf.float64),
    "constant_rank3": lambda: R([[[1, 2], [3]], [[4]]]),
    "constant_ragged_rank1": lambda: R([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
    "constant_inner_shape_rr": lambda: R([[[1, 2], [3, 4]], [[5, 6]]], inner_shape=(2,)),
    "constant_empty": lambda: R([[], []]),
    "range_limits": lambda: tf.ragged.range([3, 0, 2]),
    "range": lambda: tf.ragged.range([0, 5, 8], [3, 3, 12]),
    "range_deltas": lambda: tf.ragged.range([0, 5, 8], [3, 3, 12], 2),
    "range_neg": lambda: tf.ragged.range([5, 3], [0, 0], -2),
    "range_float": lambda: tf.ragged.range([0.0, 1.0], [1.0, 2.0], 0.5),
    "range_scalar": lambda: tf.ragged.range(0, [2, 3]),
    "stack_0": lambda: tf.ragged.stack([rt(), R([[7], [8, 9]])]),
    "stack_1": lambda: tf.ragged.stack([rt(), rt() * 10], axis=1),
    "stack_dense": lambda: tf.ragged.stack([tf.constant([1, 2]), tf.constant([3, 4, 5])]),
    "stack_mixed": lambda: tf.ragged.stack([tf.constant([[1, 2]]), R([[3]])]),
    "boolean_mask_ragged": lambda: tf.ragged.boolean_mask(
        rt(), R([[True, False], [True], [], [False, True, True]])),
    "boolean_mask_dense_2d": lambda: tf.ragged.boolean_mask(
        tf.constant([[1, 2, 3], [4, 5, 6]]),
        tf.constant([[True, False, True], [False, False, True]])),
    "boolean_mask_rows": lambda: tf.ragged.boolean_mask(
        rt(), tf.constant([True, False, True, True])),
    "boolean_mask_1d": lambda: tf.ragged.boolean_mask(tf.constant([1, 2, 3]),
                                                      tf.constant([True, False, True])),
    "map_flat_values": lambda: tf.ragged.map_flat_values(tf.ones_like, rt()),
    "map_flat_values_add": lambda: tf.ragged.map_flat_values(tf.add, rt(), rt()),
    "map_flat_values_kw": lambda: tf.ragged.map_flat_values(tf.cast, rtf(), dtype=tf.int32),
    "cross_str": lambda: tf.ragged.cross(CS()),
    "cross_int_dense": lambda: tf.ragged.cross(CI()),
    "cross_three": lambda: tf.ragged.cross([R([["a", "b"], ["c"]]), R([[1, 2], [3]]),
                                            tf.constant([["z"], ["w"]])]),
    "cross_hashed": lambda: tf.ragged.cross_hashed(CS()),
    "cross_hashed_buckets": lambda: tf.ragged.cross_hashed(CS(), num_buckets=10),
    "cross_hashed_key": lambda: tf.ragged.cross_hashed(CI(), num_buckets=1000, hash_key=7),
    "cross_hashed_int": lambda: tf.ragged.cross_hashed([R([[1, 2], [3]]), R([[4], [5, 6]])]),
    "cross_sparse": lambda: tf.ragged.cross([tf.SparseTensor(
        [[0, 0], [1, 0], [1, 1]], ["p", "q", "r"], [2, 2]), R([["a"], ["b"]])]),
    "row_splits_to_segment_ids": lambda: tf.ragged.row_splits_to_segment_ids([0, 2, 3, 3, 6]),
    "segment_ids_to_row_splits": lambda: tf.ragged.segment_ids_to_row_splits([0, 0, 1, 3, 3, 3]),
    "segment_ids_to_row_splits_n": lambda: tf.ragged.segment_ids_to_row_splits(
        [0, 0, 1], num_segments=5),
    "segment_ids_to_row_splits_i32": lambda: tf.ragged.segment_ids_to_row_splits(
        [0, 1], out_type=tf.int32),
    "row_splits_to_segment_ids_i32": lambda: tf.ragged.row_splits_to_segment_ids(
        [0, 2, 3], out_type=tf.int32),
    "stack_dynamic_partitions": lambda: tf.ragged.stack_dynamic_partitions(
        ["a", "b", "c", "d", "e"], [3, 0, 2, 2, 3], 5),
    "stack_dynamic_partitions_int": lambda: tf.ragged.stack_dynamic_partitions(
        tf.constant([[1, 2], [3, 4], [5, 6]]), [1, 0, 1], 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    same(CASES[name](), TF[name])


def test_errors():
    assert TF["constant_error"]["message"] == "all scalar values must have the same nesting depth"
    with pytest.raises(ValueError, match=TF["constant_error"]["message"]):
        R([[1, 2], [[3]]])
    with pytest.raises(ValueError, match="incompatible with ragged_rank=1 and dim"):
        R([[1, 2], [3, 4], [5, 6]], ragged_rank=1, inner_shape=(2,))
    assert "Requires delta != 0" in TF["range_error"]["message"]
    with pytest.raises(InvalidArgumentError, match=r"Requires delta != 0; received deltas=\[0\]"):
        tf.ragged.range([0], [3], 0)
    with pytest.raises(ValueError, match=r"mask row_splits \[0, 1, 2\] and data row_splits"):
        tf.ragged.boolean_mask(rt(), R([[True], [False]]))
    with pytest.raises(ValueError, match="same row_splits"):
        tf.ragged.map_flat_values(tf.add, rt(), R([[1], [2]]))
    with pytest.raises(InvalidArgumentError, match=r"partitions=\[0, 3\]"):
        tf.ragged.stack_dynamic_partitions([1, 2], [0, 3], 2)
    with pytest.raises(ValueError, match=r"same number of rows; received \[2, 3\]"):
        tf.ragged.cross([R([["a"], ["b"]]), R([["a"], ["b"], ["c"]])])
    with pytest.raises(InvalidArgumentError, match=r"segment_ids=\[-1\]"):
        tf.ragged.segment_ids_to_row_splits([-1])


def test_cross_hashed_matches_crossed_column_hash():
    from torchestimator import _hashing

    got = tf.ragged.cross_hashed([R([["a"]]), R([[5]])], num_buckets=0)
    import numpy as np

    h = _hashing.fingerprint_cat64(np.uint64(_hashing.DEFAULT_CROSS_HASH_KEY),
                                   _hashing.fingerprint64(np.array(["a"], dtype=object)))
    h = _hashing.fingerprint_cat64(h, np.uint64(5))
    assert got.flat_values.tolist() == [int(h[0] % np.uint64(2**63 - 1))]
    assert got.dtype == torch.int64


def test_no_ragged_args_calls_op():
    assert tf.ragged.map_flat_values(tf.add, tf.constant([1]), tf.constant([2])).tolist() == [3]
