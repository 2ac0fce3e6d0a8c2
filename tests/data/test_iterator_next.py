"""`next()` on dataset iterators, as TF's tutorials call it (`ds.as_numpy_iterator().next()`)."""

import pytest

import torchestimator as tf


def test_next_on_both_iterators():
    numpy_it = tf.data.Dataset.range(2).as_numpy_iterator()
    assert numpy_it.next() == 0 and numpy_it.next() == 1
    with pytest.raises(StopIteration):
        numpy_it.next()
    it = iter(tf.data.Dataset.range(2))
    assert int(it.next()) == 0 and int(it.get_next()) == 1
