"""`tf.random.Generator` and candidate-sampler paths no other test runs: `from_state`,
`from_key_counter` / `reset_from_key_counter`, `skip`, `uniform_full_int`, `algorithm`, `key`,
and `learned_unigram_candidate_sampler`."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf


def test_from_state_continues_where_the_state_was_read():
    g = tf.random.Generator.from_seed(1234)
    g.normal([5])
    state = g.state
    expected = g.normal([4])
    restored = tf.random.Generator.from_state(state, alg="philox")
    assert restored.algorithm == 1  # TF: the id of Philox
    np.testing.assert_array_equal(restored.normal([4]).numpy(), expected.numpy())


def test_from_key_counter_takes_a_scalar_key_and_a_counter_vector():
    # TF's signature: key a scalar, counter a [2] vector for Philox
    a = tf.random.Generator.from_key_counter(key=5, counter=[0, 0], alg="philox")
    b = tf.random.Generator.from_key_counter(key=tf.constant(5), counter=tf.constant([0, 0]),
                                             alg="philox")
    c = tf.random.Generator.from_key_counter(key=5, counter=[0, 1], alg="philox")
    d = tf.random.Generator.from_key_counter(key=6, counter=[0, 0], alg="philox")
    assert a.algorithm == 1
    x = a.normal([6]).numpy()
    np.testing.assert_array_equal(x, b.normal([6]).numpy())
    assert not np.array_equal(x, c.normal([6]).numpy())
    assert not np.array_equal(x, d.normal([6]).numpy())
    e = tf.random.Generator.from_seed(0)
    e.reset_from_key_counter(5, [0, 0])
    np.testing.assert_array_equal(x, e.normal([6]).numpy())
    assert e.key == a.key


def test_skip_advances_as_drawing_does():
    a, b, fresh = (tf.random.Generator.from_seed(3) for _ in range(3))
    a.skip(4)
    b.skip(tf.constant(4))
    first = a.uniform([3]).numpy()
    np.testing.assert_array_equal(first, b.uniform([3]).numpy())
    assert not np.array_equal(first, fresh.uniform([3]).numpy())
    c, d = tf.random.Generator.from_seed(3), tf.random.Generator.from_seed(3)
    c.skip(0)  # a no-op
    np.testing.assert_array_equal(c.uniform([3]).numpy(), d.uniform([3]).numpy())


def test_uniform_full_int_covers_the_dtype_range():
    g = tf.random.Generator.from_seed(7)
    x = g.uniform_full_int([4000], dtype=tf.int32)
    assert x.dtype == torch.int32 and tuple(x.shape) == (4000,)
    # full range: values far outside what a [0, 2**16) draw would give, of both signs
    assert int(x.min()) < -(2**30) and int(x.max()) > 2**30
    y = g.uniform_full_int([2, 3], dtype=tf.int64)
    assert y.dtype == torch.int64 and tuple(y.shape) == (2, 3)
    assert int(y.abs().max()) > 2**40
    with pytest.raises(ValueError, match="dtype"):
        g.uniform_full_int([2], dtype=tf.float32)


def test_learned_unigram_candidate_sampler_expected_counts():
    true_classes = tf.constant([[1], [1], [2]], dtype=tf.int64)
    sampled, true_expected, sampled_expected = tf.random.learned_unigram_candidate_sampler(
        true_classes=true_classes, num_true=1, num_sampled=400, unique=False, range_max=5, seed=1)
    # one count per class to start, plus the true classes: [1, 3, 2, 1, 1] / 8
    probs = np.array([1, 3, 2, 1, 1]) / 8.0
    np.testing.assert_allclose(true_expected.numpy().reshape(-1), 400 * probs[[1, 1, 2]], rtol=1e-5)
    np.testing.assert_allclose(sampled_expected.numpy(), 400 * probs[sampled.numpy()], rtol=1e-5)
    counts = np.bincount(sampled.numpy(), minlength=5) / 400.0
    np.testing.assert_allclose(counts, probs, atol=0.08)
    unique, _, _ = tf.nn.learned_unigram_candidate_sampler(true_classes, 1, 4, True, 5, seed=2)
    assert len(set(unique.numpy().tolist())) == 4


def test_algorithm_is_tfs_id_of_the_resolved_algorithm():
    # TF 2.15.1 printed 1, 2, 1 for these: 'auto_select' (the default) is Philox
    assert tf.random.Generator.from_seed(3).algorithm == 1
    assert tf.random.Generator.from_seed(3, alg="threefry").algorithm == 2
    assert tf.random.Generator.from_non_deterministic_state().algorithm == 1
    assert tf.random.Generator.from_seed(3, alg=tf.random.Algorithm.THREEFRY).algorithm == 2
    copied = tf.random.Generator(copy_from=tf.random.Generator.from_seed(2, alg="threefry"))
    assert copied.algorithm == 2
    with pytest.raises(ValueError, match="Unsupported random algorithm 'mt'"):
        tf.random.Generator.from_seed(1, alg="mt")
