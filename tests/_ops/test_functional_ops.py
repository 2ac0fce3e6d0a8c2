"""tf.map_fn, tf.vectorized_map, tf.foldl, tf.foldr, tf.scan: values against plain Python loops."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf


def test_map_fn_over_tensors_and_structures():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_allclose(tf.map_fn(lambda row: tf.reduce_sum(row), x).numpy(), [3, 7, 11])
    out = tf.map_fn(lambda pair: (pair[0] * 2, pair[1] + 1), (x, tf.constant([1, 2, 3])))
    np.testing.assert_allclose(out[0].numpy(), x.numpy() * 2)
    assert out[1].tolist() == [2, 3, 4]


def test_vectorized_map_matches_map_fn_and_falls_back():
    x = tf.random.normal([5, 3])
    np.testing.assert_allclose(tf.vectorized_map(lambda r: tf.nn.softmax(r), x).numpy(),
                               tf.map_fn(lambda r: tf.nn.softmax(r), x).numpy(), rtol=1e-6)

    def python_branch(row):  # control flow on a value: not vectorizable, runs row by row
        return row * 2 if float(row[0]) > 0 else row

    expected = np.stack([r * 2 if r[0] > 0 else r for r in x.numpy()])
    np.testing.assert_allclose(tf.vectorized_map(python_branch, x).numpy(), expected)
    with pytest.raises(Exception):  # noqa: B017 - torch's own vmap error
        tf.vectorized_map(python_branch, x, fallback_to_while_loop=False)


def test_folds_and_scan():
    elems = tf.constant([1, 2, 3, 4])
    assert int(tf.foldl(lambda a, x: a - x, elems)) == 1 - 2 - 3 - 4
    assert int(tf.foldr(lambda a, x: a - x, elems)) == 4 - 3 - 2 - 1
    assert int(tf.foldl(lambda a, x: a + x, elems, initializer=tf.constant(10))) == 20
    assert tf.scan(lambda a, x: a + x, elems).tolist() == [1, 3, 6, 10]
    assert tf.scan(lambda a, x: a + x, elems, reverse=True).tolist() == [10, 9, 7, 4]
    assert tf.scan(lambda a, x: a * x, elems, initializer=tf.constant(1)).tolist() == [1, 2, 6, 24]


def test_errors_name_the_op_and_the_sizes():
    with pytest.raises(ValueError, match=r"map_fn: all elems must have the same first dimension; "
                                         r"got \[2, 3\]"):
        tf.map_fn(lambda p: p, (tf.zeros([2]), tf.zeros([3])))
    with pytest.raises(ValueError, match="map_fn: elems must have at least one dimension"):
        tf.map_fn(lambda p: p, tf.constant(1.0))
    with pytest.raises(ValueError, match="foldl: elems is empty and no initializer"):
        tf.foldl(lambda a, x: a, tf.zeros([0]))
