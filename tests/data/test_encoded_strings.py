"""Dictionary-encoded string columns (`data/encoded_strings.py`): the codes that
`from_tensor_slices` attaches always match the values through the pipeline, the values
behave as plain numpy arrays, and feature columns give the same ids from the codes."""

import pickle
import re

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.data import encoded_strings
from torchestimator.data.encoded_strings import EncodedStrings
from torchestimator.feature_column import _string_memo

N = 3000


def _strings(n=N, distinct=7, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([f"v{k}" for k in rng.integers(0, distinct, n)])


def _assert_codes_match(value):
    assert type(value) is EncodedStrings and value.codes is not None
    assert value.codes.shape == value.shape
    assert value.dictionary[value.codes].tolist() == value.tolist()


@pytest.mark.parametrize("make", [
    lambda ds: ds.batch(64),
    lambda ds: ds.shuffle(500, seed=1).repeat(2).batch(100),
    lambda ds: ds.shuffle(N * 2, seed=3).batch(257),
    lambda ds: ds.skip(10).take(700).batch(33, drop_remainder=True),
    lambda ds: ds.repeat(2).shuffle(100, seed=2).batch(1000).unbatch().batch(50),
])
def test_codes_match_the_values_through_the_pipeline(make):
    strings = _strings()
    ds = make(tf.data.Dataset.from_tensor_slices({"s": strings, "x": np.arange(N)}))
    seen = 0
    for batch in ds:
        value = batch["s"]
        assert value.tolist() == strings[batch["x"].numpy()].tolist()
        if type(value) is EncodedStrings and value.codes is not None:
            _assert_codes_match(value)
            seen += 1
    assert seen > 0


def test_a_rank_2_column_keeps_its_codes():
    strings = _strings(N * 2).reshape(N, 2)
    for batch in tf.data.Dataset.from_tensor_slices(strings).shuffle(300, seed=0).batch(128):
        _assert_codes_match(batch)


@pytest.mark.parametrize("strings", [
    _strings(encoded_strings.MIN_ROWS - 1),  # too short to pay off
    np.array([f"id{k}" for k in range(N)]),  # every value distinct
], ids=["short", "distinct"])
def test_columns_that_would_not_pay_off_stay_plain(strings):
    batch = next(iter(tf.data.Dataset.from_tensor_slices(strings).batch(10)))
    assert not isinstance(batch, encoded_strings.EncodedStrings) and isinstance(batch, np.ndarray)


def test_a_column_whose_sample_looks_varied_is_encoded():
    # 1,000 values over 20,000 rows (5% distinct, which pays off): a sample of about 2,000 rows
    # shows most of them, far more than a quarter of the sample.
    strings = _strings(20_000, distinct=1000)
    sample = strings[:: strings.size // 2048]
    assert len(set(sample.tolist())) > encoded_strings.MAX_DISTINCT_FRACTION * len(sample)
    batch = next(iter(tf.data.Dataset.from_tensor_slices(strings).batch(10)))
    _assert_codes_match(batch)


@pytest.mark.parametrize("seen,sample,size,low,high", [
    (7, 2048, 100_000, 7, 7.01),  # a few values, all seen
    (626, 2052, 160_000, 600, 700),  # W5's cat_c: 1,000 Zipf-distributed values
    (2048, 2048, 100_000, float("inf"), float("inf")),  # every sampled value distinct
    (50, 100, 100, 50, 50),  # the sample is the whole column
])
def test_estimated_distinct(seen, sample, size, low, high):
    assert low <= encoded_strings.estimated_distinct(seen, sample, size) <= high


@pytest.mark.parametrize("values", [
    np.array(["", "a", "é", "日本語", "x" * 40, "a "] * 400),  # empty, non-ASCII, long, trailing space
    np.array([f"v{k % 9}" for k in range(4000)]).reshape(2000, 2),
    np.array([f"v{k % 9}" for k in range(8000)])[::3],  # a strided view
    np.array([f"v{k % 9}" for k in range(4000)], dtype=object),  # already Python str
], ids=["unicode", "rank-2", "strided", "object"])
def test_encoding_keeps_every_value(values):
    encoded = encoded_strings.encode(values)
    assert encoded is not None and encoded.shape == values.shape
    assert encoded.tolist() == values.tolist()
    assert all(type(v) is str for v in encoded.reshape(-1).tolist())
    assert encoded.dictionary[encoded.codes].tolist() == values.tolist()
    assert len(set(encoded.dictionary.tolist())) == len(encoded.dictionary)  # one code per value


def test_indexing_an_encoded_array_gives_what_a_plain_array_gives():
    encoded = encoded_strings.encode(_strings())
    plain = np.asarray(encoded).view(np.ndarray)
    for index in (np.array(3), np.array([5, 0, 5]), np.array([[1, 2], [3, 4]]), 7, slice(2, 9, 3),
                  plain == "v1"):
        got, want = encoded[index], plain[index]
        assert (got == want) if isinstance(want, str) else got.tolist() == want.tolist()
        if isinstance(got, EncodedStrings) and got.codes is not None:
            _assert_codes_match(got)


def test_the_values_behave_as_a_plain_array():
    batch = next(iter(tf.data.Dataset.from_tensor_slices(_strings()).batch(5)))
    plain = batch.view(np.ndarray)
    assert repr(batch) == repr(plain) and str(batch) == str(plain)
    assert type(pickle.loads(pickle.dumps(batch))) is np.ndarray
    assert type(batch == "v1") is np.ndarray and (batch == "v1").tolist() == (plain == "v1").tolist()
    assert type(np.concatenate([batch, plain])) is np.ndarray
    assert type(np.asarray(batch)) is np.ndarray
    assert isinstance(batch[0], str)
    assert batch.reshape(-1).codes is None  # a derived array knows no codes


def test_the_source_column_cannot_be_written_through_a_batch():
    ds = tf.data.Dataset.from_tensor_slices(_strings()).batch(10)
    batch = next(iter(ds))
    with pytest.raises(ValueError, match="read-only"):
        batch[0] = "changed"
    assert next(iter(ds))[0] != "changed"


def test_writing_keeps_codes_only_for_values_over_the_same_dictionary():
    source = encoded_strings.encode(np.array(_strings(), dtype=object))
    pool = source.copy()
    assert pool.flags.writeable and pool.codes is not source.codes
    pool[:5] = source[10:15]
    _assert_codes_match(pool)
    other = encoded_strings.encode(np.array(_strings(seed=1), dtype=object))
    pool[:5] = other[:5]  # another dictionary
    assert pool.codes is None and pool[:5].tolist() == other[:5].tolist()
    copy = source.copy()
    copy[3] = "new"
    assert copy.codes is None and copy[3] == "new"


def test_feature_columns_give_the_same_ids_from_codes():
    fc = tf.feature_column
    strings = _strings(distinct=12)
    other = _strings(distinct=5, seed=4)
    vocab = fc.categorical_column_with_vocabulary_list("a", [f"v{k}" for k in range(8)])  # some OOV
    hashed = fc.categorical_column_with_hash_bucket("b", 13)
    cross = fc.crossed_column([vocab, "b"], 17)
    columns = [fc.indicator_column(vocab), fc.indicator_column(hashed), fc.indicator_column(cross)]
    layer = tf.keras.layers.DenseFeatures(columns)
    ds = tf.data.Dataset.from_tensor_slices({"a": strings, "b": other}).shuffle(400, seed=0).batch(128)
    hits = []
    real = _string_memo.StringMemo.lookup_dense

    def spy(self, dense):
        hits.append(dense.codes is not None)
        return real(self, dense)

    _string_memo.StringMemo.lookup_dense = spy
    try:
        for batch in ds:
            plain = {k: np.asarray(v).astype(str) for k, v in batch.items()}
            assert torch.equal(layer(batch), layer(plain))
    finally:
        _string_memo.StringMemo.lookup_dense = real
    assert any(hits) and not all(hits)


def test_ids_of_codes_skip_the_checks_only_when_every_dictionary_value_has_a_valid_id(monkeypatch):
    from torchestimator.feature_column._base import SparseIds

    fc = tf.feature_column
    strings = _strings(distinct=12)
    valid = [  # every value gets an id in [0, num_buckets)
        fc.categorical_column_with_vocabulary_list("a", [f"v{k}" for k in range(8)], num_oov_buckets=3),
        fc.categorical_column_with_hash_bucket("a", 7),
    ]
    invalid = fc.categorical_column_with_vocabulary_list("a", [f"v{k}" for k in range(8)])  # OOV -> -1
    checked = []
    real = SparseIds.from_dense.__func__
    monkeypatch.setattr(SparseIds, "from_dense", classmethod(lambda cls, *a, **k: checked.append(1) or real(cls, *a, **k)))
    ds = tf.data.Dataset.from_tensor_slices({"a": strings}).shuffle(400, seed=0).batch(128)
    for column, expect_checks in [(valid[0], False), (valid[1], False), (invalid, True)]:
        layer = tf.keras.layers.DenseFeatures([fc.indicator_column(column)])
        for batch in ds:
            assert type(batch["a"]) is EncodedStrings
            checked.clear()
            from_codes = layer(batch)
            assert bool(checked) is expect_checks
            assert torch.equal(from_codes, layer({"a": np.asarray(batch["a"]).astype(str)}))


def test_a_missing_value_stays_missing_through_the_codes():
    strings = _strings()
    strings[::7] = ""
    column = tf.feature_column.categorical_column_with_vocabulary_list("a", ["v1", "v2"], default_value=0)
    layer = tf.keras.layers.DenseFeatures([tf.feature_column.indicator_column(column)])
    for batch in tf.data.Dataset.from_tensor_slices({"a": strings}).batch(500):
        assert torch.equal(layer(batch), layer({"a": np.asarray(batch["a"]).astype(str)}))


def test_a_u_array_and_an_object_array_give_the_same_encoded_batches():
    strings = _strings()
    for source in (strings, strings.astype(object)):
        batch = next(iter(tf.data.Dataset.from_tensor_slices(source).batch(N)))
        _assert_codes_match(batch)
        assert batch.tolist() == strings.tolist() and all(isinstance(v, str) for v in batch[:20])


def test_bytes_are_decoded_as_before():
    strings = np.array([s.encode() for s in _strings()], dtype=object)
    batch = next(iter(tf.data.Dataset.from_tensor_slices(strings).batch(10)))
    assert batch.tolist() == [s.decode() for s in strings[:10]]


def test_a_missing_object_still_gets_the_error_naming_it():
    strings = _strings().astype(object)
    strings[5] = None
    with pytest.raises(TypeError, match="NoneType"):
        tf.data.Dataset.from_tensor_slices({"s": strings})


def test_a_cached_block_keeps_matching_codes_across_epochs():
    # writing into a batch either fails (a view of a cached block is read-only) or changes a
    # fresh array only: the next epoch's batches still have codes that match their values
    ds = tf.data.Dataset.from_tensor_slices(_strings()).shuffle(500, seed=0).cache().batch(100)
    refused = 0
    for batch in ds:
        try:
            batch[0] = "changed"
        except ValueError as e:
            assert "read-only" in str(e)
            refused += 1
    assert refused
    checked = 0
    for batch in ds:
        assert "changed" not in batch.tolist()
        if type(batch) is EncodedStrings and batch.codes is not None:
            _assert_codes_match(batch)
            checked += 1
    assert checked


def test_a_long_column_of_other_objects_still_gets_the_error_naming_it():
    values = np.empty(N, dtype=object)
    values[:] = [[1]] * N
    expected = "from_tensor_slices(tensors)['s'] is an object array holding list values"
    with pytest.raises(TypeError, match=re.escape(expected)):
        tf.data.Dataset.from_tensor_slices({"s": values})
