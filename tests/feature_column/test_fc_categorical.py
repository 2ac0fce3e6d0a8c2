"""Categorical columns: vocabulary list/file, identity, hash bucket; OOV exactly as TF."""

import gzip
import struct

import numpy as np
import pytest
import torch

import torchestimator as tf

fc = tf.feature_column
DenseFeatures = tf.keras.layers.DenseFeatures


def ids_of(column, value, key=None):
    cache = fc.FeatureTransformationCache({key or column.key: value})
    sp = column.get_sparse_tensors(cache, None).id_tensor
    return sp.ids.tolist(), sp.rows.tolist(), sp.cols.tolist()


def indicator(column, features):
    return DenseFeatures([fc.indicator_column(column)])(features).detach().numpy()


def test_vocabulary_list_ids_and_default_oov():
    col = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
    assert col.dtype is tf.string and col.num_buckets == 3 and col.default_value == -1
    # '' is missing (dropped); 'x' is out of vocabulary -> -1, which contributes nothing.
    assert ids_of(col, np.array([["r", "x"], ["", "b"]])) == ([0, -1, 2], [0, 0, 1], [0, 1, 1])
    np.testing.assert_array_equal(
        indicator(col, {"color": np.array([["g", "g"], ["x", ""], ["b", "r"]])}),
        [[0, 2, 0], [0, 0, 0], [1, 0, 1]],  # repeated ids count
    )


def test_vocabulary_list_default_value_and_oov_buckets():
    col = fc.categorical_column_with_vocabulary_list("c", ["r", "g", "b"], default_value=1)
    assert ids_of(col, np.array(["zz", "b"]))[0] == [1, 2]
    oov = fc.categorical_column_with_vocabulary_list("c", ["r", "g", "b"], num_oov_buckets=3)
    assert oov.num_buckets == 6
    # OOV id = 3 + Fingerprint64(value) % 3; TF 2.15.1 gives buckets [2, 1, 0] for these.
    assert ids_of(oov, np.array(["x", "zz", "purple", "g"]))[0] == [5, 4, 3, 1]


def test_integer_vocabulary_list():
    col = fc.categorical_column_with_vocabulary_list("n", [10, 20, 30], num_oov_buckets=4)
    assert col.dtype == torch.int64
    # -1 is missing; OOV ints hash as decimal text (TF: buckets [3, 1, 0] for 2, 3, 42).
    assert ids_of(col, np.array([[20, -1], [2, 3], [42, 10]]))[0] == [1, 6, 4, 3, 0]
    assert ids_of(col, torch.tensor([30, 10]))[0] == [2, 0]


def test_vocabulary_list_errors():
    with pytest.raises(ValueError, match="must be non-empty"):
        fc.categorical_column_with_vocabulary_list("c", [])
    with pytest.raises(ValueError, match="Duplicate keys in vocabulary_list"):
        fc.categorical_column_with_vocabulary_list("c", ["a", "b", "a"])
    with pytest.raises(ValueError, match="Can't specify both num_oov_buckets and default_value"):
        fc.categorical_column_with_vocabulary_list("c", ["a"], default_value=0, num_oov_buckets=2)
    with pytest.raises(ValueError, match="Invalid num_oov_buckets"):
        fc.categorical_column_with_vocabulary_list("c", ["a"], num_oov_buckets=-1)
    with pytest.raises(ValueError, match="do not match"):
        fc.categorical_column_with_vocabulary_list("c", ["a"], dtype=tf.int64)
    with pytest.raises(ValueError, match="mixes types"):
        fc.categorical_column_with_vocabulary_list("c", ["a", 1])


def test_dtype_mismatch_between_column_and_feature_names_both():
    col = fc.categorical_column_with_vocabulary_list("c", ["a"])
    with pytest.raises(ValueError, match="Categorical column 'c' has dtype string, but feature 'c' holds integers"):
        ids_of(col, np.array([1, 2]))
    icol = fc.categorical_column_with_identity("i", 3)
    with pytest.raises(ValueError, match="has an integer dtype, but feature 'i' holds strings"):
        ids_of(icol, np.array(["a"]))
    with pytest.raises(ValueError, match="holds float values"):
        ids_of(icol, np.array([1.5]))


def test_ragged_multivalent_input():
    col = fc.categorical_column_with_vocabulary_list("t", ["a", "b", "c"])
    ids, rows, cols = ids_of(col, [["a", "b", "c"], [], ["c"], ["a", None, "b"]])
    assert ids == [0, 1, 2, 2, 0, 1] and rows == [0, 0, 0, 2, 3, 3] and cols == [0, 1, 2, 0, 0, 2]
    np.testing.assert_array_equal(
        indicator(col, {"t": [["a", "b", "c"], [], ["c", "c"]]}), [[1, 1, 1], [0, 0, 0], [0, 0, 2]]
    )
    with pytest.raises(ValueError, match="nested more than one level"):
        ids_of(col, [[["a"]], [["b"]]])


def test_vocabulary_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("red\ngreen\r\nblue\n")
    col = fc.categorical_column_with_vocabulary_file("c", str(path))
    assert col.vocabulary_size == 3 and col.num_buckets == 3 and col.vocabulary == ["red", "green", "blue"]
    assert ids_of(col, np.array(["blue", "red", "pink"]))[0] == [2, 0, -1]
    small = fc.categorical_column_with_vocabulary_file("c", str(path), vocabulary_size=2, num_oov_buckets=1)
    assert small.num_buckets == 3 and ids_of(small, np.array(["blue", "green"]))[0] == [2, 1]
    dflt = fc.categorical_column_with_vocabulary_file("c", str(path), default_value=0)
    assert ids_of(dflt, np.array(["pink"]))[0] == [0]
    ints = tmp_path / "ints.txt"
    ints.write_text("7\n3\n")
    icol = fc.categorical_column_with_vocabulary_file("n", str(ints), dtype=tf.int64)
    assert ids_of(icol, np.array([3, 7, 5]))[0] == [1, 0, -1]


def test_vocabulary_file_tfrecord_gzip(tmp_path):
    path = tmp_path / "vocab.tfrecord.gz"
    with tf.io.TFRecordWriter(str(path), options="GZIP") as writer:
        for word in (b"a", b"bb"):
            writer.write(word)
    col = fc.categorical_column_with_vocabulary_file("c", str(path))
    assert col.file_format == "tfrecord_gzip" and ids_of(col, np.array(["bb", "a"]))[0] == [1, 0]


def test_vocabulary_file_tfrecord_gzip_crafted_length_is_a_clear_error(tmp_path):
    """A record whose length field claims 2^63 bytes (with a valid length CRC) is a DataLossError
    naming the file, not an allocation of that size or a bare OverflowError."""
    from torchestimator.io._tfrecord import masked_crc32c

    length = struct.pack("<Q", 1 << 63)
    path = tmp_path / "vocab.tfrecord.gz"
    with gzip.open(path, "wb") as f:
        f.write(length + struct.pack("<I", masked_crc32c(length)) + b"a" * 64)
    with pytest.raises(tf.errors.DataLossError, match="vocab.tfrecord.gz"):
        fc.categorical_column_with_vocabulary_file("c", str(path))


def test_vocabulary_file_errors_name_the_path(tmp_path):
    missing = str(tmp_path / "nope.txt")
    with pytest.raises(ValueError, match=r"vocabulary_file '.*nope.txt' of column 'c' does not exist"):
        fc.categorical_column_with_vocabulary_file("c", missing)
    later = fc.categorical_column_with_vocabulary_file("c", missing, vocabulary_size=3)
    with pytest.raises(ValueError, match="nope.txt"):
        ids_of(later, np.array(["a"]))
    path = tmp_path / "v.txt"
    path.write_text("a\nb\n")
    too_big = fc.categorical_column_with_vocabulary_file("c", str(path), vocabulary_size=5)
    with pytest.raises(ValueError, match="larger than the 2 entries"):
        ids_of(too_big, np.array(["a"]))
    dup = tmp_path / "d.txt"
    dup.write_text("a\nb\na\n")
    with pytest.raises(ValueError, match="Duplicate key 'a'"):
        ids_of(fc.categorical_column_with_vocabulary_file("c", str(dup)), np.array(["a"]))
    with pytest.raises(ValueError, match="Missing vocabulary_file"):
        fc.categorical_column_with_vocabulary_file("c", "")
    with pytest.raises(ValueError, match="Can't specify both"):
        fc.categorical_column_with_vocabulary_file("c", str(path), default_value=0, num_oov_buckets=1)


def test_identity_column():
    col = fc.categorical_column_with_identity("i", 5)
    assert col.num_buckets == 5 and col.name == "i"
    assert ids_of(col, np.array([[1, 3], [0, -1]]))[0] == [1, 3, 0]
    dflt = fc.categorical_column_with_identity("i", 5, default_value=0)
    assert ids_of(dflt, np.array([7, 2, -4]))[0] == [0, 2, 0]


def test_identity_out_of_range_without_default_names_column_and_value():
    col = fc.categorical_column_with_identity("item", 5)
    with pytest.raises(ValueError, match=r"categorical column 'item' exceeds number of buckets: value 9 >= num_buckets 5"):
        ids_of(col, np.array([1, 9]))
    with pytest.raises(ValueError, match="Negative bucket index for categorical column 'item': -3"):
        ids_of(col, np.array([-3]))
    with pytest.raises(ValueError, match=r"default_value 5 not in range \[0, 5\)"):
        fc.categorical_column_with_identity("i", 5, default_value=5)
    with pytest.raises(ValueError, match="num_buckets must be an integer >= 1"):
        fc.categorical_column_with_identity("i", 0)


def test_hash_bucket_column_matches_tf():
    col = fc.categorical_column_with_hash_bucket("city", 10)
    # TF 2.15.1 ids for these values.
    assert ids_of(col, np.array(["a", "b", "c", "dd", "hello world"]))[0] == [9, 2, 2, 6, 1]
    assert ids_of(col, np.array(["a", ""]))[0] == [9]  # '' is missing
    icol = fc.categorical_column_with_hash_bucket("n", 11, dtype=tf.int64)
    assert ids_of(icol, np.array([3, 7, 12, -5, 100]))[0] == [4, 8, 9, 5, 9]
    with pytest.raises(ValueError, match="hash_bucket_size must be at least 1"):
        fc.categorical_column_with_hash_bucket("c", 0)
    with pytest.raises(ValueError, match="must be string or integer"):
        fc.categorical_column_with_hash_bucket("c", 3, dtype=tf.float32)


def test_parse_example_spec_of_categorical_columns():
    spec = fc.make_parse_example_spec([
        fc.categorical_column_with_vocabulary_list("c", ["a"]),
        fc.categorical_column_with_identity("i", 3),
        fc.weighted_categorical_column(fc.categorical_column_with_hash_bucket("t", 5), "tw"),
        fc.bucketized_column(fc.numeric_column("age", default_value=0.0), [1.0]),
    ])
    assert spec == {
        "c": fc.VarLenFeature(tf.string),
        "i": fc.VarLenFeature(torch.int64),
        "t": fc.VarLenFeature(tf.string),
        "tw": fc.VarLenFeature(torch.float32),
        "age": fc.FixedLenFeature((1,), torch.float32, (0.0,)),
    }
    with pytest.raises(ValueError, match="different parse_spec for key c"):
        fc.make_parse_example_spec([
            fc.categorical_column_with_vocabulary_list("c", ["a"]), fc.numeric_column("c"),
        ])
    with pytest.raises(ValueError, match="must be FeatureColumn instances"):
        fc.make_parse_example_spec(["c"])


def test_v1_and_v2_argument_orders_of_vocabulary_file(tmp_path):
    compat_v1 = tf.compat.v1.feature_column

    path = tmp_path / "v.txt"
    path.write_text("a\nb\n")
    v2 = fc.categorical_column_with_vocabulary_file("c", str(path), 2, tf.string, None, 3)
    v1 = compat_v1.categorical_column_with_vocabulary_file("c", str(path), 2, 3, None, tf.string)
    assert v1 == v2 and v2.num_buckets == 5
    assert compat_v1.shared_embedding_columns is fc.shared_embeddings
    from torchestimator.keras.feature_column import _dense_features, _linear_model

    assert compat_v1.input_layer is _dense_features.input_layer
    assert compat_v1.linear_model is _linear_model.linear_model
    # TF 2.15's tf.feature_column has no layers: they are Keras's (tf.keras.layers.DenseFeatures)
    for name in ("DenseFeatures", "SequenceFeatures", "LinearModel", "input_layer", "linear_model"):
        assert not hasattr(fc, name), name


def test_one_feature_read_by_several_columns():
    words = fc.categorical_column_with_vocabulary_list("w", ["a", "b"])
    hashed = fc.categorical_column_with_hash_bucket("w", 10)
    crossed = fc.crossed_column(["w", words], 10)
    feats = {"w": np.array([["a", ""], ["b", "zz"]])}
    cols = [fc.indicator_column(words), fc.embedding_column(hashed, 2), fc.indicator_column(crossed)]
    out = DenseFeatures(cols)(feats)
    assert out.shape == (2, 14)  # sorted: w_X_w_indicator (10), w_embedding (2), w_indicator (2)
    np.testing.assert_array_equal(out.detach().numpy()[:, -2:], [[1, 0], [0, 1]])
    int_col = fc.categorical_column_with_identity("w", 3)
    with pytest.raises(ValueError, match="has an integer dtype, but feature 'w' holds strings"):
        DenseFeatures([fc.indicator_column(words), fc.embedding_column(int_col, 2)])(feats)


def test_empty_examples_and_all_missing_batches():
    col = fc.categorical_column_with_vocabulary_list("c", ["a", "b"])
    np.testing.assert_array_equal(indicator(col, {"c": [[], []]}), [[0, 0], [0, 0]])
    np.testing.assert_array_equal(indicator(col, {"c": np.array(["", ""])}), [[0, 0], [0, 0]])
    icol = fc.categorical_column_with_identity("i", 2)
    np.testing.assert_array_equal(indicator(icol, {"i": [[], [1]]}), [[0, 0], [0, 1]])


def test_ragged_list_of_numpy_arrays_through_the_layer():
    col = fc.categorical_column_with_identity("i", 4)
    feats = {"i": [np.array([1, 2]), np.array([3]), np.array([], dtype=np.int64)]}
    np.testing.assert_array_equal(indicator(col, feats), [[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
