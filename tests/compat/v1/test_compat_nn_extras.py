"""tf.compat.v1.nn's added names (issue 32: TF1 spellings, conv gradients, quantized ops)
against TF 2.15's recorded outputs."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from _tf_api_extras import assert_same, expected
from torchestimator.errors import InvalidArgumentError

V = tf.compat.v1.nn


def rnd(seed, *shape):
    return torch.from_numpy(np.random.RandomState(seed).randn(*shape).astype(np.float32))


def _sparse(indices, values, shape):
    return torch.sparse_coo_tensor(torch.tensor(indices).t(), torch.tensor(values), shape,
                                   check_invariants=True)


d_in, d_f = rnd(16, 1, 6, 6, 2), rnd(17, 3, 3, 2)
m_in = rnd(18, 2, 4, 5, 3)
p_in = rnd(19, 1, 6, 6, 2)
s_in = torch.arange(32, dtype=torch.float32).reshape(2, 4, 4, 1)
bn = [rnd(23, 2, 3, 4)] + [rnd(s, 4).abs() + 0.5 for s in (24, 25, 26, 27)]
emb = rnd(28, 5, 3)
IDS = ([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [1, 4, -1, 2, 2], (4, 2))
WTS = ([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [1.0, 2.0, 1.0, 0.0, 3.0], (4, 2))
Q = torch.tensor([[[[0], [64], [128], [255]], [[10], [20], [30], [40]],
                   [[255], [0], [3], [9]], [[1], [2], [200], [100]]]], dtype=torch.uint8)
QF = torch.tensor([[[[0, 255]], [[128, 3]]], [[[7, 9]], [[255, 255]]]],
                  dtype=torch.uint8).reshape(2, 2, 1, 2)

CASES = {
    "depthwise_native_backprop_filter": lambda: V.depthwise_conv2d_native_backprop_filter(
        rnd(6, 1, 5, 5, 2), [3, 3, 2, 2], rnd(9, 1, 3, 3, 4), [1, 1, 1, 1], "VALID"),
    "depthwise_native_backprop_input": lambda: V.depthwise_conv2d_native_backprop_input(
        [1, 5, 5, 2], rnd(8, 3, 3, 2, 2), rnd(9, 1, 3, 3, 4), [1, 1, 1, 1], "VALID"),
    "conv2d_backprop_filter": lambda: V.conv2d_backprop_filter(
        rnd(10, 1, 5, 5, 2), [3, 3, 2, 3], rnd(11, 1, 5, 5, 3), [1, 1, 1, 1], "SAME"),
    "conv2d_backprop_filter_s2": lambda: V.conv2d_backprop_filter(
        rnd(10, 2, 6, 6, 2), [3, 3, 2, 3], rnd(12, 2, 3, 3, 3), [1, 2, 2, 1], "SAME"),
    "conv3d_backprop_filter": lambda: V.conv3d_backprop_filter(
        rnd(13, 1, 4, 4, 4, 2), [2, 2, 2, 2, 3], rnd(14, 1, 3, 3, 3, 3), [1, 1, 1, 1, 1],
        "VALID"),
    "conv3d_backprop_filter_v2": lambda: V.conv3d_backprop_filter_v2(
        rnd(13, 1, 4, 4, 4, 2), [2, 2, 2, 2, 3], rnd(15, 1, 2, 2, 2, 3), [1, 2, 2, 2, 1],
        "SAME"),
    "v1_dilation2d": lambda: V.dilation2d(d_in, d_f, [1, 1, 1, 1], [1, 2, 1, 1], "SAME"),
    "v1_erosion2d": lambda: V.erosion2d(d_in, d_f, [1, 1, 1, 1], [1, 1, 2, 1], "VALID"),
    "v1_max_pool_with_argmax": lambda: V.max_pool_with_argmax(
        m_in, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", Targmax=tf.int32),
    "v1_pool": lambda: V.pool(p_in, [2, 2], "AVG", "VALID", dilation_rate=[1, 2]),
    "v1_space_to_batch": lambda: V.space_to_batch(s_in, [[1, 1], [0, 0]], block_size=2),
    "v1_batch_norm_global": lambda: V.batch_norm_with_global_normalization(
        t=bn[0], m=bn[1], v=bn[2], beta=bn[3], gamma=bn[4], variance_epsilon=0.01,
        scale_after_normalization=True),
    "v1_safe_embedding": lambda: V.safe_embedding_lookup_sparse(
        emb, _sparse(*IDS), _sparse(*WTS), combiner="mean", default_id=3),
    "quantized_avg_pool": lambda: V.quantized_avg_pool(Q, -1.0, 2.0, [1, 2, 2, 1],
                                                       [1, 2, 2, 1], "VALID"),
    "quantized_avg_pool_same": lambda: V.quantized_avg_pool(Q, 0.0, 1.0, [1, 3, 3, 1],
                                                            [1, 2, 2, 1], "SAME"),
    "quantized_max_pool": lambda: V.quantized_max_pool(Q, -1.0, 2.0, [1, 2, 2, 1], [1, 1, 1, 1],
                                                       "SAME"),
    "quantized_conv2d": lambda: V.quantized_conv2d(Q, QF, 0.0, 1.0, -1.0, 1.0, [1, 1, 1, 1],
                                                   "VALID"),
    "quantized_conv2d_same": lambda: V.quantized_conv2d(Q, QF, -2.0, 3.0, 0.0, 2.0,
                                                        [1, 2, 2, 1], "SAME"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    assert_same(CASES[name](), expected(name), rtol=1e-4, atol=1e-4)


def test_quantized_relu_x_clamps_to_zero_and_max_levels():
    """TF 2.15's CPU build registers no QuantizedReluX kernel; TF's kernel source clamps the
    quantized values to the levels of 0.0 and max_value in [min_features, max_features]."""
    out, lo, hi = V.quantized_relu_x(Q, 1.5, -1.0, 2.0)
    # levels: 0.0 -> 85, 1.5 -> 213 (255 steps over [-1, 2], TF's range adjustment)
    assert out.dtype == torch.uint8
    assert int(out.min()) == 85 and int(out.max()) == 213
    assert float(lo) == -1.0 and float(hi) == 2.0
    dequant = -1.0 + out.double() * 3.0 / 255.0
    want = (-1.0 + Q.double() * 3.0 / 255.0).clamp(0.0, 1.5)
    assert float((dequant - want).abs().max()) < 3.0 / 255.0
    out, _, _ = V.quantized_relu_x(Q, 0.7, 0.0, 1.0)
    assert int(out.min()) == 0 and int(out.max()) == 178  # round(0.7f * 255) = 178


def test_quantized_errors_name_the_argument():
    with pytest.raises(TypeError, match="input"):
        V.quantized_avg_pool(Q.float(), 0.0, 1.0, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="min_input"):
        V.quantized_conv2d(Q, QF, 2.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="in_channels"):
        V.quantized_conv2d(Q, QF.repeat(1, 1, 2, 1), 0.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "VALID")


def test_v1_fractional_pools_take_seed2():
    out, rows, cols = V.fractional_avg_pool(rnd(30, 1, 8, 8, 1), [1.0, 1.5, 1.5, 1.0],
                                            deterministic=True, seed=3, seed2=4)
    again = V.fractional_avg_pool(rnd(30, 1, 8, 8, 1), [1.0, 1.5, 1.5, 1.0],
                                  deterministic=True, seed=3, seed2=4)
    assert out.shape == (1, 5, 5, 1) and torch.equal(out, again[0])
    out, _, _ = V.fractional_max_pool(rnd(30, 1, 8, 8, 1), [1.0, 2.0, 2.0, 1.0], seed=1)
    assert out.shape == (1, 4, 4, 1)


def test_approx_and_tf2_names_are_shared():
    assert V.approx_max_k is tf.nn.approx_max_k
    assert V.conv_transpose is tf.nn.conv_transpose
    assert V.with_space_to_batch is tf.nn.with_space_to_batch
    assert V.depthwise_conv2d_backprop_filter is tf.nn.depthwise_conv2d_backprop_filter
    assert V.atrous_conv2d_transpose is tf.nn.atrous_conv2d_transpose
    assert callable(V.experimental.stateless_dropout)
