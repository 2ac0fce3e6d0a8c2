"""tf.nn's added names (issue 32) against TF 2.15's recorded outputs."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from _tf_api_extras import assert_same, error, expected
from torchestimator.errors import InvalidArgumentError

N = tf.nn


def rnd(seed, *shape):
    return torch.from_numpy(np.random.RandomState(seed).randn(*shape).astype(np.float32))


def _sparse(indices, values, shape):
    return torch.sparse_coo_tensor(torch.tensor(indices).t(), torch.tensor(values), shape,
                                   check_invariants=True)


x = rnd(0, 1, 7, 7, 2)
f = rnd(1, 3, 3, 2, 3)
d_in, d_f = rnd(16, 1, 6, 6, 2), rnd(17, 3, 3, 2)
m_in = rnd(18, 2, 4, 5, 3)
p_in = rnd(19, 1, 6, 6, 2)
s_in = torch.arange(32, dtype=torch.float32).reshape(2, 4, 4, 1)
w_f = rnd(21, 3, 3, 2, 2)
bn = [rnd(23, 2, 3, 4)] + [rnd(s, 4).abs() + 0.5 for s in (24, 25, 26, 27)]
emb = rnd(28, 5, 3)
IDS = ([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [1, 4, -1, 2, 2], (4, 2))
WTS = ([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [1.0, 2.0, 1.0, 0.0, 3.0], (4, 2))


def conv_op(inp, num_spatial_dims, padding):
    return tf.nn.conv2d(inp, w_f, [1, 1, 1, 1], padding)


def iso_int():
    return N.isotonic_regression(torch.tensor([3, 1, 2, 5], dtype=torch.int32))


CASES = {
    "atrous_conv2d_same": lambda: N.atrous_conv2d(x, f, 2, "SAME"),
    "atrous_conv2d_valid": lambda: N.atrous_conv2d(x, f, 2, "VALID"),
    "atrous_conv2d_transpose_same": lambda: N.atrous_conv2d_transpose(
        rnd(2, 1, 5, 5, 3), rnd(3, 3, 3, 2, 3), [1, 5, 5, 2], 2, "SAME"),
    "atrous_conv2d_transpose_valid": lambda: N.atrous_conv2d_transpose(
        rnd(2, 1, 5, 5, 3), rnd(3, 3, 3, 2, 3), [1, 9, 9, 2], 2, "VALID"),
    "conv_transpose_1d": lambda: N.conv_transpose(rnd(4, 1, 4, 2), rnd(5, 3, 5, 2), [1, 8, 5], 2),
    "conv_transpose_2d": lambda: N.conv_transpose(rnd(4, 1, 3, 3, 2), rnd(5, 3, 3, 4, 2),
                                                  [1, 6, 6, 4], [2, 2], "SAME"),
    "depthwise_backprop_filter": lambda: N.depthwise_conv2d_backprop_filter(
        rnd(6, 1, 5, 5, 2), [3, 3, 2, 2], rnd(7, 1, 3, 3, 4), [1, 2, 2, 1], "SAME"),
    "depthwise_backprop_input": lambda: N.depthwise_conv2d_backprop_input(
        [1, 5, 5, 2], rnd(8, 3, 3, 2, 2), rnd(7, 1, 3, 3, 4), [1, 2, 2, 1], "SAME"),
    "dilation2d_same": lambda: N.dilation2d(d_in, d_f, [1, 1, 1, 1], "SAME", "NHWC", [1, 2, 2, 1]),
    "dilation2d_valid_s2": lambda: N.dilation2d(d_in, d_f, [1, 2, 2, 1], "VALID", "NHWC",
                                                [1, 1, 1, 1]),
    "erosion2d_same": lambda: N.erosion2d(d_in, d_f, [1, 1, 1, 1], "SAME", "NHWC", [1, 2, 2, 1]),
    "erosion2d_valid": lambda: N.erosion2d(d_in, d_f, [1, 2, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]),
    "isotonic_dec": lambda: N.isotonic_regression([[1.0, 3.0, 2.0, 4.0], [5.0, 1.0, 2.0, 0.0]]),
    "isotonic_inc": lambda: N.isotonic_regression([[1.0, 3.0, 2.0, 4.0], [5.0, 1.0, 2.0, 0.0]],
                                                  decreasing=False),
    "isotonic_axis0": lambda: N.isotonic_regression(
        torch.tensor([[1.0, 3.0], [2.0, 4.0], [7.0, 0.0]], dtype=torch.float64), axis=0),
    "isotonic_int": iso_int,
    "isotonic_f16": lambda: N.isotonic_regression(torch.tensor([3, 1, 2, 5], dtype=torch.float16)),
    "max_pool_with_argmax": lambda: N.max_pool_with_argmax(m_in, 2, 2, "SAME"),
    "max_pool_with_argmax_batch": lambda: N.max_pool_with_argmax(
        m_in, [1, 3, 2, 1], [1, 1, 2, 1], "VALID", output_dtype=tf.int32,
        include_batch_in_index=True),
    "pool_max_dil": lambda: N.pool(p_in, [2, 2], "MAX", padding="VALID", dilations=[2, 2]),
    "pool_avg_dil": lambda: N.pool(p_in, [2, 2], "AVG", padding="VALID", dilations=[2, 2]),
    "pool_avg_dil_valid": lambda: N.pool(p_in, [3, 2], "AVG", padding="VALID", dilations=[2, 1]),
    "pool_avg_s2": lambda: N.pool(p_in, [2, 2], "AVG", strides=[2, 2], padding="VALID"),
    "pool_avg_same": lambda: N.pool(p_in, [3, 3], "AVG", strides=[2, 2], padding="SAME"),
    "pool_max_1d": lambda: N.pool(rnd(20, 2, 7, 3), [3], "MAX", strides=[2], padding="SAME"),
    "space_to_batch": lambda: N.space_to_batch(s_in, [2, 2], [[0, 0], [2, 0]]),
    "with_space_to_batch_same": lambda: N.with_space_to_batch(
        rnd(22, 1, 7, 6, 2), [2, 2], "SAME", conv_op, filter_shape=[3, 3]),
    "with_space_to_batch_valid": lambda: N.with_space_to_batch(rnd(22, 1, 7, 6, 2), [2, 1],
                                                               "VALID", conv_op),
    "with_space_to_batch_rate1": lambda: N.with_space_to_batch(rnd(22, 1, 7, 6, 2), [1, 1],
                                                               "SAME", conv_op),
    "batch_norm_global": lambda: N.batch_norm_with_global_normalization(*bn, 0.001, True),
    "batch_norm_global_noscale": lambda: N.batch_norm_with_global_normalization(*bn, 0.001,
                                                                                False),
    "safe_embedding_mean": lambda: N.safe_embedding_lookup_sparse(emb, _sparse(*IDS)),
    "safe_embedding_sum_default": lambda: N.safe_embedding_lookup_sparse(
        emb, _sparse(*IDS), combiner="sum", default_id=0),
    "safe_embedding_weights_sqrtn": lambda: N.safe_embedding_lookup_sparse(
        emb, _sparse(*IDS), _sparse(*WTS), combiner="sqrtn"),
    "safe_embedding_maxnorm": lambda: N.safe_embedding_lookup_sparse(
        [emb[:3], emb[3:]], _sparse(*IDS), max_norm=1.0),
    "safe_embedding_rank3": lambda: N.safe_embedding_lookup_sparse(
        emb, _sparse([[0, 0, 0], [0, 1, 0], [1, 0, 1]], [1, 2, 3], (2, 2, 2))),
    "general_dropout": lambda: N.experimental.general_dropout(
        torch.ones(2, 3), 0.5,
        lambda shape, dtype: (torch.arange(6, dtype=dtype) / 6.0).reshape(shape)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    assert_same(CASES[name](), expected(name), rtol=1e-4, atol=1e-5)


def test_approx_top_k_match_tf():
    vals, idx = N.approx_max_k(rnd(29, 3, 10), 4)
    want_vals, want_idx = expected("approx_max_k")
    assert_same(vals, want_vals)
    assert_same(idx, want_idx)
    # TF 2.15's CPU build has no ApproxTopK kernel for min (XLA only): exact bottom-k here
    data = rnd(29, 3, 10)
    vals, idx = N.approx_min_k(data, 2)
    want = torch.topk(data, 2, largest=False)
    assert torch.equal(vals, want.values) and torch.equal(idx.long(), want.indices)


def test_stateless_dropout_matches_tf_bit_for_bit():
    """TF's Philox stream: the masks are TF's for the same seed."""
    x = torch.ones(3, 8)
    assert_same(N.experimental.stateless_dropout(x, 0.5, seed=[1, 2]),
                expected("stateless_dropout"))
    shared = N.experimental.stateless_dropout(x, 0.25, seed=[3, 4], noise_shape=[1, 8])
    assert_same(shared, expected("stateless_dropout_noise"))
    assert not torch.equal(N.experimental.stateless_dropout(x, 0.5, seed=[2, 2]),
                           N.experimental.stateless_dropout(x, 0.5, seed=[1, 2]))
    with pytest.raises(ValueError, match="rate"):
        N.experimental.stateless_dropout(x, 1.0, seed=[1, 2])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_philox_stateless_uniform_is_tfs(dtype):
    from torchestimator._ops.random_ops._stateless_extras import philox_stateless_uniform

    out = philox_stateless_uniform([3, 5], [7, -3], dtype=getattr(torch, dtype))
    assert_same(out.float() if dtype == "bfloat16" else out,
                expected(f"stateless_uniform_{dtype}"), rtol=0, atol=0)


ERRORS = {
    "atrous_conv2d_err_rate": (lambda: N.atrous_conv2d(x, f, 0, "SAME"), ValueError, "rate"),
    "dilation2d_err_format": (lambda: N.dilation2d(d_in, d_f, [1, 1, 1, 1], "SAME", "NCHW",
                                                   [1, 1, 1, 1]), ValueError, "data_format"),
    "max_pool_with_argmax_err": (lambda: N.max_pool_with_argmax(m_in, 2, 2, "SAME",
                                                                data_format="NCHW"),
                                 ValueError, "data_format"),
    "pool_err_type": (lambda: N.pool(p_in, [2, 2], "MIN"), ValueError, "MIN pooling"),
    "pool_err_both": (lambda: N.pool(p_in, [2, 2], "MAX", strides=[2, 2], dilations=[2, 2]),
                      ValueError, "strides"),
    "pool_err_same_dil": (lambda: N.pool(p_in, [2, 2], "MAX", padding="SAME", dilations=[2, 2]),
                          ValueError, "SAME"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_tf(name):
    fn, cls, words = ERRORS[name]
    error(name)
    with pytest.raises(cls, match=words):
        fn()


def test_backprop_checks_out_backprop_shape():
    with pytest.raises(InvalidArgumentError, match="out_backprop"):
        N.depthwise_conv2d_backprop_filter(rnd(6, 1, 5, 5, 2), [3, 3, 2, 2], rnd(7, 1, 4, 4, 4),
                                           [1, 2, 2, 1], "SAME")
    with pytest.raises(ValueError, match="input_sizes"):
        N.depthwise_conv2d_backprop_input([1, 5, 5], rnd(8, 3, 3, 2, 2), rnd(7, 1, 3, 3, 4),
                                          [1, 2, 2, 1], "SAME")


def test_with_space_to_batch_same_needs_filter_shape():
    with pytest.raises(ValueError, match="filter_shape"):
        N.with_space_to_batch(rnd(22, 1, 7, 6, 2), [2, 2], "SAME", conv_op)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_pool_regions(kind, pseudo_random, overlapping):
    """TF's kernel's random draws are its own; the structure is TF's: floor(size / ratio)
    regions, sequences from 0 to the size, each output the max/mean of its region."""
    value = rnd(30, 2, 10, 9, 3)
    fn = N.fractional_max_pool if kind == "max" else N.fractional_avg_pool
    out, rows, cols = fn(value, [1.0, 1.44, 1.73, 1.0], pseudo_random=pseudo_random,
                         overlapping=overlapping, seed=7)
    assert out.shape == (2, 6, 5, 3) and rows.dtype == torch.int64
    assert rows[0] == 0 and rows[-1] == 10 and cols[0] == 0 and cols[-1] == 9
    assert bool((rows[1:] > rows[:-1]).all()) and bool((cols[1:] > cols[:-1]).all())
    for i in range(6):
        for j in range(5):
            r1 = min(int(rows[i + 1]) + overlapping, 10)
            c1 = min(int(cols[j + 1]) + overlapping, 9)
            region = value[:, int(rows[i]):r1, int(cols[j]):c1, :]
            want = region.amax((1, 2)) if kind == "max" else region.mean((1, 2))
            torch.testing.assert_close(out[:, i, j, :], want)
    again = fn(value, [1.0, 1.44, 1.73, 1.0], pseudo_random=pseudo_random,
               overlapping=overlapping, seed=7)
    assert torch.equal(again[1], rows) and torch.equal(again[2], cols)


def test_fractional_pool_rejects_batch_ratio():
    with pytest.raises(InvalidArgumentError, match="pooling_ratio"):
        N.fractional_max_pool(rnd(30, 2, 10, 9, 3), [2.0, 1.5, 1.5, 1.0])


def test_rnn_cell_wrappers_run_keras_cells():
    torch.manual_seed(0)
    x = torch.randn(2, 5, 3)
    cell = tf.keras.layers.SimpleRNNCell(3)
    plain = tf.keras.layers.RNN(cell, return_sequences=True)
    want = plain(x)
    # the residual wrapper adds each step's input to the cell's output (states unchanged)
    res = tf.keras.layers.RNN(N.RNNCellResidualWrapper(cell), return_sequences=True)
    torch.testing.assert_close(res(x), want + x.to(want.device))  # (on the weights' device)
    dev = tf.keras.layers.RNN(N.RNNCellDeviceWrapper(cell, "/cpu:0"), return_sequences=True)
    torch.testing.assert_close(dev(x), want)
    keep = tf.keras.layers.RNN(N.RNNCellDropoutWrapper(cell), return_sequences=True)
    torch.testing.assert_close(keep(x), want)
    drop = N.RNNCellDropoutWrapper(cell, output_keep_prob=0.5, seed=3)
    out = tf.keras.layers.RNN(drop, return_sequences=True)(x)
    kept = out != 0
    torch.testing.assert_close(out[kept], 2 * want[kept])
    assert 0 < int(kept.sum()) < out.numel()
    lstm = N.RNNCellDropoutWrapper(tf.keras.layers.LSTMCell(4), state_keep_prob=0.5)
    assert lstm.state_size == [4, 4] or tuple(lstm.state_size) == (4, 4)
    assert tf.keras.layers.RNN(lstm)(x).shape == (2, 4)
    with pytest.raises(ValueError, match="input_keep_prob"):
        N.RNNCellDropoutWrapper(cell, input_keep_prob=1.5)
    with pytest.raises(TypeError, match="cell"):
        N.RNNCellResidualWrapper(object())
    assert {"RNNCellDeviceWrapper", "RNNCellDropoutWrapper", "RNNCellResidualWrapper"} <= set(
        dir(N))


def test_safe_embedding_lookup_takes_sparse_tensor_and_variables():
    weights = tf.Variable(emb)
    ids = tf.SparseTensor(IDS[0], torch.tensor(IDS[1], dtype=torch.int64), IDS[2])
    out = N.safe_embedding_lookup_sparse(weights, ids)
    assert_same(out.detach(), expected("safe_embedding_mean"), rtol=1e-5)
    out.sum().backward()
    assert weights.grad is not None and float(weights.grad[0].abs().sum()) == 0.0
    with pytest.raises(ValueError, match="combiner"):
        N.safe_embedding_lookup_sparse(emb, ids, combiner="max")
    with pytest.raises(TypeError, match="sparse_ids"):
        N.safe_embedding_lookup_sparse(emb, torch.tensor([[1, 2]]))
