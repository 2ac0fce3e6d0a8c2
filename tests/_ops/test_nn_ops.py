"""tf.nn against numpy computations of TF's documented definitions, and against TF 2.15's own
outputs for a sample of cases (fixtures/nn.json, recorded by fixtures/make_nn_fixture.py)."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "nn.json")) as _f:
    FIXTURE = json.load(_f)["cases"]

rng = np.random.default_rng(7)


def randn(*shape, scale=1.0, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


# ----------------------------------------------------------------------------- the TF fixture


def _decode(value):
    if isinstance(value, dict) and "array" in value:
        return tf.constant(np.array(value["array"], dtype=value["dtype"]))
    if isinstance(value, dict) and "sparse" in value:
        sp = value["sparse"]
        values = np.array(sp["values"]["array"], dtype=sp["values"]["dtype"])
        indices = torch.tensor(sp["indices"], dtype=torch.int64).T
        return torch.sparse_coo_tensor(
            indices, torch.from_numpy(values), sp["dense_shape"], check_invariants=True
        )
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [_decode(v) for v in value]
    return value


@pytest.mark.parametrize("case", FIXTURE, ids=[c["id"] for c in FIXTURE])
def test_matches_tensorflow(case):
    fn = getattr(tf.nn, case["op"])
    args = [_decode(a) for a in case["args"]]
    kwargs = {k: _decode(v) for k, v in case["kwargs"].items()}
    result = fn(*args, **kwargs)
    outputs = list(result) if isinstance(result, tuple) else [result]
    if case["op"] == "dropout":  # the mask is random: the kept values are scaled as TF scales them
        kept = sorted(set(outputs[0].numpy().tolist()) - {0.0})
        assert kept == [v for v in case["expected"][0]["array"] if v != 0.0]
        return
    assert len(outputs) == len(case["expected"])
    for out, want in zip(outputs, case["expected"]):
        expected = np.array(want["array"], dtype=want["dtype"])
        assert tf.as_dtype(want["dtype"]) == out.dtype
        assert tuple(out.shape) == expected.shape
        np.testing.assert_allclose(out.detach().numpy(), expected, rtol=3e-5, atol=3e-5)


def test_fixture_covers_the_sample():
    ops = {c["op"] for c in FIXTURE}
    for op in (
        "sparse_softmax_cross_entropy_with_logits",
        "softmax_cross_entropy_with_logits",
        "sigmoid_cross_entropy_with_logits",
        "weighted_cross_entropy_with_logits",
        "gelu",
        "conv2d",
        "max_pool2d",
        "avg_pool2d",
        "moments",
        "batch_normalization",
        "embedding_lookup",
        "dropout",
        "bias_add",
        "conv2d_transpose",
        "depthwise_conv2d",
    ):
        assert op in ops
    assert len(FIXTURE) >= 30


# ----------------------------------------------------------------------------- activations

X = randn(3, 4, scale=3.0)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize(
    "op,reference",
    [
        ("relu", lambda x: np.maximum(x, 0)),
        ("relu6", lambda x: np.minimum(np.maximum(x, 0), 6)),
        ("elu", lambda x: np.where(x > 0, x, np.expm1(x))),
        (
            "selu",
            lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
        ),
        ("softplus", lambda x: np.log1p(np.exp(x))),
        ("softsign", lambda x: x / (1 + np.abs(x))),
        ("swish", lambda x: x * _sigmoid(x)),
        ("silu", lambda x: x * _sigmoid(x)),
        ("leaky_relu", lambda x: np.where(x > 0, x, 0.2 * x)),
        ("gelu", lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
    ],
)
def test_activations_follow_their_definition(op, reference):
    out = getattr(tf.nn, op)(tf.constant(X))
    assert out.dtype == tf.float32 and out.shape == X.shape
    np.testing.assert_allclose(out.numpy(), reference(X.astype(np.float64)), rtol=1e-5, atol=1e-6)
    out64 = getattr(tf.nn, op)(tf.constant(X.astype(np.float64)))
    assert out64.dtype == tf.float64
    np.testing.assert_allclose(getattr(tf.nn, op)(X.tolist()).numpy(), out.numpy())  # lists convert


def test_gelu_approximate_is_the_tanh_form():
    x = X.astype(np.float64)
    want = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(
        tf.nn.gelu(tf.constant(x), approximate=True).numpy(), want, rtol=1e-7
    )
    assert not np.allclose(tf.nn.gelu(tf.constant(x)).numpy(), want, rtol=1e-7, atol=0)


def test_leaky_relu_alpha_and_integers():
    np.testing.assert_allclose(
        tf.nn.leaky_relu(tf.constant([-2.0, 3.0]), alpha=0.5).numpy(), [-1.0, 3.0]
    )
    np.testing.assert_allclose(
        tf.nn.leaky_relu(tf.constant([-2.0, 3.0]), alpha=2.0).numpy(), [-4.0, 3.0]
    )
    out = tf.nn.leaky_relu(tf.constant([-1, 2]))  # TF casts integers to float32
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), [-0.2, 2.0])


def test_swish_beta():
    x = X.astype(np.float64)
    np.testing.assert_allclose(tf.nn.swish(tf.constant(x), beta=2.5).numpy(), x * _sigmoid(2.5 * x))
    assert tf.nn.silu is tf.nn.swish


def test_integer_activations_keep_their_dtype_and_float_ones_refuse():
    ints = tf.constant([-3, 2, 9])
    assert tf.nn.relu(ints).dtype == tf.int32 and tf.nn.relu(ints).tolist() == [0, 2, 9]
    assert tf.nn.relu6(ints).tolist() == [0, 2, 6] and tf.nn.relu6(ints).dtype == tf.int32
    assert tf.nn.crelu(tf.constant([[-1, 7]])).tolist() == [[0, 7, 1, 0]]
    for op in ("elu", "selu", "softplus", "softsign", "gelu", "swish", "softmax", "log_softmax"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
            getattr(tf.nn, op)(ints)
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.nn.relu(tf.constant([True, False]))


def test_crelu_concatenates_along_axis():
    x = randn(2, 3)
    np.testing.assert_allclose(
        tf.nn.crelu(tf.constant(x)).numpy(),
        np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], -1),
    )
    out = tf.nn.crelu(tf.constant(x), axis=0)
    assert out.shape == (4, 3)
    np.testing.assert_allclose(
        out.numpy(), np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], 0)
    )


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_axes():
    x = randn(2, 3, 4).astype(np.float64)
    for axis in (None, -1, 0, 1, -2, 2):
        want = _np_softmax(x, -1 if axis is None else axis)
        np.testing.assert_allclose(
            tf.nn.softmax(tf.constant(x), axis=axis).numpy(), want, rtol=1e-12
        )
        np.testing.assert_allclose(
            tf.nn.log_softmax(tf.constant(x), axis=axis).numpy(), np.log(want), rtol=1e-12
        )
    assert tf.nn.softmax([1.0, 2.0]).dtype == tf.float32
    np.testing.assert_allclose(
        tf.nn.softmax(logits=tf.constant([[1.0, 1.0]])).numpy(), [[0.5, 0.5]]
    )


def test_softmax_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis 3"):
        tf.nn.softmax(tf.zeros([2, 3]), axis=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        tf.nn.softmax(tf.constant(1.0))


# ----------------------------------------------------------------------------- dropout


def test_dropout_scales_kept_values_and_drops_at_rate():
    x = tf.ones([200, 500])
    out = tf.nn.dropout(x, rate=0.25, seed=3)
    values = out.numpy()
    assert set(np.unique(values).tolist()) <= {0.0, np.float32(1 / 0.75)}
    assert abs((values == 0).mean() - 0.25) < 0.01
    assert out.dtype == tf.float32 and out.shape == x.shape


def test_dropout_rate_zero_is_identity_and_rate_is_validated():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, 0.0) is x
    for rate in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"\[0, 1\).*rate=" + str(rate).replace(".", r"\.")):
            tf.nn.dropout(x, rate)
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)
    out = tf.nn.dropout(x, tf.constant(0.5))  # a scalar tensor rate
    assert set(out.tolist()) <= {0.0, 2.0, 4.0}


def test_dropout_noise_shape_shares_the_mask():
    x = tf.ones([50, 40])
    out = tf.nn.dropout(x, 0.5, noise_shape=[50, 1], seed=1).numpy()
    assert (out == out[:, :1]).all()  # each row entirely kept or dropped
    assert 0 < (out[:, 0] == 0).sum() < 50
    out = tf.nn.dropout(x, 0.5, noise_shape=[None, 1]).numpy()
    assert (out == out[:, :1]).all()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3, 1\].*\[50, 40\]"):
        tf.nn.dropout(x, 0.5, noise_shape=[3, 1])


def test_dropout_seed_is_reproducible_after_set_seed_and_differentiable():
    tf.random.set_seed(5)
    a, b = tf.nn.dropout(tf.ones([64]), 0.5, seed=2), tf.nn.dropout(tf.ones([64]), 0.5, seed=2)
    tf.random.set_seed(5)
    c, d = tf.nn.dropout(tf.ones([64]), 0.5, seed=2), tf.nn.dropout(tf.ones([64]), 0.5, seed=2)
    assert torch.equal(a, c) and torch.equal(b, d) and not torch.equal(a, b)
    w = tf.Variable([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as tape:
        loss = tf.nn.dropout(w, 0.5, seed=4).sum()
    grad = tape.gradient(loss, w)
    assert set(grad.tolist()) <= {0.0, 2.0}


# ----------------------------------------------------------------------------- losses


def _np_log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_sparse_softmax_cross_entropy():
    logits = randn(5, 4, scale=3.0).astype(np.float64)
    labels = np.array([0, 3, 1, 1, 2])
    out = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant(labels), logits=tf.constant(logits)
    )
    assert out.dtype == tf.float64 and out.shape == (5,)
    np.testing.assert_allclose(
        out.numpy(), -_np_log_softmax(logits)[np.arange(5), labels], rtol=1e-12
    )
    out64 = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant(labels, dtype=tf.int64), logits=logits.astype(np.float32)
    )
    assert out64.dtype == tf.float32
    single = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant(2), logits=[1.0, 2.0, 3.0]
    )
    assert single.shape == () and abs(single.item() - 0.40760596) < 1e-6
    lists = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[0, 1], logits=[[1.0, 2.0], [3.0, 4.0]]
    )
    np.testing.assert_allclose(lists.numpy(), [1.3132616, 0.3132617], rtol=1e-6)


def test_sparse_softmax_cross_entropy_gradient_is_softmax_minus_onehot():
    logits = tf.Variable(randn(3, 4))
    labels = tf.constant([1, 0, 3])
    with tf.GradientTape() as tape:
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits).sum()
    grad = tape.gradient(loss, logits)
    want = _np_softmax(logits.numpy().astype(np.float64), -1) - np.eye(4)[[1, 0, 3]]
    np.testing.assert_allclose(grad.numpy(), want, rtol=1e-5, atol=1e-6)


def test_sparse_softmax_cross_entropy_errors():
    op = tf.nn.sparse_softmax_cross_entropy_with_logits
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\].*\[3, 4\]"):
        op(labels=tf.constant([0, 1]), logits=tf.ones([3, 4]))
    with pytest.raises(ValueError, match=r"\[1, 3\].*\[3, 4\]"):
        op(labels=tf.constant([[0, 1, 1]]), logits=tf.ones([3, 4]))
    with tf.device("/CPU:0"):  # label values are checked on the CPU; a GPU gives NaN, as TF's
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"label value of 5 .*\[0, 4\)"):
            op(labels=tf.constant([0, 1, 5]), logits=tf.ones([3, 4]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="label value of -1"):
            op(labels=tf.constant([0, -1, 2]), logits=tf.ones([3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="float32"):
        op(labels=tf.constant([0.0, 1.0, 1.0]), logits=tf.ones([3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        op(labels=tf.constant([0]), logits=tf.ones([1, 4], dtype=tf.int32))
    with pytest.raises(ValueError, match="scalar"):
        op(labels=tf.constant(0), logits=tf.constant(1.0))


def test_softmax_cross_entropy_with_logits():
    logits = randn(4, 3, scale=2.0).astype(np.float64)
    labels = rng.random((4, 3))
    labels /= labels.sum(-1, keepdims=True)
    out = tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.constant(labels), logits=tf.constant(logits)
    )
    np.testing.assert_allclose(out.numpy(), -(labels * _np_log_softmax(logits)).sum(-1), rtol=1e-12)
    out0 = tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.constant(labels), logits=tf.constant(logits), axis=0
    )
    np.testing.assert_allclose(
        out0.numpy(), -(labels * _np_log_softmax(logits, 0)).sum(0), rtol=1e-12
    )
    row = tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.constant(labels[:1]), logits=tf.constant(logits)
    )
    np.testing.assert_allclose(
        row.numpy(), -(labels[:1] * _np_log_softmax(logits)).sum(-1), rtol=1e-12
    )
    ints = tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.constant([[0, 1]]), logits=tf.ones([1, 2])
    )
    assert ints.dtype == tf.float32 and abs(ints.item() - math.log(2)) < 1e-6
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3, 2\].*\[1, 3\]"):
        tf.nn.softmax_cross_entropy_with_logits(
            labels=tf.constant([[0.0, 1.0, 0.0]]), logits=tf.ones([3, 2])
        )


def _np_sigmoid_ce(x, z):
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


def test_sigmoid_cross_entropy_with_logits():
    x = randn(3, 4, scale=5.0).astype(np.float64)
    z = rng.random((3, 4))
    out = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant(z), logits=tf.constant(x))
    np.testing.assert_allclose(out.numpy(), _np_sigmoid_ce(x, z), rtol=1e-12)
    np.testing.assert_allclose(  # the naive formula, where it is stable
        out.numpy(), -(z * np.log(_sigmoid(x)) + (1 - z) * np.log(1 - _sigmoid(x))), rtol=1e-9
    )
    big = tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[100.0, -100.0])
    np.testing.assert_allclose(big.numpy(), [0.0, 0.0], atol=1e-30)  # TF flushes the denormal to 0
    logits = tf.Variable([-1.0, 0.0, 1.0])
    with tf.GradientTape() as tape:
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones([3]), logits=logits).sum()
    np.testing.assert_allclose(
        tape.gradient(loss, logits).numpy(), [-0.7310586, -0.5, -0.26894143], rtol=1e-6
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\].*\[2, 1\]"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones([2, 1]), logits=tf.ones([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
        tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.ones([2], dtype=tf.int32), logits=tf.ones([2])
        )


def test_weighted_cross_entropy_with_logits():
    x = randn(3, 4, scale=4.0).astype(np.float64)
    z = rng.random((3, 4))
    q = np.array([0.5, 1.0, 2.0, 3.0])
    want = (1 - z) * x + (1 + (q - 1) * z) * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))
    out = tf.nn.weighted_cross_entropy_with_logits(
        labels=tf.constant(z), logits=tf.constant(x), pos_weight=tf.constant(q)
    )
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    one = tf.nn.weighted_cross_entropy_with_logits(
        tf.constant(z), tf.constant(x), 1.0
    )  # pos_weight 1: plain
    np.testing.assert_allclose(one.numpy(), _np_sigmoid_ce(x, z), rtol=1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\].*\[2, 1\]"):
        tf.nn.weighted_cross_entropy_with_logits(tf.ones([2, 1]), tf.ones([2, 3]), 2.0)


def test_l2_loss():
    x = randn(3, 4)
    out = tf.nn.l2_loss(tf.constant(x))
    assert out.shape == () and out.dtype == tf.float32
    np.testing.assert_allclose(out.item(), (x.astype(np.float64) ** 2).sum() / 2, rtol=1e-6)
    assert tf.nn.l2_loss(tf.constant([1.0, 2.0], dtype=tf.float64)).dtype == tf.float64
    assert tf.nn.l2_loss([1.0, 2.0, 3.0]).item() == 7.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.l2_loss(tf.constant([1, 2]))


def test_compute_average_loss_and_log_poisson():
    loss = tf.constant([1.0, 2.0, 3.0, 6.0])
    assert tf.nn.compute_average_loss(loss).item() == 3.0
    assert tf.nn.compute_average_loss(loss, global_batch_size=8).item() == 1.5
    assert (
        tf.nn.compute_average_loss(loss, sample_weight=tf.constant([1.0, 0.0, 0.0, 0.5])).item()
        == 1.0
    )
    with pytest.raises(ValueError, match="rank 1"):
        tf.nn.compute_average_loss(tf.constant(1.0))
    t, c = np.array([0.0, 1.0, 3.0]), np.array([0.5, -1.0, 2.0])
    want = np.exp(c) - c * t
    np.testing.assert_allclose(tf.nn.log_poisson_loss(tf.constant(t), tf.constant(c)).numpy(), want)
    safe = np.maximum(t, 1)
    full = want + np.where(t > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0)
    np.testing.assert_allclose(
        tf.nn.log_poisson_loss(tf.constant(t), tf.constant(c), True).numpy(), full
    )


def test_candidate_sampling_losses_equal_tfs():
    """Values recorded from TF 2.15 with the same weights and fixed sampled_values."""
    rng = np.random.default_rng(5)
    w, b, x = (torch.from_numpy(rng.normal(size=s).astype(np.float32)) for s in ((8, 3), (8,), (4, 3)))
    y = np.array([[1], [3], [5], [7]], np.int64)
    sv = (torch.tensor([3, 0, 6]), torch.tensor([[0.3], [0.4], [0.5], [0.6]]), torch.tensor([0.2, 0.7, 0.9]))
    close = np.testing.assert_allclose
    close(tf.nn.nce_loss(w, b, y, x, 3, 8, sampled_values=sv).numpy(),
          [5.008880615234375, 6.355917930603027, 4.1995978355407715, 5.348596572875977], rtol=1e-6)
    close(tf.nn.nce_loss(w, b, y, x, 3, 8, sampled_values=sv, remove_accidental_hits=True).numpy(),
          [5.008880615234375, 4.159298896789551, 4.1995978355407715, 5.348596572875977], rtol=1e-6)
    close(tf.nn.sampled_softmax_loss(w, b, y, x, 3, 8, sampled_values=sv).numpy(),
          [1.5340404510498047, 1.7637479305267334, 3.1301193237304688, 2.2843854427337646], rtol=1e-6)
    close(tf.nn.sampled_softmax_loss(w, b, y, x, 3, 8, sampled_values=sv, remove_accidental_hits=False).numpy(),
          [1.5340404510498047, 2.058506965637207, 3.1301193237304688, 2.2843854427337646], rtol=1e-6)
    close(tf.nn.sampled_softmax_loss([w[:4], w[4:]], b, y, x, 3, 8, sampled_values=sv).numpy(),
          [1.5340404510498047, 1.7637479305267334, 3.1301193237304688, 2.2843854427337646], rtol=1e-6)
    y2 = np.array([[1, 2], [3, 0], [5, 6], [7, 7]], np.int64)
    sv2 = (torch.tensor([3, 0, 6]), torch.tensor([[0.3, 0.1], [0.4, 0.2], [0.5, 0.3], [0.6, 0.6]]),
           torch.tensor([0.2, 0.7, 0.9]))
    close(tf.nn.sampled_softmax_loss(w, b, y2, x, 3, 8, num_true=2, sampled_values=sv2).numpy(),
          [2.295975923538208, 1.4560340642929077, 2.8739891052246094, 2.381363868713379], rtol=1e-6)
    close(tf.nn.nce_loss(w, b, y2, x, 3, 8, num_true=2, sampled_values=sv2).numpy(),
          [6.482891082763672, 9.124202728271484, 4.357292652130127, 6.585270404815674], rtol=1e-6)
    # the default sampler draws its own negatives; the loss trains the weights
    w.requires_grad_(True)
    tf.nn.sampled_softmax_loss(w, b, y, x, 3, 8).sum().backward()
    assert torch.isfinite(w.grad).all() and w.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="num_true=2"):
        tf.nn.nce_loss(w, b, y, x, 3, 8, num_true=2)


def test_candidate_samplers_expected_counts_as_tf():
    classes = torch.tensor([[1, 3], [2, 7]])
    sampled, true_count, sampled_count = tf.random.uniform_candidate_sampler(classes, 2, 5, False, 10, seed=1)
    assert sampled.shape == (5,) and ((sampled >= 0) & (sampled < 10)).all()
    assert torch.allclose(true_count, torch.full((2, 2), 0.5)) and torch.allclose(sampled_count, torch.full((5,), 0.5))
    sampled, true_count, _ = tf.random.uniform_candidate_sampler(classes, 2, 5, True, 10, seed=1)
    assert len(set(sampled.tolist())) == 5  # unique: 1 - 0.9 ** tries, tries >= 5
    assert float(true_count[0, 0]) >= 1 - 0.9 ** 5 - 1e-6
    # log-uniform: P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1); TF: 0.2455967 for class 7 of 10, 5 draws
    _, true_count, _ = tf.random.log_uniform_candidate_sampler(classes, 2, 5, False, 10, seed=1)
    assert abs(float(true_count[1, 1]) - 0.2455967) < 1e-6 and abs(float(true_count[0, 0]) - 0.8454604) < 1e-6
    # fixed unigram: TF gives 0.10909091 / 0.21818182 for classes 1 and 3, 3 draws, unigrams 1..10
    _, true_count, _ = tf.random.fixed_unigram_candidate_sampler(classes, 2, 3, False, 10, unigrams=range(1, 11))
    np.testing.assert_allclose(true_count[0].numpy(), [0.10909091, 0.21818182], rtol=1e-6)
    _, true_count, _ = tf.random.fixed_unigram_candidate_sampler(classes, 2, 3, False, 10, unigrams=range(1, 11),
                                                                 distortion=0.5)
    np.testing.assert_allclose(true_count[0].numpy(), [0.18882802, 0.26704317], rtol=1e-6)
    sampled, true_count, sampled_count = tf.random.all_candidate_sampler(classes, 2, 10, True)
    assert sampled.tolist() == list(range(10)) and bool((true_count == 1).all() and (sampled_count == 1).all())
    rows, ids, weights = tf.nn.compute_accidental_hits(classes, torch.tensor([3, 5, 7, 1]), 2)
    assert rows.tolist() == [0, 0, 1] and ids.tolist() == [3, 0, 2]  # TF 2.15 gives these, in this order
    assert weights.tolist() == [-3.4028234663852886e38] * 3
    assert [a.value for a in tf.random.Algorithm] == [1, 2, 3]
    assert tf.random.create_rng_state(42, "philox").tolist() == [42, 0, 0]
    assert tf.random.create_rng_state(42, "threefry").tolist() == [42, 0]


# ----------------------------------------------------------------------------- embeddings


def test_embedding_lookup_gathers_rows():
    table = randn(5, 3)
    ids = np.array([[0, 4], [2, 2]])
    out = tf.nn.embedding_lookup(tf.constant(table), tf.constant(ids))
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.numpy(), table[ids])
    np.testing.assert_array_equal(tf.nn.embedding_lookup(tf.constant(table), 3).numpy(), table[3])
    np.testing.assert_array_equal(
        tf.nn.embedding_lookup([tf.constant(table)], [1, 0]).numpy(), table[[1, 0]]
    )
    ids16 = tf.constant(np.array([1, 2], dtype=np.int16))
    np.testing.assert_array_equal(
        tf.nn.embedding_lookup(tf.constant(table), ids16).numpy(), table[[1, 2]]
    )


def test_embedding_lookup_max_norm_clips_each_embedding():
    table = np.array([[0.0, 0.0], [3.0, 4.0], [0.3, 0.4]], dtype=np.float32)
    out = tf.nn.embedding_lookup(tf.constant(table), [0, 1, 2], max_norm=1.0)
    np.testing.assert_allclose(out.numpy(), [[0.0, 0.0], [0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    blocks = randn(4, 2, 2, scale=3.0).astype(
        np.float64
    )  # rank-3 params: the norm covers each 2x2 block
    out = tf.nn.embedding_lookup(tf.constant(blocks), [3, 0], max_norm=2.0).numpy()
    for row, i in zip(out, [3, 0]):
        norm = np.sqrt((blocks[i] ** 2).sum())
        np.testing.assert_allclose(row, blocks[i] * 2.0 / max(norm, 2.0), rtol=1e-12)


def test_embedding_lookup_gradient_reaches_the_variable():
    table = tf.Variable(np.array([[0.0, 0.0], [3.0, 4.0]], dtype=np.float32))
    with tf.GradientTape() as tape:
        loss = tf.nn.embedding_lookup(table, [0, 1, 1], max_norm=1.0).sum()
    grad = tape.gradient(loss, table)
    np.testing.assert_allclose(grad.numpy(), [[1.0, 1.0], [0.064, -0.048]], rtol=1e-4, atol=1e-6)


def test_embedding_lookup_sharded_params_use_the_div_strategy():
    table = randn(7, 2)
    shards = [tf.constant(table[:3]), tf.constant(table[3:5]), tf.constant(table[5:])]
    ids = [6, 0, 3, 4, 5, 1, 2]
    np.testing.assert_array_equal(tf.nn.embedding_lookup(shards, ids).numpy(), table[ids])
    with tf.device("/CPU:0"), pytest.raises(
        tf.errors.InvalidArgumentError, match="shard"
    ):  # sizes that 'div' never makes (checked on the CPU, as TF's)
        tf.nn.embedding_lookup([tf.ones([1, 2]), tf.ones([3, 2])], [0, 1, 2, 3])


def test_embedding_lookup_errors():
    with tf.device("/CPU:0"):  # ids are checked on the CPU; a GPU gives zero rows, as TF's
        table = tf.ones([4, 3])
        with pytest.raises(
            tf.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 4\)"
        ):
            tf.nn.embedding_lookup(table, [0, 7])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"-1 is not in \[0, 4\)"):
            tf.nn.embedding_lookup(table, [0, -1])
    table = tf.ones([4, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="float32"):
        tf.nn.embedding_lookup(table, [0.0, 1.0])


class _TFSparse:
    """A TF-like SparseTensor (indices [nnz, 2], values [nnz])."""

    def __init__(self, indices, values):
        self.indices = tf.constant(np.array(indices, dtype=np.int64))
        self.values = tf.constant(np.array(values))


def test_embedding_lookup_sparse_combiners():
    table = randn(5, 3).astype(np.float64)
    indices = [[0, 0], [0, 1], [2, 0]]
    ids, weights = [1, 3, 2], [1.0, 2.0, 3.0]
    sp_ids, sp_w = _TFSparse(indices, ids), _TFSparse(indices, weights)
    sums = np.stack([table[1] * 1 + table[3] * 2, np.zeros(3), table[2] * 3])
    out = tf.nn.embedding_lookup_sparse(tf.constant(table), sp_ids, sp_w, combiner="sum")
    np.testing.assert_allclose(out.numpy(), sums)
    mean = tf.nn.embedding_lookup_sparse(tf.constant(table), sp_ids, sp_w)  # 'mean' by default
    np.testing.assert_allclose(mean.numpy(), sums / np.array([[3.0], [1.0], [3.0]]))
    sqrtn = tf.nn.embedding_lookup_sparse(tf.constant(table), sp_ids, sp_w, combiner="sqrtn")
    np.testing.assert_allclose(sqrtn.numpy(), sums / np.sqrt([[5.0], [1.0], [9.0]]))
    coo = torch.sparse_coo_tensor(
        torch.tensor(indices).T, torch.tensor(ids), (3, 2), check_invariants=True
    )
    unweighted = tf.nn.embedding_lookup_sparse(tf.constant(table), coo, None)
    np.testing.assert_allclose(
        unweighted.numpy(), np.stack([(table[1] + table[3]) / 2, np.zeros(3), table[2]])
    )
    with pytest.raises(ValueError, match="combiner"):
        tf.nn.embedding_lookup_sparse(tf.constant(table), sp_ids, None, combiner="max")


# ----------------------------------------------------------------------------- normalization


def test_moments():
    x = randn(4, 3, 5).astype(np.float64)
    mean, var = tf.nn.moments(tf.constant(x), axes=[0, 1])
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 1)), rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), x.var((0, 1)), rtol=1e-12)
    mean, var = tf.nn.moments(tf.constant(x), axes=[-1], keepdims=True)
    assert mean.shape == (4, 3, 1) and var.shape == (4, 3, 1)
    np.testing.assert_allclose(var.numpy(), x.var(-1, keepdims=True), rtol=1e-12)
    mean, var = tf.nn.moments(tf.constant(x), 0)
    assert mean.shape == (3, 5)
    mean, var = tf.nn.moments(tf.constant(x), [])
    assert torch.equal(mean, tf.constant(x)) and (var.numpy() == 0).all()
    half = tf.nn.moments(tf.constant(x.astype(np.float16)), [0])
    assert half[0].dtype == tf.float16 and half[1].dtype == tf.float16
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis 3"):
        tf.nn.moments(tf.constant(x), [3])


def test_moments_of_integers_stay_integers():
    mean, var = tf.nn.moments(tf.constant([[1, 2], [4, 7]]), [0])
    assert mean.dtype == tf.int32 and var.dtype == tf.int32
    assert mean.tolist() == [2, 4] and var.tolist() == [2, 6]  # truncating division, as TF


def test_batch_normalization():
    x = randn(4, 3).astype(np.float64)
    mean, var = np.array([0.1, -0.2, 0.3]), np.array([1.5, 0.5, 2.0])
    offset, scale = np.array([0.0, 1.0, -1.0]), np.array([2.0, 0.5, 1.0])
    out = tf.nn.batch_normalization(tf.constant(x), mean, var, offset, scale, 1e-3)
    np.testing.assert_allclose(
        out.numpy(), scale * (x - mean) / np.sqrt(var + 1e-3) + offset, rtol=1e-12
    )
    plain = tf.nn.batch_normalization(tf.constant(x), 0.5, 2.0, None, None, 1e-3)
    np.testing.assert_allclose(plain.numpy(), (x - 0.5) / np.sqrt(2.001), rtol=1e-12)
    mixed = tf.nn.batch_normalization(tf.constant(x), tf.zeros([3]), tf.ones([3]), None, None, 1e-3)
    assert mixed.dtype == tf.float64  # statistics of another dtype are cast to x's, as TF


def test_bias_add_layouts():
    x = randn(2, 3, 4, 5)
    b3, b5 = np.float32([1, 2, 3]), np.float32([1, 2, 3, 4, 5])
    np.testing.assert_allclose(tf.nn.bias_add(tf.constant(x), b5).numpy(), x + b5)
    np.testing.assert_allclose(
        tf.nn.bias_add(tf.constant(x), tf.constant(b3), data_format="NCHW").numpy(),
        x + b3[:, None, None],
    )
    np.testing.assert_allclose(
        tf.nn.bias_add(tf.constant(x[:, :, 0]), b3, data_format="NCW").numpy(),
        x[:, :, 0] + b3[:, None],
    )
    np.testing.assert_allclose(tf.nn.bias_add(tf.constant(x[0, 0]), b5, "NC").numpy(), x[0, 0] + b5)
    ints = tf.nn.bias_add(tf.ones([2, 3], dtype=tf.int32), [1, 2, 3])
    assert ints.dtype == tf.int32 and ints.tolist() == [[2, 3, 4], [2, 3, 4]]


def test_bias_add_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\].*\[2, 3\]"):
        tf.nn.bias_add(tf.ones([2, 3]), [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"1D: \[1, 3\]"):
        tf.nn.bias_add(tf.ones([2, 3]), [[1.0, 2.0, 3.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least 2D"):
        tf.nn.bias_add(tf.ones([3]), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="data_format=XYZ"):
        tf.nn.bias_add(tf.ones([2, 3]), [1.0, 2.0, 3.0], data_format="XYZ")
    with pytest.raises(tf.errors.InvalidArgumentError, match="float64 and float32"):
        tf.nn.bias_add(tf.ones([2, 3], dtype=tf.float64), tf.ones([3]))


def test_local_response_normalization():
    x = randn(1, 2, 2, 7).astype(np.float64)
    r, bias, alpha, beta = 2, 1.5, 0.3, 0.75
    sq = np.pad(x**2, [(0, 0), (0, 0), (0, 0), (r, r)])
    sums = np.stack([sq[..., d : d + 2 * r + 1].sum(-1) for d in range(7)], -1)
    out = tf.nn.local_response_normalization(tf.constant(x), r, bias, alpha, beta)
    np.testing.assert_allclose(out.numpy(), x / (bias + alpha * sums) ** beta, rtol=1e-12)
    assert tf.nn.lrn is tf.nn.local_response_normalization
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-dimensional"):
        tf.nn.lrn(tf.ones([2, 7]))


# ------------------------------------------------------------------------ convolution references


def _same_pads(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def _np_conv2d(x, w, strides, padding, dilations=(1, 1)):
    """Direct NHWC convolution (TF's definition), with TF's SAME padding."""
    sh, sw = strides
    dh, dw = dilations
    kh, kw, cin, cout = w.shape
    if padding == "SAME":
        (pt, pb), (pl, pr) = _same_pads(x.shape[1], kh, sh, dh), _same_pads(x.shape[2], kw, sw, dw)
    elif padding == "VALID":
        pt = pb = pl = pr = 0
    else:
        (pt, pb), (pl, pr) = padding
    xp = np.pad(x, [(0, 0), (pt, pb), (pl, pr), (0, 0)])
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((x.shape[0], oh, ow, cout))
    for i in range(kh):
        for j in range(kw):
            patch = xp[
                :,
                i * dh : i * dh + (oh - 1) * sh + 1 : sh,
                j * dw : j * dw + (ow - 1) * sw + 1 : sw,
                :,
            ]
            out += patch @ w[i, j]
    return out


@pytest.mark.parametrize(
    "shape,kernel,strides,padding,dilations",
    [
        ((2, 7, 6, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1)),
        ((1, 8, 7, 2), (4, 2, 2, 3), (2, 3), "SAME", (1, 1)),  # asymmetric SAME padding
        (
            (1, 6, 6, 2),
            (2, 2, 2, 2),
            (1, 1),
            "SAME",
            (1, 1),
        ),  # even kernel, stride 1: pad after only
        ((2, 7, 6, 3), (3, 3, 3, 2), (1, 1), "VALID", (2, 2)),
        ((1, 9, 9, 1), (3, 3, 1, 1), (2, 2), "SAME", (2, 2)),
        ((1, 5, 6, 2), (3, 3, 2, 2), (2, 1), ((2, 0), (1, 3)), (1, 1)),
    ],
)
def test_conv2d_matches_the_direct_definition(shape, kernel, strides, padding, dilations):
    x, w = randn(*shape).astype(np.float64), randn(*kernel).astype(np.float64)
    tf_padding = (
        padding
        if isinstance(padding, str)
        else [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]
    )
    out = tf.nn.conv2d(
        tf.constant(x), tf.constant(w), list(strides), tf_padding, dilations=list(dilations)
    )
    want = _np_conv2d(x, w, strides, padding, dilations)
    assert out.shape == want.shape
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)
    nchw = tf.nn.conv2d(
        tf.constant(x.transpose(0, 3, 1, 2)),
        tf.constant(w),
        list(strides),
        tf_padding
        if isinstance(padding, str)
        else [[0, 0], [0, 0], list(padding[0]), list(padding[1])],
        data_format="NCHW",
        dilations=list(dilations),
    )
    np.testing.assert_allclose(nchw.numpy(), want.transpose(0, 3, 1, 2), rtol=1e-10, atol=1e-10)


def test_conv2d_strides_forms_groups_and_integers():
    x, w = randn(1, 6, 6, 2), randn(3, 3, 2, 3)
    a = tf.nn.conv2d(tf.constant(x), tf.constant(w), 2, "SAME")
    for strides in ([2], [2, 2], [1, 2, 2, 1]):
        assert torch.equal(tf.nn.conv2d(tf.constant(x), tf.constant(w), strides, "SAME"), a)
    xi, wi = (
        rng.integers(-5, 5, (1, 5, 5, 2)).astype(np.int32),
        rng.integers(-3, 3, (3, 3, 2, 2)).astype(np.int32),
    )
    out = tf.nn.conv2d(tf.constant(xi), tf.constant(wi), 1, "SAME")
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), _np_conv2d(xi, wi, (1, 1), "SAME").astype(np.int32))
    xg, wg = randn(1, 5, 5, 4).astype(np.float64), randn(3, 3, 2, 6).astype(np.float64)
    grouped = tf.nn.conv2d(tf.constant(xg), tf.constant(wg), 1, "VALID").numpy()
    want = np.concatenate(
        [
            _np_conv2d(xg[..., :2], wg[..., :3], (1, 1), "VALID"),
            _np_conv2d(xg[..., 2:], wg[..., 3:], (1, 1), "VALID"),
        ],
        -1,
    )
    np.testing.assert_allclose(grouped, want, rtol=1e-10)
    batched = tf.nn.conv2d(
        tf.ones([2, 3, 5, 5, 2]), tf.ones([3, 3, 2, 4]), 1, "SAME"
    )  # extra batch dims
    assert batched.shape == (2, 3, 5, 5, 4)


def test_conv2d_errors():
    x, w = tf.ones([1, 5, 5, 2]), tf.ones([3, 3, 2, 4])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"\[1, 5, 5, 2\].*\[3, 3, 3, 4\].*2 vs 3"
    ):
        tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), 1, "SAME")
    with pytest.raises(ValueError, match="'same'"):
        tf.nn.conv2d(x, w, 1, "same")
    with pytest.raises(ValueError, match="strides should be of length 1, 2 or 4"):
        tf.nn.conv2d(x, w, [2, 1, 1], "SAME")
    with pytest.raises(tf.errors.UnimplementedError, match="batch or channel"):
        tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="size 4"):
        tf.nn.conv2d(x, w, 1, [[1, 2], [0, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative"):
        tf.nn.conv2d(tf.ones([1, 2, 2, 2]), w, 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-D"):
        tf.nn.conv2d(tf.ones([5, 5, 2]), w, 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="float64 and float32"):
        tf.nn.conv2d(tf.ones([1, 5, 5, 2], dtype=tf.float64), w, 1, "SAME")


def test_conv1d_and_conv3d_agree_with_conv2d():
    x, w = randn(2, 9, 3).astype(np.float64), randn(4, 3, 2).astype(np.float64)
    out = tf.nn.conv1d(tf.constant(x), tf.constant(w), 2, "SAME")
    want = _np_conv2d(x[:, None], w[None], (1, 2), "SAME")[:, 0]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)
    ncw = tf.nn.conv1d(
        tf.constant(x.transpose(0, 2, 1)), tf.constant(w), [2], "SAME", data_format="NCW"
    )
    np.testing.assert_allclose(ncw.numpy(), want.transpose(0, 2, 1), rtol=1e-10)
    x3, w3 = randn(1, 1, 6, 5, 2).astype(np.float64), randn(1, 3, 3, 2, 3).astype(np.float64)
    out3 = tf.nn.conv3d(tf.constant(x3), tf.constant(w3), [1, 1, 2, 2, 1], "SAME")
    np.testing.assert_allclose(
        out3.numpy()[:, 0], _np_conv2d(x3[:, 0], w3[0], (2, 2), "SAME"), rtol=1e-10
    )
    np.testing.assert_allclose(
        tf.nn.convolution(tf.constant(x), tf.constant(w), 2, "SAME").numpy(), want, rtol=1e-10
    )


@pytest.mark.parametrize(
    "in_shape,kernel,out_shape,strides,padding",
    [
        ((2, 4, 3, 4), (3, 3, 2, 4), (2, 7, 6, 2), 2, "SAME"),
        ((1, 4, 4, 3), (4, 4, 2, 3), (1, 8, 8, 2), 2, "SAME"),
        ((1, 3, 3, 2), (3, 3, 1, 2), (1, 8, 8, 1), 2, "VALID"),
        ((1, 3, 3, 2), (3, 3, 1, 2), (1, 7, 7, 1), 2, "VALID"),
        ((1, 5, 5, 1), (3, 3, 1, 1), (1, 5, 5, 1), 1, "SAME"),
    ],
)
def test_conv2d_transpose_is_the_adjoint_of_conv2d(in_shape, kernel, out_shape, strides, padding):
    """<conv2d(y, w), x> == <y, conv2d_transpose(x, w)>: the transpose is conv2d's input "
    "gradient."""
    x, w = randn(*in_shape).astype(np.float64), randn(*kernel).astype(np.float64)
    y = randn(*out_shape).astype(np.float64)
    t = tf.nn.conv2d_transpose(tf.constant(x), tf.constant(w), list(out_shape), strides, padding)
    assert tuple(t.shape) == out_shape
    forward = _np_conv2d(y, w, (strides, strides), padding)
    assert forward.shape == x.shape
    np.testing.assert_allclose((forward * x).sum(), (y * t.numpy()).sum(), rtol=1e-10)


def test_conv2d_transpose_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="output_shape"):
        tf.nn.conv2d_transpose(
            tf.ones([1, 3, 3, 4]), tf.ones([3, 3, 2, 4]), [1, 7, 7, 2], 2, "SAME"
        )
    with pytest.raises(tf.errors.InvalidArgumentError, match="channels"):
        tf.nn.conv2d_transpose(
            tf.ones([1, 3, 3, 3]), tf.ones([3, 3, 2, 4]), [1, 6, 6, 2], 2, "SAME"
        )


def test_depthwise_conv2d_is_a_per_channel_conv():
    x, w = randn(1, 7, 6, 3).astype(np.float64), randn(3, 3, 3, 2).astype(np.float64)
    out = tf.nn.depthwise_conv2d(tf.constant(x), tf.constant(w), [1, 2, 2, 1], "SAME").numpy()
    assert out.shape == (1, 4, 3, 6)
    for c in range(3):
        for m in range(2):
            want = _np_conv2d(x[..., c : c + 1], w[:, :, c : c + 1, m : m + 1], (2, 2), "SAME")[
                ..., 0
            ]
            np.testing.assert_allclose(out[..., c * 2 + m], want, rtol=1e-10)


# ----------------------------------------------------------------------------- pooling references


def _np_pool2d(x, k, s, padding, kind):
    (kh, kw), (sh, sw) = k, s
    if padding == "SAME":
        (pt, pb), (pl, pr) = _same_pads(x.shape[1], kh, sh, 1), _same_pads(x.shape[2], kw, sw, 1)
    else:
        pt = pb = pl = pr = 0
    fill = -np.inf if kind == "max" else np.nan
    xp = np.pad(x.astype(np.float64), [(0, 0), (pt, pb), (pl, pr), (0, 0)], constant_values=fill)
    oh, ow = (xp.shape[1] - kh) // sh + 1, (xp.shape[2] - kw) // sw + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for i in range(oh):
        for j in range(ow):
            window = xp[:, i * sh : i * sh + kh, j * sw : j * sw + kw, :]
            out[:, i, j] = window.max((1, 2)) if kind == "max" else np.nanmean(window, (1, 2))
    return out


@pytest.mark.parametrize(
    "shape,k,s,padding",
    [
        ((2, 7, 6, 3), (3, 3), (2, 2), "SAME"),
        ((1, 5, 5, 2), (2, 2), (2, 2), "SAME"),  # pads after only
        ((1, 7, 7, 2), (3, 3), (2, 2), "SAME"),  # symmetric padding
        ((1, 5, 5, 1), (3, 3), (1, 1), "SAME"),
        ((1, 7, 7, 1), (4, 4), (3, 3), "SAME"),
        ((1, 6, 6, 1), (2, 2), (1, 1), "SAME"),
        ((2, 7, 6, 3), (2, 3), (2, 1), "VALID"),
        ((1, 5, 5, 1), (2, 2), (3, 3), "SAME"),  # stride larger than the window
    ],
)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool2d_matches_the_definition(shape, k, s, padding, kind):
    x = randn(*shape) - 2.0  # negative: max pooling must not see padded zeros
    out = getattr(tf.nn, f"{kind}_pool2d")(tf.constant(x), list(k), list(s), padding)
    want = _np_pool2d(x, k, s, padding, kind)
    assert out.shape == want.shape and out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6, atol=1e-6)
    generic = getattr(tf.nn, f"{kind}_pool")(tf.constant(x), [1, *k, 1], [1, *s, 1], padding)
    np.testing.assert_allclose(generic.numpy(), want, rtol=1e-6, atol=1e-6)
    nchw = getattr(tf.nn, f"{kind}_pool2d")(
        tf.constant(x.transpose(0, 3, 1, 2)), list(k), list(s), padding, "NCHW"
    )
    np.testing.assert_allclose(nchw.numpy(), want.transpose(0, 3, 1, 2), rtol=1e-6, atol=1e-6)


def test_pool1d_and_integer_max_pool():
    x = randn(2, 9, 2)
    for kind in ("max", "avg"):
        out = getattr(tf.nn, f"{kind}_pool1d")(tf.constant(x), 4, 3, "SAME")
        want = _np_pool2d(x[:, None], (1, 4), (1, 3), "SAME", kind)[:, 0]
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6, atol=1e-7)
        generic = getattr(tf.nn, f"{kind}_pool")(tf.constant(x), 4, 3, "SAME")
        np.testing.assert_allclose(generic.numpy(), want, rtol=1e-6, atol=1e-7)
    ints = tf.constant(rng.integers(-9, 0, (1, 5, 5, 1)).astype(np.int32))
    out = tf.nn.max_pool2d(ints, 2, 2, "SAME")
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(
        out.numpy(), _np_pool2d(ints.numpy(), (2, 2), (2, 2), "SAME", "max")
    )
    assert tf.nn.max_pool1d(tf.constant([[[1], [5], [2]]]), 2, 1, "VALID").tolist() == [[[5], [5]]]


def test_pool_errors():
    x = tf.ones([1, 5, 5, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.avg_pool2d(tf.ones([1, 5, 5, 2], dtype=tf.int32), 3, 2, "SAME")
    with pytest.raises(ValueError, match="ksize should be of length 1, 2 or 4"):
        tf.nn.max_pool2d(x, [1, 3, 3], 2, "SAME")
    with pytest.raises(tf.errors.UnimplementedError, match="batch"):
        tf.nn.max_pool2d(x, [2, 3, 3, 1], 1, "SAME")
    with pytest.raises(TypeError, match="explicit"):
        tf.nn.avg_pool2d(x, 3, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative"):
        tf.nn.max_pool2d(tf.ones([1, 2, 2, 1]), 3, 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-D"):
        tf.nn.max_pool2d(tf.ones([5, 5, 2]), 2, 2, "SAME")


def test_depth_to_space_and_back():
    x = randn(1, 2, 3, 8)
    d2s = tf.nn.depth_to_space(tf.constant(x), 2)
    assert d2s.shape == (1, 4, 6, 2)
    # TF's definition: out[b, h*bs + i, w*bs + j, c] = in[b, h, w, (i*bs + j)*C' + c]
    np.testing.assert_array_equal(
        d2s.numpy()[0, 2 * 1 + 1, 2 * 2 + 0, 1], x[0, 1, 2, (1 * 2 + 0) * 2 + 1]
    )
    assert torch.equal(tf.nn.space_to_depth(d2s, 2), tf.constant(x))


def test_sufficient_statistics_weighted_moments_and_zero_fraction():
    x = randn(4, 3).astype(np.float64)
    count, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(tf.constant(x), [0])
    assert count.item() == 4.0 and shift is None
    np.testing.assert_allclose(mean_ss.numpy(), x.sum(0))
    np.testing.assert_allclose(var_ss.numpy(), (x**2).sum(0))
    mean, var = tf.nn.normalize_moments(count, mean_ss, var_ss, None)
    np.testing.assert_allclose(mean.numpy(), x.mean(0))
    np.testing.assert_allclose(var.numpy(), x.var(0), atol=1e-12)
    w = rng.random((4, 1))
    mean, var = tf.nn.weighted_moments(tf.constant(x), [0], tf.constant(w))
    want_mean = (x * w).sum(0) / w.sum()
    np.testing.assert_allclose(mean.numpy(), want_mean)
    np.testing.assert_allclose(var.numpy(), (w * (x - want_mean) ** 2).sum(0) / w.sum())
    assert tf.nn.zero_fraction(tf.constant([0, 1, 0, 3])).item() == 0.5
    total = tf.nn.scale_regularization_loss([tf.constant(1.5), tf.constant([0.5, 1.0])])
    assert total.item() == 3.0
