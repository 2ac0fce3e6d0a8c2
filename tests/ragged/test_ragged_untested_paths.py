"""`tf.RaggedTensor` paths no other test runs: `from_nested_value_rowids`,
`nested_value_rowids`, `nested_row_lengths`, `uniform_row_length`, `get_shape`, `device`,
iteration, and `RaggedTensorSpec.value_type`."""

from __future__ import annotations

import torch

import torchestimator as tf


def _rt():
    return tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])


def test_nested_value_rowids_round_trip():
    rt = _rt()
    ids = rt.nested_value_rowids()
    assert [i.tolist() for i in ids] == [[0, 0, 2], [0, 0, 1, 2, 2, 2]]
    back = tf.RaggedTensor.from_nested_value_rowids(rt.flat_values, ids, nested_nrows=[3, 3])
    assert back.to_list() == rt.to_list()
    # trailing empty rows need nrows
    padded = tf.RaggedTensor.from_nested_value_rowids(tf.constant([1, 2, 3]), [[0, 0, 2]],
                                                      nested_nrows=[4])
    assert padded.to_list() == [[1, 2], [], [3], []]
    assert tf.RaggedTensor.from_nested_value_rowids(
        tf.constant([1, 2, 3]), [[0, 0, 2]]).to_list() == [[1, 2], [], [3]]


def test_nested_row_lengths_and_shape():
    rt = _rt()
    assert [x.tolist() for x in rt.nested_row_lengths()] == [[2, 0, 1], [2, 1, 3]]
    assert rt.get_shape().as_list() == [3, None, None]
    assert rt.get_shape() == rt.shape
    assert rt.device == torch.device("cpu")
    assert tf.ragged.constant([["a"], ["b", "c"]]).device == torch.device("cpu")


def test_uniform_row_length():
    u = tf.RaggedTensor.from_uniform_row_length(tf.constant([1, 2, 3, 4, 5, 6]), 2)
    assert int(u.uniform_row_length) == 2 and u.uniform_row_length.dtype == torch.int64
    assert u.to_list() == [[1, 2], [3, 4], [5, 6]]
    assert _rt().uniform_row_length is None


def test_iterating_yields_rows():
    rows = list(tf.ragged.constant([[1, 2], [3], []]))
    assert [r.tolist() for r in rows] == [[1, 2], [3], []]
    nested = list(_rt())
    assert [r.to_list() for r in nested] == [[[1, 2], [3]], [], [[4, 5, 6]]]


def test_ragged_tensor_spec_value_type():
    assert tf.RaggedTensorSpec([None, None], tf.int32).value_type is tf.RaggedTensor
    assert tf.RaggedTensorSpec([2, 3], tf.int32, ragged_rank=0).value_type is torch.Tensor
