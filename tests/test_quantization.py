"""tf.quantization's fake-quant ops (and gradients) and quantize_and_dequantize against TF 2.15
(values recorded by tools/make_tf_api_types_fixtures.py)."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf
from _api_types_fixtures import FIXTURES
from torchestimator.compat.v1._refusals import GraphMachineryError

TF = FIXTURES["quantization"]
q = tf.quantization


def _x():
    return tf.constant(TF["x"])


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got.detach()), np.asarray(want), atol=1e-6)


def test_fake_quant_args_and_vars():
    x = _x()
    _close(q.fake_quant_with_min_max_args(x), TF["args"])
    _close(q.fake_quant_with_min_max_args(x, min=-1.1, max=2.3, num_bits=4, narrow_range=True), TF["args_narrow4"])
    _close(q.fake_quant_with_min_max_args_gradient(tf.ones_like(x), x, min=-1.0, max=1.0), TF["args_grad"])
    _close(q.fake_quant_with_min_max_vars(x, -0.7, 3.1), TF["vars"])
    g = tf.range(9, dtype=tf.float32) + 1.0
    for got, want in zip(q.fake_quant_with_min_max_vars_gradient(g, x, -0.7, 3.1), TF["vars_grad"]):
        _close(got, want)
    assert tf.compat.v1.fake_quant_with_min_max_vars is q.fake_quant_with_min_max_vars


def test_fake_quant_per_channel_and_autograd():
    m = tf.reshape(_x()[:8], [4, 2])
    mins, maxs = tf.constant([-1.0, -0.2]), tf.constant([1.0, 6.0])
    _close(q.fake_quant_with_min_max_vars_per_channel(m, mins, maxs), TF["per_channel"])
    grads = q.fake_quant_with_min_max_vars_per_channel_gradient(tf.ones_like(m) * 2.0, m, mins, maxs)
    for got, want in zip(grads, TF["per_channel_grad"]):
        _close(got, want)
    lo, hi = tf.Variable([-1.0, -0.2]), tf.Variable([1.0, 6.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(q.fake_quant_with_min_max_vars_per_channel(m, lo, hi) * 2.0)
    d_lo, d_hi = tape.gradient(y, [lo, hi])
    _close(d_lo, TF["per_channel_grad"][1])
    _close(d_hi, TF["per_channel_grad"][2])


def test_quantize_and_dequantize():
    x = _x()
    _close(q.quantize_and_dequantize(x, 0.0, 0.0), TF["qdq"])
    _close(q.quantize_and_dequantize_v2(x, -1.0, 2.0, range_given=True, num_bits=4), TF["qdq_given"])
    _close(q.quantize_and_dequantize_v2(tf.abs(x), 0.0, 0.0, signed_input=False, round_mode="HALF_UP"),
           TF["qdq_unsigned_half_up"])
    m = tf.reshape(x[:8], [4, 2])
    _close(q.quantize_and_dequantize_v2(m, [0.0, 0.0], [0.0, 0.0], axis=1, narrow_range=True), TF["qdq_axis"])
    v = tf.Variable(x)
    g = tf.range(9, dtype=tf.float32) + 1.0
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(q.quantize_and_dequantize_v2(v, -1.0, 2.0, range_given=True) * g)
    _close(tape.gradient(y, v), TF["qdq_v2_grad"])


def test_errors_and_refused_quantizer():
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_bits must be between 2 and 16"):
        q.fake_quant_with_min_max_args(_x(), num_bits=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="min has to be smaller than max"):
        q.fake_quant_with_min_max_args(_x(), min=1.0, max=1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid range"):
        q.quantize_and_dequantize_v2(_x(), 2.0, 1.0, range_given=True)
    with pytest.raises(GraphMachineryError, match="torch.ao.quantization"):
        q.experimental.quantize_saved_model("model")
