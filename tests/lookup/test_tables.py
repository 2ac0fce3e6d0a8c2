"""tf.lookup tables: the values TF 2.15 gives for the same tables and keys (recorded by running
it), text-file initializers from real files, mutable tables, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf


def test_static_vocabulary_table_of_ints_hashes_oov_keys_as_tf():
    init = tf.lookup.KeyValueTensorInitializer(torch.tensor([10, 20, 30]), torch.tensor([0, 1, 2]))
    table = tf.lookup.StaticVocabularyTable(init, 3)
    assert table.lookup(torch.tensor([10, 11, 12, 30, 99])).tolist() == [0, 4, 4, 2, 3]
    assert table.lookup(torch.arange(100, 120)).tolist() == [3, 4, 5, 5, 3, 3, 5, 3, 3, 3, 3, 3, 4, 5, 5, 3, 3, 4, 5, 5]
    assert int(table.size()) == 6


def test_static_vocabulary_table_of_strings_as_tf():
    init = tf.lookup.KeyValueTensorInitializer(["a", "b"], [0, 1], value_dtype=tf.int64)
    table = tf.lookup.StaticVocabularyTable(init, 4)
    assert table.lookup(tf.constant(["a", "zz", "b", "q"])).tolist() == [0, 4, 1, 3]
    assert table.key_dtype is tf.string and table.value_dtype is tf.int64
    assert table.lookup([b"a", b"b"]).tolist() == [0, 1]  # bytes are UTF-8 strings
    permuted = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["x", "y", "z"], torch.tensor([2, 0, 1])), 2)
    assert permuted.lookup(tf.constant(["x", "y", "z", "w"])).tolist() == [2, 0, 1, 4]
    with pytest.raises(ValueError, match="must be > 0; use StaticHashTable"):
        tf.lookup.StaticVocabularyTable(init, 0)


def test_static_hash_table_lookup_keeps_the_shape_and_exports():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1.5, 2.5, 3.5]), -1.0)
    out = table.lookup(tf.constant([["a", "x"], ["c", "b"]]))
    assert out.dtype == torch.float32 and out.tolist() == [[1.5, -1.0], [3.5, 2.5]]
    keys, values = table.export()
    assert keys.tolist() == [b"a", b"b", b"c"] and values.tolist() == [1.5, 2.5, 3.5]
    assert int(table.size()) == 3 and float(table.default_value) == -1.0


def test_two_values_for_one_key_are_refused_as_tf():
    with pytest.raises(tf.errors.FailedPreconditionError, match="Key a has 1 and trying to add value 2"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)


def test_string_values():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2], ["one", "two"]), "?")
    assert table.lookup(torch.tensor([2, 5])).tolist() == ["two", "?"]


def test_text_file_initializers(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("apple\t3\nbanana\t7\ncherry\t9\n")
    by_column = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(str(path), tf.string, 0, tf.int64, 1, delimiter="\t"), -1)
    assert by_column.lookup(tf.constant(["banana", "x", "cherry"])).tolist() == [7, -1, 9]
    whole = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(path), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER), -1)
    assert whole.lookup(tf.constant(["banana\t7", "x"])).tolist() == [1, -1]
    vocab = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        str(path), tf.string, 0, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, delimiter="\t"), 5)
    assert vocab.lookup(tf.constant(["banana", "kiwi", "mango", "apple"])).tolist() == [1, 6, 5, 0]


def test_text_file_errors_name_the_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("a\t1\nb\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"bad.txt line 1 \('b'\): the value column 1"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(str(path), tf.string, 0, tf.int64, 1), -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected 5 lines, the file has 2"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(path), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
            tf.lookup.TextFileIndex.LINE_NUMBER, vocab_size=5), -1)
    with pytest.raises(ValueError, match="invalid key_index -3"):
        tf.lookup.TextFileInitializer(str(path), tf.string, -3, tf.int64, 1)


def test_mutable_hash_table_as_tf():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    table.insert(["a", "b"], [1, 2])
    table.insert(["a"], [5])
    table.remove(["b", "never"])
    assert table.lookup(tf.constant(["a", "b", "c"])).tolist() == [5, -1, -1]
    assert table.lookup(tf.constant(["a", "b"]), dynamic_default_values=torch.tensor([7, 8])).tolist() == [5, 8]
    assert int(table.size()) == 1
    keys, values = table.export()
    assert keys.tolist() == [b"a"] and values.tolist() == [5]


def test_mutable_table_of_vectors():
    table = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, default_value=[0.0, 0.0])
    table.insert(torch.tensor([3, 4]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert table.lookup(torch.tensor([[4], [9]])).tolist() == [[[3.0, 4.0]], [[0.0, 0.0]]]


def test_dense_hash_table_reserves_its_empty_and_deleted_keys():
    table = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1)
    table.insert_or_assign(torch.tensor([5, 6]), torch.tensor([50, 60]))
    table.erase(torch.tensor([6]))
    assert table.lookup(torch.tensor([5, 6, 0])).tolist() == [50, -1, -1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty_key or deleted_key"):
        table.insert(torch.tensor([0]), torch.tensor([1]))


def test_wrong_key_types_are_refused_naming_the_table():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
    with pytest.raises(TypeError, match="StaticHashTable.lookup: keys must be strings"):
        table.lookup(np.array([1, 2]))
    ints = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1], [1]), -1)
    with pytest.raises(TypeError, match="keys must be"):
        ints.lookup(torch.tensor([1.5]))
