"""tf.random.stateless_binomial, stateless_parameterized_truncated_normal and
tf.random.experimental: stateless_binomial draws TF's numbers (TF's kernel on TF's Philox
stream); the others have TF's shapes, dtypes, errors and determinism, with this project's
stateless generator's values."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from _tf_api_extras import assert_same, error, expected
from torchestimator.errors import InvalidArgumentError

R = tf.random


BINOMIAL = {
    "stateless_binomial_shape": lambda: R.stateless_binomial([3, 4], [1, 2], 10.0, 0.5),
    "stateless_binomial_btrs": lambda: R.stateless_binomial(
        [5, 3], [7, -9], [100.0, 40.0, 1000.0], [0.3, 0.8, 0.5]),
    "stateless_binomial_mixed": lambda: R.stateless_binomial(
        [4, 2, 3], [11, 12], np.array([[3.0], [50.0]]), [0.1, 0.9, 0.97],
        output_dtype=tf.float32),
    "stateless_binomial_f64": lambda: R.stateless_binomial(
        [6], torch.tensor([-5, 2**40]), torch.tensor(25.0, dtype=torch.float64),
        torch.tensor(0.45, dtype=torch.float64), output_dtype=tf.int64),
    "stateless_binomial_edges": lambda: R.stateless_binomial(
        [2, 4], [1, 1], [0.0, 5.0, 5.0, 5.0], [0.5, 0.0, 1.0, 0.5]),
}


@pytest.mark.parametrize("name", sorted(BINOMIAL))
def test_stateless_binomial_is_tfs(name):
    """TF's kernel's algorithm on TF's Philox stream: the same numbers as TF."""
    assert_same(BINOMIAL[name](), expected(name), rtol=0, atol=0)


def test_stateless_binomial_shape_dtype_and_determinism():
    want = expected("stateless_binomial_shape")
    out = R.stateless_binomial([3, 4], [1, 2], 10.0, 0.5)
    assert out.shape == want.shape and out.dtype == torch.int32
    assert torch.equal(out, R.stateless_binomial([3, 4], [1, 2], 10.0, 0.5))
    assert not torch.equal(R.stateless_binomial([50], [1, 2], 10.0, 0.5),
                           R.stateless_binomial([50], [1, 3], 10.0, 0.5))
    big = R.stateless_binomial([3000], [5, 6], torch.tensor(10.0), 0.3, output_dtype=tf.float32)
    assert big.dtype == torch.float32
    assert abs(float(big.mean()) - 3.0) < 0.1 and abs(float(big.var()) - 2.1) < 0.25
    btrs = R.stateless_binomial([3000], [5, 6], 200.0, 0.4)
    assert abs(float(btrs.float().mean()) - 80.0) < 0.5
    per = R.stateless_binomial([2, 3], [1, 2], [[0.0], [5.0]], [1.0, 1.0, 0.0])
    assert per.tolist() == [[0, 0, 0], [5, 5, 0]]


def test_stateless_binomial_errors():
    error("stateless_binomial_err_dtype")
    with pytest.raises(InvalidArgumentError, match="output_dtype"):
        R.stateless_binomial([3], [1, 2], 10.0, 0.5, output_dtype=tf.string)
    with pytest.raises(InvalidArgumentError, match="seed"):
        R.stateless_binomial([3], [1, 2, 3], 10.0, 0.5)
    error("stateless_binomial_err_shape")
    with pytest.raises(InvalidArgumentError, match="broadcasted shape"):
        R.stateless_binomial([3, 2], [1, 2], [1.0, 2.0, 3.0], 0.5)


def test_parameterized_truncated_normal():
    want = expected("ptn_shape")
    out = R.stateless_parameterized_truncated_normal([2, 3], [1, 2], 0.0, 1.0, -1.0, 1.0)
    assert out.shape == want.shape and out.dtype == torch.float32
    assert float(out.abs().max()) <= 1.0
    assert torch.equal(out, R.stateless_parameterized_truncated_normal([2, 3], [1, 2], 0.0, 1.0,
                                                                       -1.0, 1.0))
    many = R.stateless_parameterized_truncated_normal(
        [40000], [3, 4], torch.tensor(1.0, dtype=torch.float64), 2.0, 1.0, 50.0)
    assert many.dtype == torch.float64 and float(many.min()) >= 1.0
    # mean of N(1, 2) truncated to [1, inf): 1 + 2 * sqrt(2 / pi)
    assert abs(float(many.mean()) - (1 + 2 * np.sqrt(2 / np.pi))) < 0.03
    tail = R.stateless_parameterized_truncated_normal([1000], [3, 4], 0.0, 1.0, 8.0, 9.0)
    assert float(tail.min()) >= 8.0 and float(tail.max()) <= 9.0
    with pytest.raises(InvalidArgumentError, match="minvals"):
        R.stateless_parameterized_truncated_normal([2], [1, 2], 0.0, 1.0, 1.0, -1.0)
    with pytest.raises(InvalidArgumentError, match="stddevs"):
        R.stateless_parameterized_truncated_normal([2], [1, 2], 0.0, 0.0)


def test_experimental_namespace():
    E = R.experimental
    assert E.Generator is R.Generator and E.create_rng_state is R.create_rng_state
    assert E.stateless_split is R.split and E.stateless_fold_in is R.fold_in
    assert E.get_global_generator is R.get_global_generator
    assert E.set_global_generator is R.set_global_generator
    assert E.stateless_split([1, 2], 3).shape == (3, 2)


def test_index_shuffle_is_a_seeded_bijection():
    E = R.experimental
    for top in (0, 1, 5, 9, 100):
        perm = E.index_shuffle(torch.arange(top + 1), [1, 2], top)
        assert sorted(perm.tolist()) == list(range(top + 1))
        assert perm.dtype == torch.int64
    a = E.index_shuffle(torch.arange(50, dtype=torch.int32), [1, 2], 49)
    b = E.index_shuffle(torch.arange(50, dtype=torch.int32), [1, 3], 49)
    assert a.dtype == torch.int32 and not torch.equal(a, b)
    assert int(E.index_shuffle(7, [1, 2], 49)) == int(a[7])
    with pytest.raises(InvalidArgumentError, match="max_index"):
        E.index_shuffle(torch.tensor([3]), [1, 2], 2)


def test_stateless_shuffle():
    E = R.experimental
    x = torch.arange(20)
    y = E.stateless_shuffle(x, [4, 5])
    assert sorted(y.tolist()) == x.tolist() and torch.equal(y, E.stateless_shuffle(x, [4, 5]))
    with pytest.raises(InvalidArgumentError, match="rank"):
        E.stateless_shuffle(torch.tensor(3), [4, 5])
