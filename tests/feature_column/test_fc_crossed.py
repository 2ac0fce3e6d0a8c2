"""crossed_column: ids equal TF 2.15's sparse_cross_hashed, deterministic, validated."""

import numpy as np
import pytest

import torchestimator as tf
from torchestimator import _hashing

fc = tf.feature_column


def ids_of(column, features):
    sp = column.get_sparse_tensors(fc.FeatureTransformationCache(features), None).id_tensor
    return list(zip(sp.rows.tolist(), sp.cols.tolist())), sp.ids.tolist()


def test_cross_of_raw_string_and_int_features_matches_tf_documentation():
    col = fc.crossed_column(["f1", "f2"], 5)
    assert col.name == "f1_X_f2" and col.num_buckets == 5
    feats = {"f1": np.array(["A", "B", "A", "B", "A"]), "f2": np.array([101, 101, 101, 102, 102])}
    assert ids_of(col, feats)[1] == [1, 4, 1, 1, 3]


def test_cross_with_bucketized_column_matches_tf():
    b = fc.bucketized_column(fc.numeric_column("age"), [18.0, 40.0])
    col = fc.crossed_column([b, "city"], 100)
    assert col.name == "age_bucketized_X_city"
    # A dense raw '' is crossed as a value, as TF does for dense tensors.
    feats = {"age": np.array([10.0, 30.0, 50.0]), "city": np.array(["sf", "ny", ""])}
    assert ids_of(col, feats)[1] == [83, 71, 9]


def test_cross_is_the_cartesian_product_per_example():
    col = fc.crossed_column(["tags", "ctry"], 50)
    feats = {"tags": [["a", "b"], [], ["b"]], "ctry": np.array(["us", "fr", "de"])}
    positions, ids = ids_of(col, feats)
    assert positions == [(0, 0), (0, 1), (2, 0)]
    assert ids == [3, 40, 27]  # TF 2.15.1


def test_sparse_inputs_fold_before_dense_ones_as_in_tf():
    tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b"])
    col = fc.crossed_column(["ctry", tags], 50)
    feats = {"tags": [["a", "b"], [], ["b", "zz"]], "ctry": np.array(["us", "fr", "de"])}
    # 'zz' is out of vocabulary (id -1) and is still crossed, as in TF.
    assert ids_of(col, feats)[1] == [11, 17, 1, 45]


def test_hash_key_changes_the_hash():
    col = fc.crossed_column(["x", "y"], 1000, hash_key=7)
    assert ids_of(col, {"x": np.array(["A", "B"]), "y": np.array(["x", "y"])})[1] == [55, 832]


def test_cross_by_hand_from_the_documented_formula():
    col = fc.crossed_column(["a", "b"], 97)
    _, ids = ids_of(col, {"a": np.array(["p"]), "b": np.array(["q"])})
    h = _hashing.fingerprint_cat64(
        _hashing.fingerprint_cat64(np.uint64(0xDECAFCAFFE), _hashing.fingerprint64(["p"])),
        _hashing.fingerprint64(["q"]),
    )
    assert ids == [int(h[0] % np.uint64(97))]


def test_cross_is_deterministic_and_nested_crosses_flatten():
    inner = fc.crossed_column(["a", "b"], 10)
    outer = fc.crossed_column([inner, "c"], 1000)
    flat = fc.crossed_column(["a", "b", "c"], 1000)
    assert outer.name == flat.name == "a_X_b_X_c"
    feats = {"a": np.array(["x", "y"]), "b": np.array([1, 2]), "c": np.array(["u", "v"])}
    assert ids_of(outer, feats) == ids_of(flat, feats) == ids_of(flat, dict(feats))


def test_crossed_column_errors():
    with pytest.raises(ValueError, match="hash_bucket_size must be > 1"):
        fc.crossed_column(["a", "b"], 0)
    with pytest.raises(ValueError, match="keys must be a list with length > 1"):
        fc.crossed_column(["a"], 10)
    with pytest.raises(ValueError, match="Unsupported key type"):
        fc.crossed_column(["a", fc.numeric_column("n")], 10)
    with pytest.raises(ValueError, match="categorical_column_with_hash_bucket is not supported for crossing"):
        fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("h", 5)], 10)
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    col = fc.crossed_column(["a", weighted], 10)
    with pytest.raises(ValueError, match="does not support weight_tensor"):
        ids_of(col, {"a": np.array(["x"]), "i": np.array([1]), "w": np.array([1.0])})
    with pytest.raises(ValueError, match="different batch sizes"):
        ids_of(fc.crossed_column(["a", "b"], 10), {"a": np.array(["x"]), "b": np.array(["y", "z"])})
    with pytest.raises(ValueError, match=r"Feature 'b' is required by feature column 'a_X_b'.*\['a'\]"):
        ids_of(fc.crossed_column(["a", "b"], 10), {"a": np.array(["x"])})


def _memo_cases():
    edu = fc.categorical_column_with_vocabulary_list("edu", ["a", "b", "c"], num_oov_buckets=2)
    occ = fc.categorical_column_with_vocabulary_list("occ", ["x", "y"])
    age = fc.bucketized_column(fc.numeric_column("age"), [20.0, 40.0, 60.0])
    ident = fc.categorical_column_with_identity("n", 5)
    return [
        fc.crossed_column([edu, occ], 1000),
        fc.crossed_column([age, edu], 37, hash_key=12345),
        fc.crossed_column([edu, ident, age], 10_000),
    ]


@pytest.mark.parametrize("index", range(3))
def test_memoized_cross_of_categorical_columns_equals_the_hashing_path(index, monkeypatch):
    # Crosses of one-id-per-example categorical columns come from a table filled as combinations
    # appear; ids must be those of the hashing path, batch after batch (new combinations included).
    from torchestimator.feature_column import crossed

    rng = np.random.default_rng(index)
    batches = [
        {"edu": rng.choice(["a", "b", "c", "zz", "qq", "ww"], size=n),
         "occ": rng.choice(["x", "y"], size=n),
         "age": rng.uniform(0, 80, size=n).astype(np.float32),
         "n": rng.integers(0, 5, size=n)}
        for n in (3, 50, 200)
    ]
    memoized = _memo_cases()[index]
    got = [ids_of(memoized, b) for b in batches]
    assert memoized.__dict__["_cross_memo_table"].max() >= 0  # the table was used and filled
    monkeypatch.setattr(crossed, "_MAX_MEMO_CROSSES", 0)
    hashed = _memo_cases()[index]
    assert [ids_of(hashed, b) for b in batches] == got
    assert "_cross_memo_table" not in hashed.__dict__


def test_memo_table_is_not_copied_or_pickled_and_ragged_input_takes_the_hashing_path():
    import copy
    import pickle

    col = _memo_cases()[0]
    feats = {"edu": np.array(["a", "b"]), "occ": np.array(["x", "y"])}
    ids = ids_of(col, feats)
    assert "_cross_memo_table" in col.__dict__
    for clone in (copy.deepcopy(col), pickle.loads(pickle.dumps(col))):
        assert "_cross_memo_table" not in clone.__dict__ and clone == col
        assert ids_of(clone, feats) == ids
    ragged = _memo_cases()[0]
    positions, ragged_ids = ids_of(ragged, {"edu": [["a", "b"], ["c"]], "occ": np.array(["x", "y"])})
    assert positions == [(0, 0), (0, 1), (1, 0)] and "_cross_memo_table" not in ragged.__dict__
    assert ragged_ids[0] == ids[1][0]  # (a, x) hashes alike on both paths
