"""tf.data signatures as TF 2.15's: `Dataset.counter`'s and `ragged_batch`'s int64 dtype
defaults (positional calls bind as TF's), and the `hasher_spec` of the dataset lookup tables
(TF's default `HasherSpec('fasthash', None)`; values hard-coded from TF 2.15.1)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import torchestimator as tf


def test_counter_defaults_to_int64_and_binds_positionally():
    assert inspect.signature(tf.data.Dataset.counter).parameters["dtype"].default is torch.int64
    counter = tf.data.Dataset.counter(2, 3)
    assert counter.element_spec.dtype is torch.int64
    assert list(counter.take(3).as_numpy_iterator()) == [2, 5, 8]  # TF's
    assert tf.data.Dataset.counter(0, 1, tf.int32).element_spec.dtype is torch.int32


def test_ragged_batch_row_splits_default_int64_and_positional_dtype():
    ds = tf.data.Dataset.range(3).map(lambda x: tf.fill([x], x))
    batch = next(iter(ds.ragged_batch(3)))
    assert batch.row_splits.dtype is torch.int64
    np.testing.assert_array_equal(batch.row_splits.numpy(), [0, 0, 1, 3])  # TF's
    assert next(iter(ds.ragged_batch(3, False, tf.int32))).row_splits.dtype is torch.int32


def test_hasher_spec_defaults_to_tf_fasthash():
    for fn in (tf.data.experimental.index_table_from_dataset, tf.data.experimental.table_from_dataset):
        default = inspect.signature(fn).parameters["hasher_spec"].default
        assert tuple(default) == ("fasthash", None)
        assert default.hasher == "fasthash" and default.key is None


def test_index_table_oov_buckets_are_tf_fasthash_buckets():
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "c"])
    keys = tf.constant(["b", "zz", "c", "q"])
    table = tf.data.experimental.index_table_from_dataset(ds, 2)
    np.testing.assert_array_equal(table.lookup(keys).numpy(), [1, 3, 2, 4])  # TF's
    explicit = tf.data.experimental.index_table_from_dataset(ds, 2, None, -1, ("fasthash", None))
    np.testing.assert_array_equal(explicit.lookup(keys).numpy(), [1, 3, 2, 4])
    ds100 = tf.data.Dataset.range(100).map(lambda x: tf.strings.as_string(x * 2))
    table = tf.data.experimental.index_table_from_dataset(ds100, num_oov_buckets=3)
    np.testing.assert_array_equal(table.lookup(tf.constant(["0", "2", "x", "yy", "zzz"])).numpy(),
                                  [0, 1, 102, 101, 100])  # TF's


@pytest.mark.parametrize("spec", [("stronghash", [1, 2]), ("legacy", None)])
def test_other_hashers_are_refused_by_name(spec):
    ds = tf.data.Dataset.from_tensor_slices(["a", "b"])
    with pytest.raises(NotImplementedError, match="hasher_spec"):
        tf.data.experimental.index_table_from_dataset(ds, 1, hasher_spec=spec)
    with pytest.raises(TypeError, match="hasher_spec"):
        tf.data.experimental.index_table_from_dataset(ds, 1, hasher_spec="fasthash")


def _pairs(values):
    return tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(5).map(values)))


def test_table_from_dataset_keeps_the_value_dtype():
    keys = tf.constant([0, 1, 9], dtype=tf.int64)
    strings = tf.data.experimental.table_from_dataset(_pairs(lambda x: tf.strings.as_string(x * 2)),
                                                      default_value="n/a", key_dtype=tf.int64)
    assert [str(v) for v in np.asarray(strings.lookup(keys))] == ["0", "2", "n/a"]  # TF's
    floats = tf.data.experimental.table_from_dataset(_pairs(lambda x: tf.cast(x, tf.float32) * 0.5),
                                                     key_dtype=tf.int64)
    np.testing.assert_allclose(floats.lookup(keys).numpy(), [0.0, 0.5, -1.0])  # TF's
    with_oov = tf.data.experimental.table_from_dataset(_pairs(lambda x: x * 2), 2, key_dtype=tf.int64)
    np.testing.assert_array_equal(with_oov.lookup(keys).numpy(), [0, 2, 6])  # TF's
    with pytest.raises(ValueError, match="default_value"):
        tf.data.experimental.table_from_dataset(_pairs(lambda x: tf.strings.as_string(x)), key_dtype=tf.int64)
