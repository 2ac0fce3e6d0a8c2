"""Tests of MultiHeadAttention, Attention and AdditiveAttention: shapes, Keras weight
layout, numerics against explicit computations and torch.nn.MultiheadAttention, masks,
dropout, configs and errors."""

import json
import math

import numpy as np
import pytest
import torch

import torchestimator as tf
import torchestimator.keras.layers as layers
from _harness.layers import on_default_device


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    tf.keras.backend.clear_session()


def _reference_mha(layer, query, value, key=None, mask=None):
    """MultiHeadAttention written out with einsums, from the layer's Keras-layout weights."""
    key = value if key is None else key
    wq, bq, wk, bk, wv, bv, wo, bo = (torch.as_tensor(w, device=query.device) for w in layer.get_weights())
    q = torch.einsum("btd,dhk->bthk", query, wq) + bq
    k = torch.einsum("bsd,dhk->bshk", key, wk) + bk
    v = torch.einsum("bsd,dhk->bshk", value, wv) + bv
    scores = torch.einsum("bthk,bshk->bhts", q / math.sqrt(wq.shape[-1]), k)
    if mask is not None:
        scores = scores + (~mask[:, None]).float() * -1e9
    weights = scores.softmax(-1)
    out = torch.einsum("bhts,bshv->bthv", weights, v)
    return torch.einsum("bthv,hvo->bto", out, wo) + bo, weights


# ---------------------------------------------------------------------------- MHA
def test_mha_shapes_and_parameter_count():
    q, v = on_default_device([torch.randn(2, 4, 6), torch.randn(2, 5, 7)])
    layer = layers.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=5)
    out, scores = layer(q, v, return_attention_scores=True)
    assert out.shape == (2, 4, 6) and scores.shape == (2, 3, 4, 5)
    assert [w.shape for w in layer.get_weights()] == [
        (6, 3, 2), (3, 2), (7, 3, 2), (3, 2), (7, 3, 5), (3, 5), (3, 5, 6), (6,)]
    assert layer.count_params() == (6 * 6 + 6) + (7 * 6 + 6) + (7 * 15 + 15) + (15 * 6 + 6)
    sym = layers.MultiHeadAttention(2, 4)(tf.keras.Input((4, 6)), tf.keras.Input((5, 7)))
    assert sym.shape == (None, 4, 6)
    sym_out, sym_scores = layers.MultiHeadAttention(2, 4)(
        tf.keras.Input((4, 6)), tf.keras.Input((5, 7)), return_attention_scores=True)
    assert sym_scores.shape == (None, 2, 4, 5)
    custom = layers.MultiHeadAttention(2, 4, output_shape=(3, 2))
    assert custom(q, v).shape == (2, 4, 3, 2)
    assert custom.get_weights()[-2].shape == (2, 4, 3, 2)
    no_bias = layers.MultiHeadAttention(2, 4, use_bias=False)
    no_bias(q, v)
    assert len(no_bias.weights) == 4


def test_mha_matches_explicit_computation_and_sdpa_path():
    q, v, k = on_default_device([torch.randn(2, 4, 6), torch.randn(2, 5, 7), torch.randn(2, 5, 3)])
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, bias_initializer="random_normal")
    out, scores = layer(q, v, key=k, return_attention_scores=True)
    ref_out, ref_scores = _reference_mha(layer, q, v, k)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(scores, ref_scores, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(layer(q, v, key=k), out, atol=1e-5, rtol=1e-5)  # SDPA path


def test_mha_equals_torch_multihead_attention():
    embed, heads = 8, 2
    ref = on_default_device(torch.nn.MultiheadAttention(embed, heads, batch_first=True))
    layer = layers.MultiHeadAttention(num_heads=heads, key_dim=embed // heads)
    x = on_default_device(torch.randn(3, 5, embed))
    layer(x, x)
    wq, wk, wv = ref.in_proj_weight.detach().chunk(3)
    bq, bk, bv = ref.in_proj_bias.detach().chunk(3)
    kd = embed // heads
    weights = [
        wq.T.reshape(embed, heads, kd), bq.reshape(heads, kd),
        wk.T.reshape(embed, heads, kd), bk.reshape(heads, kd),
        wv.T.reshape(embed, heads, kd), bv.reshape(heads, kd),
        ref.out_proj.weight.detach().T.reshape(heads, kd, embed), ref.out_proj.bias.detach(),
    ]
    layer.set_weights([w.numpy() for w in weights])
    causal = on_default_device(torch.ones(5, 5, dtype=torch.bool).tril())
    torch.testing.assert_close(layer(x, x), ref(x, x, x)[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(
        layer(x, x, use_causal_mask=True), ref(x, x, x, attn_mask=~causal)[0], atol=1e-5, rtol=1e-5)


def test_mha_masks():
    q, v = on_default_device([torch.randn(2, 4, 6), torch.randn(2, 5, 6)])
    layer = layers.MultiHeadAttention(2, 3)
    mask = torch.rand(2, 4, 5) > 0.3
    mask[:, :, 0] = True
    mask = on_default_device(mask)
    out, scores = layer(q, v, attention_mask=mask, return_attention_scores=True)
    assert torch.all(scores.masked_select(~mask[:, None].expand_as(scores)) < 1e-6)
    ref_out, _ = _reference_mha(layer, q, v, mask=mask)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(layer(q, v, attention_mask=mask), out, atol=1e-5, rtol=1e-5)
    _, causal = layer(q, q, use_causal_mask=True, return_attention_scores=True)
    assert torch.all(causal[..., 0, 1:] == 0) and torch.all(causal.triu(1) == 0)


def test_mha_uses_keras_masks_from_embedding():
    embedding = layers.Embedding(10, 8, mask_zero=True)
    layer = layers.MultiHeadAttention(2, 4)
    ids = np.array([[3, 4, 5, 0, 0], [6, 7, 0, 0, 0]])
    x = embedding(ids)
    out, scores = layer(x, x, return_attention_scores=True)
    assert torch.all(scores[0, :, :3, 3:] < 1e-6) and torch.all(scores[1, :, :2, 2:] < 1e-6)
    assert out._keras_mask is not None and out._keras_mask.tolist() == (ids != 0).tolist()
    alone = layer(embedding(ids[:1, :3]), embedding(ids[:1, :3]))
    torch.testing.assert_close(out[:1, :3], alone, atol=1e-5, rtol=1e-5)
    inp = tf.keras.Input((None,), dtype="int64")
    e = layers.Embedding(10, 8, mask_zero=True)(inp)
    sym = layers.MultiHeadAttention(2, 4)(e, e)
    assert sym._keras_mask is not None
    model = tf.keras.Model(inp, sym)
    assert model(ids).shape == (2, 5, 8)


def test_mha_attention_axes_and_dropout():
    x = on_default_device(torch.randn(2, 3, 4, 6))
    over_last = layers.MultiHeadAttention(2, 3, attention_axes=(2,))
    out, scores = over_last(x, x, return_attention_scores=True)
    assert out.shape == (2, 3, 4, 6) and scores.shape == (2, 3, 2, 4, 4)
    # Attention over axis 2 only: each row of axis 1 is independent.
    torch.testing.assert_close(over_last(x[:, 1:2], x[:, 1:2]), out[:, 1:2], atol=1e-5, rtol=1e-5)
    over_both = layers.MultiHeadAttention(2, 3)
    out2, scores2 = over_both(x, x, return_attention_scores=True)
    assert scores2.shape == (2, 2, 3, 4, 3, 4)
    torch.testing.assert_close(over_both(x, x), out2, atol=1e-5, rtol=1e-5)
    drop = layers.MultiHeadAttention(2, 3, dropout=0.5)
    q = on_default_device(torch.randn(4, 6, 8))
    base = drop(q, q)
    torch.testing.assert_close(drop(q, q, training=False), base)
    assert not torch.allclose(drop(q, q, training=True), base)


def test_mha_config_round_trip():
    q, v = on_default_device([torch.randn(2, 4, 6), torch.randn(2, 5, 7)])
    layer = layers.MultiHeadAttention(3, 2, value_dim=4, dropout=0.1, output_shape=5,
                                      kernel_regularizer="l2")
    y = layer(q, v)
    config = json.loads(json.dumps(layer.get_config()))
    assert config["query_shape"] == [2, 4, 6] and config["value_shape"] == [2, 5, 7]
    clone = layers.MultiHeadAttention.from_config(config)
    assert len(clone.weights) == 8  # built from the recorded shapes
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone(q, v), y)
    assert len(layer.losses) == 4


def test_mha_errors():
    with pytest.raises(ValueError, match="`num_heads` must be a positive integer"):
        layers.MultiHeadAttention(0, 4)
    with pytest.raises(ValueError, match="`dropout`"):
        layers.MultiHeadAttention(2, 4, dropout=1.0)
    x4 = on_default_device(torch.randn(2, 3, 4, 6))
    with pytest.raises(ValueError, match="use_causal_mask"):
        layers.MultiHeadAttention(2, 4)(x4, x4, use_causal_mask=True)
    q, v = on_default_device([torch.randn(2, 3, 6), torch.randn(2, 5, 6)])
    with pytest.raises(ValueError, match="cannot be broadcast"):
        layers.MultiHeadAttention(2, 4)(q, v, attention_mask=on_default_device(torch.ones(2, 3, 4, dtype=torch.bool)))
    x2 = on_default_device(torch.randn(2, 6))
    with pytest.raises(ValueError, match="rank >= 3"):
        layers.MultiHeadAttention(2, 4)(x2, x2)


# ---------------------------------------------------------------------------- Attention
def test_attention_dot_and_scale():
    q, v = on_default_device([torch.randn(2, 3, 4), torch.randn(2, 5, 4)])
    layer = layers.Attention()
    out, weights = layer([q, v], return_attention_scores=True)
    ref_w = torch.softmax(q @ v.transpose(1, 2), -1)
    torch.testing.assert_close(weights, ref_w)
    torch.testing.assert_close(out, ref_w @ v)
    assert layer.count_params() == 0
    scaled = layers.Attention(use_scale=True)
    scaled([q, v])
    scaled.set_weights([np.array(0.5, dtype=np.float32)])
    torch.testing.assert_close(scaled([q, v]), torch.softmax(0.5 * q @ v.transpose(1, 2), -1) @ v)
    k = on_default_device(torch.randn(2, 5, 4))
    torch.testing.assert_close(layer([q, v, k]), torch.softmax(q @ k.transpose(1, 2), -1) @ v)
    sym = layers.Attention()([tf.keras.Input((3, 4)), tf.keras.Input((5, 4))])
    assert sym.shape == (None, 3, 4)


def test_attention_concat_and_additive():
    q, v = on_default_device([torch.randn(2, 3, 4), torch.randn(2, 5, 4)])
    concat = layers.Attention(score_mode="concat")
    out = concat([q, v])
    scores = torch.tanh(q[:, :, None] + v[:, None]).sum(-1)
    torch.testing.assert_close(out, torch.softmax(scores, -1) @ v)
    assert concat.count_params() == 1
    additive = layers.AdditiveAttention()
    out = additive([q, v])
    (scale,) = additive.get_weights()
    assert scale.shape == (4,)
    scores = (torch.as_tensor(scale, device=q.device) * torch.tanh(q[:, :, None] + v[:, None])).sum(-1)
    torch.testing.assert_close(out, torch.softmax(scores, -1) @ v)


def test_attention_masks_causal_and_dropout():
    q, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    layer = layers.Attention()
    v_mask = torch.tensor([[True, True, True, False, False], [True] * 5])
    q_mask = torch.tensor([[True, True, False], [True] * 3])
    out, w = layer([q, v], mask=[q_mask, v_mask], return_attention_scores=True)
    assert torch.all(w[0, :, 3:] < 1e-6)
    assert torch.all(out[0, 2] == 0)
    torch.testing.assert_close(out[:1, :2], layer([q[:1, :2], v[:1, :3]]))
    _, causal = layer([q, q], use_causal_mask=True, return_attention_scores=True)
    assert torch.all(causal.triu(1) == 0)
    embedding = layers.Embedding(10, 4, mask_zero=True)
    ids = np.array([[1, 2, 0], [3, 0, 0]])
    e = embedding(ids)
    masked = layer([e, e])
    assert masked._keras_mask.tolist() == (ids != 0).tolist()
    drop = layers.Attention(dropout=0.5)
    base = drop([q, v])
    torch.testing.assert_close(drop([q, v], training=False), base)
    assert not torch.allclose(drop([q, v], training=True), base)


def test_attention_config_and_errors():
    layer = layers.Attention(use_scale=True, score_mode="concat", dropout=0.2)
    config = layer.get_config()
    assert {k: config[k] for k in ("use_scale", "score_mode", "dropout")} == {
        "use_scale": True, "score_mode": "concat", "dropout": 0.2}
    clone = layers.Attention.from_config(json.loads(json.dumps(config)))
    q, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    layer([q, v])
    clone([q, v])
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone([q, v]), layer([q, v]))
    additive = layers.AdditiveAttention.from_config(layers.AdditiveAttention(use_scale=False).get_config())
    assert additive.use_scale is False
    with pytest.raises(ValueError, match="score_mode"):
        layers.Attention(score_mode="general")
    with pytest.raises(ValueError, match="must be called on a list of inputs"):
        layers.Attention()(q)
    with pytest.raises(ValueError, match="length 2 or 3"):
        layers.Attention()([q])
    with pytest.raises(ValueError, match="mask must be a list"):
        layers.Attention()([q, v], mask=torch.ones(2, 3, dtype=torch.bool))
