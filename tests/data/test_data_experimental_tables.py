"""tf.data.experimental: Optional / get_next_as_optional, lookup tables from datasets, and
SqlDataset over a real SQLite file."""

from __future__ import annotations

import sqlite3

import pytest
import torch

import torchestimator as tf

exp = tf.data.experimental


def test_get_next_as_optional_until_the_end():
    it = iter(tf.data.Dataset.range(2))
    first = it.get_next_as_optional()
    assert bool(first.has_value()) and int(first.get_value()) == 0
    assert int(exp.get_next_as_optional(it).get_value()) == 1
    end = it.get_next_as_optional()
    assert not bool(end.has_value()) and end.element_spec == it.element_spec
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        end.get_value()
    made = exp.Optional.from_value({"a": torch.tensor([1.0, 2.0])})
    assert bool(made.has_value()) and made.element_spec["a"].shape == (2,)
    assert not bool(exp.Optional.empty(made.element_spec).has_value())


def test_tables_from_datasets():
    words = tf.data.Dataset.from_tensor_slices(["cat", "dog", "bird"])
    table = exp.index_table_from_dataset(words)
    assert table.lookup(tf.constant(["dog", "fish", "bird"])).tolist() == [1, -1, 2]
    with_oov = exp.table_from_dataset(words, num_oov_buckets=2)
    ids = with_oov.lookup(tf.constant(["cat", "fish"])).tolist()
    assert ids[0] == 0 and ids[1] in (3, 4) and int(with_oov.size()) == 5
    pairs = tf.data.Dataset.from_tensor_slices((["a", "b"], torch.tensor([10, 20])))
    hashed = tf.lookup.StaticHashTable(exp.DatasetInitializer(pairs), default_value=-1)
    assert hashed.lookup(tf.constant(["b", "z"])).tolist() == [20, -1]
    with pytest.raises(ValueError, match="vocab_size 5 is more than the 3 keys"):
        exp.table_from_dataset(words, vocab_size=5)


def test_sql_dataset_reads_a_real_sqlite_file(tmp_path):
    path = str(tmp_path / "people.db")
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE people (name TEXT, age INTEGER, score REAL)")
        db.executemany("INSERT INTO people VALUES (?, ?, ?)", [("ann", 31, 0.5), ("bob", 42, 1.5)])
    dataset = exp.SqlDataset("sqlite", path, "SELECT name, age, score FROM people ORDER BY age",
                             (tf.string, tf.int32, tf.float64))
    rows = [(n, int(a), float(s)) for n, a, s in dataset.as_numpy_iterator()]
    assert rows == [("ann", 31, 0.5), ("bob", 42, 1.5)]
    with pytest.raises(ValueError, match="driver_name must be 'sqlite'"):
        exp.SqlDataset("mysql", path, "SELECT 1", tf.int32)
