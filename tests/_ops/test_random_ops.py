"""tf.random: TF's streams cannot be matched (another bit generator), so these tests check the
distributions' statistics, shapes, dtypes, argument errors and TF's seeding rules."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import torchestimator as tf

N = 200_000


@pytest.fixture(autouse=True)
def _seeded():
    tf.random.set_seed(1234)
    yield
    tf.random.set_seed(None)


def test_normal_statistics_shape_and_dtype():
    x = tf.random.normal([N], mean=3.0, stddev=2.0)
    assert x.shape == (N,) and x.dtype == tf.float32
    assert abs(x.mean().item() - 3.0) < 0.03 and abs(x.std().item() - 2.0) < 0.03
    assert tf.random.normal([2, 3], dtype=tf.float64).dtype == tf.float64
    assert tf.random.normal([]).shape == ()
    assert tf.random.normal(tf.constant([2, 1])).shape == (2, 1)
    means = tf.random.normal([N, 3], mean=tf.constant([0.0, 10.0, 100.0]))  # broadcast parameters
    np.testing.assert_allclose(means.mean(0).numpy(), [0.0, 10.0, 100.0], atol=0.03)


def test_uniform_float_range_and_statistics():
    x = tf.random.uniform([N], minval=-2.0, maxval=6.0)
    assert x.dtype == tf.float32 and x.min() >= -2.0 and x.max() < 6.0
    assert abs(x.mean().item() - 2.0) < 0.05
    assert abs(x.var().item() - 64 / 12) < 0.1
    y = tf.random.uniform([1000])
    assert y.min() >= 0 and y.max() < 1
    z = tf.random.uniform([N, 2], 0, tf.constant([10.0, 20.0]))
    np.testing.assert_allclose(z.mean(0).numpy(), [5.0, 10.0], atol=0.1)


def test_uniform_integers():
    x = tf.random.uniform([N], minval=-3, maxval=4, dtype=tf.int32)
    assert x.dtype == tf.int32 and x.min().item() == -3 and x.max().item() == 3
    counts = torch.bincount((x + 3).long(), minlength=7).numpy() / N
    np.testing.assert_allclose(counts, np.full(7, 1 / 7), atol=0.01)
    assert tf.random.uniform([3], 0, 10, dtype=tf.int64).dtype == tf.int64
    with pytest.raises(ValueError, match="maxval.*int32"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="5 >= 5"):
        tf.random.uniform([2], 5, 5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="0-D"):
        tf.random.uniform([2], 0, tf.constant([10, 20]), dtype=tf.int32)


def test_dtype_and_shape_errors():
    with pytest.raises(ValueError, match="int8"):
        tf.random.uniform([2], 0, 10, dtype=tf.int8)
    with pytest.raises(ValueError, match="bool"):
        tf.random.uniform([2], dtype=tf.bool)
    with pytest.raises(TypeError, match="int32"):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="int32"):
        tf.random.truncated_normal([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="vector"):
        tf.random.uniform(3)
    with pytest.raises(ValueError, match="stddev"):
        tf.random.normal([2], stddev=tf.constant(1.0, dtype=tf.float64))


def test_truncated_normal_stays_within_two_stddevs():
    x = tf.random.truncated_normal([N], mean=1.0, stddev=3.0)
    assert x.dtype == tf.float32
    assert x.min() >= 1.0 - 6.0 and x.max() <= 1.0 + 6.0
    assert x.min() < 1.0 - 5.9 and x.max() > 1.0 + 5.9  # reaches the edges
    # the standard deviation of N(0, 1) truncated to [-2, 2]
    phi, cdf = math.exp(-2) / math.sqrt(2 * math.pi), 0.5 * math.erfc(-2 / math.sqrt(2))
    std = math.sqrt(1 - 2 * 2 * phi / (2 * cdf - 1))
    assert abs(x.mean().item() - 1.0) < 0.03 and abs(x.std().item() - 3.0 * std) < 0.03
    assert tf.random.truncated_normal([4], dtype=tf.float16).dtype == tf.float16


def test_categorical():
    with np.errstate(divide="ignore"):
        logits = tf.constant(np.log([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]).astype(np.float32))
    samples = tf.random.categorical(logits, 50_000)
    assert samples.shape == (2, 50_000) and samples.dtype == tf.int64
    freq = torch.bincount(samples[0], minlength=3).numpy() / 50_000
    np.testing.assert_allclose(freq, [0.2, 0.3, 0.5], atol=0.01)
    assert (samples[1] == 0).all()  # -inf logits are never drawn
    assert tf.random.categorical([[0.0, 0.0]], 3, dtype=tf.int32).dtype == tf.int32
    assert tf.random.categorical([[-np.inf, -np.inf]], 3).tolist() == [[2, 2, 2]]  # TF: num_classes
    assert tf.random.categorical([[0.0, 0.0]], 0).shape == (1, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="matrix"):
        tf.random.categorical([0.0, 0.0], 3)
    with pytest.raises(ValueError, match="float32"):
        tf.random.categorical([[0.0, 0.0]], 3, dtype=tf.float32)


def test_shuffle_permutes_the_first_axis():
    value = tf.constant(np.arange(20).reshape(10, 2))
    out = tf.random.shuffle(value)
    assert out.shape == value.shape and out.dtype == value.dtype
    assert sorted(out[:, 0].tolist()) == list(range(0, 20, 2))
    assert (out[:, 1] == out[:, 0] + 1).all()  # rows move whole
    orders = {tuple(tf.random.shuffle(value)[:, 0].tolist()) for _ in range(5)}
    assert len(orders) > 1
    assert tf.random.shuffle(tf.constant(3)).item() == 3
    words = tf.random.shuffle(np.array(["a", "b", "c", "d"], dtype=object))
    assert sorted(words.tolist()) == ["a", "b", "c", "d"]


def test_gamma_and_poisson():
    g = tf.random.gamma([N], alpha=[2.0, 5.0], beta=2.0)
    assert g.shape == (N, 2) and g.dtype == tf.float32 and (g > 0).all()
    np.testing.assert_allclose(g.mean(0).numpy(), [1.0, 2.5], atol=0.02)  # alpha / beta
    np.testing.assert_allclose(g.var(0).numpy(), [0.5, 1.25], atol=0.03)  # alpha / beta**2
    p = tf.random.poisson([N], lam=[1.0, 4.0], dtype=tf.int32)
    assert p.shape == (N, 2) and p.dtype == tf.int32
    np.testing.assert_allclose(p.float().mean(0).numpy(), [1.0, 4.0], atol=0.03)
    assert tf.random.gamma([2], [[1.0], [2.0]], [1.0, 2.0, 3.0]).shape == (2, 2, 3)


def test_op_seed_repeats_its_sequence_after_set_seed():
    tf.random.set_seed(7)
    a, b = tf.random.uniform([3], seed=1), tf.random.uniform([3], seed=1)
    n1 = tf.random.normal([3], seed=1)
    tf.random.set_seed(7)
    c = tf.random.uniform([3], seed=1)
    n2 = tf.random.normal([3], seed=1)  # per-op streams: interleaving does not matter, as in TF
    d = tf.random.uniform([3], seed=1)
    assert torch.equal(a, c) and torch.equal(b, d) and not torch.equal(a, b)
    assert torch.equal(n1, n2)
    tf.random.set_seed(8)
    assert not torch.equal(tf.random.uniform([3], seed=1), a)  # the global seed is part of the pair
    tf.random.set_seed(7)
    assert not torch.equal(tf.random.uniform([3], seed=2), a)


def test_global_seed_alone_makes_unseeded_ops_reproducible():
    tf.random.set_seed(3)
    a, b = tf.random.normal([4]), tf.random.uniform([4])
    tf.random.set_seed(3)
    c, d = tf.random.normal([4]), tf.random.uniform([4])
    assert torch.equal(a, c) and torch.equal(b, d)
    tf.random.set_seed(3)
    assert torch.equal(torch.randn(4), a)  # torch is seeded too


def test_op_seed_without_global_seed_is_reproducible_across_set_seed_none():
    tf.random.set_seed(None)
    a = tf.random.truncated_normal([4], seed=11)
    tf.random.set_seed(None)
    assert torch.equal(tf.random.truncated_normal([4], seed=11), a)


def test_stateless_ops_are_pure_functions_of_the_seed():
    a = tf.random.stateless_normal([5], seed=[1, 2])
    assert torch.equal(a, tf.random.stateless_normal([5], seed=[1, 2]))
    assert not torch.equal(a, tf.random.stateless_normal([5], seed=[2, 1]))
    assert torch.equal(
        tf.random.stateless_uniform([3], seed=tf.constant([4, 5])),
        tf.random.stateless_uniform([3], seed=[4, 5]),
    )
    full = tf.random.stateless_uniform([N], seed=[1, 2], minval=None, maxval=None, dtype=tf.int32)
    assert full.dtype == tf.int32 and full.min() < -(2**30) and full.max() > 2**30
    ints = tf.random.stateless_uniform([100], seed=[1, 2], minval=0, maxval=5, dtype=tf.int64)
    assert ints.min() >= 0 and ints.max() < 5
    with pytest.raises(ValueError, match="both None"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[2\], not \[3\]"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    tn = tf.random.stateless_truncated_normal([1000], seed=[3, 4])
    assert tn.abs().max() <= 2.0
    cat = tf.random.stateless_categorical([[0.0, 0.0]], 8, seed=[1, 1])
    assert torch.equal(cat, tf.random.stateless_categorical([[0.0, 0.0]], 8, seed=[1, 1]))
    assert tf.random.stateless_poisson([4, 2], seed=[1, 2], lam=[1.0, 3.0]).shape == (4, 2)
    assert tf.random.stateless_gamma([4, 2], seed=[1, 2], alpha=[1.0, 3.0]).shape == (4, 2)
    assert tf.random.split([1, 2], 3).shape == (3, 2)
    assert torch.equal(tf.random.fold_in([1, 2], 5), tf.random.fold_in([1, 2], 5))
    assert not torch.equal(tf.random.fold_in([1, 2], 5), tf.random.fold_in([1, 2], 6))


def test_generator_from_seed():
    g1, g2 = tf.random.Generator.from_seed(42), tf.random.Generator.from_seed(42)
    a = g1.normal([4])
    assert torch.equal(a, g2.normal([4]))
    assert not torch.equal(a, g1.normal([4]))  # the state advances
    u = g1.uniform([N], minval=1.0, maxval=3.0)
    assert u.min() >= 1.0 and u.max() < 3.0 and abs(u.mean().item() - 2.0) < 0.02
    ints = g1.uniform([100], minval=0, maxval=10, dtype=tf.int32)
    assert ints.dtype == tf.int32 and ints.min() >= 0 and ints.max() < 10
    with pytest.raises(ValueError, match="both None"):
        g1.uniform([2], dtype=tf.int32)
    assert g1.truncated_normal([1000]).abs().max() <= 2.0
    assert g1.make_seeds(3).shape == (2, 3)
    children = g1.split(2)
    assert len(children) == 2 and not torch.equal(children[0].normal([3]), children[1].normal([3]))
    state = g2.state
    x = g2.normal([3])
    g2.reset(state)
    assert torch.equal(g2.normal([3]), x)
    g2.reset_from_seed(42)
    assert torch.equal(g2.normal([4]), a)
    b = g1.binomial([N], counts=10.0, probs=0.3)
    assert b.dtype == tf.int32 and abs(b.float().mean().item() - 3.0) < 0.03
    assert isinstance(tf.random.get_global_generator(), tf.random.Generator)
    tf.random.set_global_generator(g1)
    assert tf.random.get_global_generator() is g1
