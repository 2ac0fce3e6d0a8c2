"""The per-value memo of string lookups gives exactly the ids of the vectorized (Arrow) path."""

import copy
import pickle

import numpy as np
import pyarrow as pa
import pytest
import torch

import torchestimator as tf
from torchestimator.feature_column import _combiners, _string_memo
from torchestimator.feature_column._base import SparseIds
from torchestimator.feature_column._transform import FeatureTransformationCache

fc = tf.feature_column

WORDS = ["apple", "pear", "fig", "", "kiwi", "plum", "apple", "fig", "", "grape"]


def _ids(column, value):
    """The column's ids for `value`, through the cache (the memo applies to numpy arrays of str)."""
    sp = column.get_sparse_tensors(FeatureTransformationCache({column.key: value}), None).id_tensor
    return sp.ids.tolist(), sp.rows.tolist(), sp.cols.tolist(), sp.batch_size, sp.width


def _slow(column, value):
    """The same through the vectorized path: an Arrow array skips the memo."""
    return _ids(column, pa.array(value.reshape(-1).tolist()) if value.ndim == 1 else
                pa.array(value.tolist()))


COLUMNS = [
    fc.categorical_column_with_vocabulary_list("w", ["apple", "pear", "fig"]),
    fc.categorical_column_with_vocabulary_list("w", ["apple", "pear", "fig"], num_oov_buckets=3),
    fc.categorical_column_with_vocabulary_list("w", ["apple", "pear", "fig"], default_value=1),
    fc.categorical_column_with_hash_bucket("w", 7),
]


@pytest.mark.parametrize("column", COLUMNS, ids=["vocab", "vocab_oov", "vocab_default", "hash"])
def test_memo_matches_the_vectorized_path(column):
    one = np.array(WORDS, dtype=object)
    two = one.reshape(5, 2)
    for value in (one, two):
        for _ in range(2):  # the second batch is answered from the memo alone
            got = _ids(column, value)
            assert got == _slow(column, value)
    assert len(column._ids_memo) >= 7  # '' plus the distinct words


def test_missing_strings_are_dropped_and_rows_follow():
    column = fc.categorical_column_with_vocabulary_list("w", ["a", "b"])
    ids, rows, cols, batch, width = _ids(column, np.array([["a", ""], ["", "b"], ["b", "a"]], dtype=object))
    assert (ids, rows, cols, batch, width) == ([0, 1, 1, 0], [0, 1, 2, 2], [0, 1, 0, 1], 3, 2)


def test_values_that_are_not_str_take_the_vectorized_path():
    column = fc.categorical_column_with_vocabulary_list("w", ["a", "b"])
    with_none = np.array(["a", None, "b"], dtype=object)
    assert _ids(column, with_none)[:3] == ([0, 1], [0, 2], [0, 0])
    with_bytes = np.array(["a", b"b"], dtype=object)
    assert _ids(column, with_bytes)[0] == [0, 1]
    assert None not in column._ids_memo._table and b"b" not in column._ids_memo._table


def test_integers_for_a_string_column_still_get_the_clear_error():
    column = fc.categorical_column_with_vocabulary_list("w", ["a", "b"])
    with pytest.raises(ValueError, match="has dtype string, but feature 'w' holds integers"):
        _ids(column, np.array([1, 2]))


def test_a_full_memo_stops_learning_but_answers_right():
    memo = _string_memo.StringMemo(lambda strings: np.arange(len(strings)) + 100, capacity=3)
    first = memo.lookup(["x", "y"])
    assert first.tolist() == [100, 101] and len(memo) == 3  # '' + x + y
    mixed = memo.lookup(["x", "z", "w", "z"])
    assert mixed.tolist() == [100, 100, 101, 100]  # x remembered; z, w computed per batch
    assert len(memo) == 3


def test_crosses_of_dense_strings_match_the_vectorized_path():
    cross = fc.crossed_column(["a", "b"], 50)
    a = np.array(["x", "", "y", "x"], dtype=object)  # '' is crossed as given, as TF does
    b = np.array(["p", "q", "", "q"], dtype=object)
    memo = cross.get_sparse_tensors(FeatureTransformationCache({"a": a, "b": b}), None).id_tensor
    slow = cross.get_sparse_tensors(
        FeatureTransformationCache({"a": pa.array(a.tolist()), "b": pa.array(b.tolist())}), None
    ).id_tensor
    assert memo.ids.tolist() == slow.ids.tolist() and memo.rows.tolist() == [0, 1, 2, 3]
    assert memo.id_bound == 50


def test_copies_and_pickles_of_a_column_leave_the_memo_behind():
    column = fc.categorical_column_with_vocabulary_list("w", ["a", "b"])
    _ids(column, np.array(["a", "b"], dtype=object))
    assert "_ids_memo" in column.__dict__
    for clone in (copy.deepcopy(column), pickle.loads(pickle.dumps(column))):
        assert clone == column and "_ids_memo" not in clone.__dict__
        assert _ids(clone, np.array(["b", "zz"], dtype=object))[0] == [1, -1]


def _sparse(ids, rows, cols, batch, width, bound=None):
    return SparseIds(torch.tensor(ids), torch.tensor(rows), torch.tensor(cols), batch, width, bound)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_one_id_per_example_lookup_equals_the_general_combiner(combiner):
    table = torch.randn(5, 3, requires_grad=True)
    one = _sparse([4, 0, 2, 2], [0, 1, 2, 3], [0, 0, 0, 0], 4, 1)
    assert one.one_per_row
    fast = _combiners.safe_embedding_lookup(table, one, None, combiner)
    general = _combiners.safe_embedding_lookup(table, one, torch.ones(4), combiner)  # the weighted path
    torch.testing.assert_close(fast, general)
    fast.sum().backward()
    assert table.grad[[0, 2, 4]].abs().sum() > 0 and table.grad[[1, 3]].abs().sum() == 0
    # An out-of-range id (default_value=-1) gives zeros, as the general path does.
    oov = _sparse([4, -1, 2, 2], [0, 1, 2, 3], [0, 0, 0, 0], 4, 1)
    out = _combiners.safe_embedding_lookup(table, oov, None, combiner)
    assert out[1].abs().sum() == 0
    torch.testing.assert_close(out[0], table[4])


def test_one_id_per_example_indicator_equals_the_multi_hot():
    one = _sparse([3, 0, 1], [0, 1, 2], [0, 0, 0], 3, 1)
    torch.testing.assert_close(_combiners.indicator(one, None, 4),
                               torch.eye(4)[[3, 0, 1]])
    bad = _sparse([3, 7, 1], [0, 1, 2], [0, 0, 0], 3, 1)
    assert _combiners.indicator(bad, None, 4)[1].sum() == 0


def test_id_bound_is_set_only_when_every_id_is_in_range():
    column = fc.categorical_column_with_vocabulary_list("w", ["a", "b"])
    cache = FeatureTransformationCache({"w": np.array(["a", "b"], dtype=object)})
    assert column.get_sparse_tensors(cache, None).id_tensor.id_bound == 2
    cache = FeatureTransformationCache({"w": np.array(["a", "zz"], dtype=object)})
    assert column.get_sparse_tensors(cache, None).id_tensor.id_bound is None  # 'zz' -> -1
