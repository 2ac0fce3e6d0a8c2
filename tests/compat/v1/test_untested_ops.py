"""`tf.compat.v1` ops, nn, layers, losses, metrics, initializers, random, strings, sparse and rnn
names that no other test called: each is called with TF 1.x's arguments and its result checked
against the TF2 op of this package, numpy, or the value TF documents."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

v1 = tf.compat.v1
nn = v1.nn
L = v1.layers
RNG = np.random.default_rng(0)


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


@pytest.fixture(autouse=True)
def _no_global_seed_left():
    """Some tests set a global seed; later tests (in this process) start without one."""
    yield
    tf.random.set_seed(None)


def _scope():
    scope = ObjectScope()
    scope.context.begin_call("train", 0)
    return scope


# ------------------------------------------------------------------------------ top-level ops
def test_convert_to_tensor_or_indexed_slices():
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([3, 2]))
    assert v1.convert_to_tensor_or_indexed_slices(slices) is slices
    assert v1.convert_to_tensor_or_indexed_slices(slices, dtype=tf.float32) is slices
    with pytest.raises(ValueError, match="requested dtype int32"):
        v1.convert_to_tensor_or_indexed_slices(slices, dtype=tf.int32)
    t = v1.convert_to_tensor_or_indexed_slices([1, 2], dtype=tf.float64)
    assert t.dtype == tf.float64
    close(t, [1.0, 2.0])


X34 = RNG.normal(size=(3, 4)).astype(np.float32)


def test_norm_keep_dims():
    got = v1.norm(X34, axis=1, keep_dims=True)
    close(got, np.linalg.norm(X34, axis=1, keepdims=True))
    close(v1.norm(X34, ord=1, axis=0), np.abs(X34).sum(0))
    with pytest.raises(ValueError, match="keep_dims"):
        v1.norm(X34, keepdims=True, keep_dims=True)


def test_arg_min_and_reverse_sequence():
    got = v1.arg_min(X34, 1)
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(got, X34.argmin(1))
    np.testing.assert_array_equal(v1.arg_min(X34, dimension=0, output_type=tf.int32), X34.argmin(0))
    x = np.arange(12).reshape(3, 4)
    got = v1.reverse_sequence(x, [1, 2, 4], seq_dim=1, batch_dim=0)
    np.testing.assert_array_equal(got, tf.reverse_sequence(x, [1, 2, 4], seq_axis=1, batch_axis=0))
    np.testing.assert_array_equal(got, [[0, 1, 2, 3], [5, 4, 6, 7], [11, 10, 9, 8]])
    # batch_axis defaults to 0 as TF1's
    np.testing.assert_array_equal(v1.reverse_sequence(x, [1, 2, 4], seq_axis=1), got)


def test_ones_like_zeros_like_constant_convert():
    x = np.array([[1, 2], [3, 4]], np.int32)
    ones = v1.ones_like(x, dtype=tf.float32, optimize=False)
    assert ones.dtype == tf.float32
    close(ones, np.ones((2, 2)))
    zeros = v1.zeros_like(x)
    assert zeros.dtype == tf.int32
    np.testing.assert_array_equal(zeros, np.zeros((2, 2)))
    c = v1.constant(5.0, shape=[2, 3])
    close(c, np.full((2, 3), 5.0))
    close(v1.constant([[1, 2]], dtype=tf.float32, shape=[1, 2], verify_shape=True), [[1, 2]])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2, 1\), got \(1, 2\)"):
        v1.constant([[1, 2]], shape=[2, 1], verify_shape=True)
    t = v1.convert_to_tensor([1.0, 2.0], preferred_dtype=tf.float64)
    assert t.dtype == tf.float64
    assert v1.convert_to_tensor([1, 2], preferred_dtype=tf.float32).dtype == tf.float32
    with pytest.raises(ValueError, match="preferred_dtype"):
        v1.convert_to_tensor([1], preferred_dtype=tf.float32, dtype_hint=tf.float32)


def test_assert_rank_as_dtype_device():
    v1.assert_rank(X34, 2)
    with pytest.raises(ValueError, match="rank"):
        v1.assert_rank(X34, 3, data=["wrong", "rank"])
    assert v1.as_dtype("float64") is tf.float64
    assert v1.as_dtype(np.int32) is tf.int32
    with v1.device("/cpu:0"):
        close(tf.constant([1.0]) + 1, [2.0])
    with pytest.raises(RuntimeError, match="device functions"):
        v1.device(lambda op: "/cpu:0")


def test_floor_div_and_div_no_nan():
    np.testing.assert_array_equal(v1.floor_div(np.array([7, -7]), np.array([2, 2])), [3, -4])
    close(v1.floor_div(np.array([7.5, -7.5], np.float32), 2.0), [3.0, -4.0])
    close(v1.div_no_nan(np.array([1.0, 2.0], np.float32), np.array([0.0, 4.0], np.float32)), [0.0, 0.5])


# ------------------------------------------------------------------------------ random
def test_random_uniform_and_truncated_normal():
    a = v1.random_uniform([200], minval=2, maxval=3, seed=1)
    assert a.dtype == tf.float32 and a.shape == (200,)
    assert float(a.min()) >= 2 and float(a.max()) < 3
    ints = v1.random_uniform([100], minval=0, maxval=5, dtype=tf.int32, seed=2)
    assert ints.dtype == tf.int32 and set(np.asarray(ints).tolist()) <= set(range(5))
    tf.random.set_seed(3)
    first = v1.random_uniform([4], seed=7)
    tf.random.set_seed(3)
    np.testing.assert_array_equal(first, v1.random_uniform([4], seed=7))
    t = v1.truncated_normal([1000], mean=5.0, stddev=2.0, seed=1)
    assert float(t.min()) >= 1.0 and float(t.max()) <= 9.0
    assert abs(float(t.mean()) - 5.0) < 0.3


def test_random_shuffle_gamma_poisson_multinomial():
    shuffled = np.asarray(v1.random_shuffle(np.arange(10), seed=1))
    np.testing.assert_array_equal(np.sort(shuffled), np.arange(10))
    g = v1.random_gamma([2000], alpha=[2.0, 8.0], beta=2.0, seed=1)
    assert g.shape == (2000, 2)
    close(np.asarray(g).mean(0), [1.0, 4.0], tol=0.25)
    p = v1.random_poisson([1.0, 10.0], [3000], seed=1)  # TF1 order: lam, shape
    assert p.shape == (3000, 2) and p.dtype == tf.float32
    close(np.asarray(p).mean(0), [1.0, 10.0], tol=0.3)
    samples = v1.multinomial(np.log([[1e-9, 1.0, 1e-9], [1.0, 1e-9, 1e-9]]).astype(np.float32), 5, seed=1)
    assert samples.shape == (2, 5) and samples.dtype == tf.int64
    np.testing.assert_array_equal(samples, [[1] * 5, [0] * 5])
    assert v1.multinomial([[0.0, 0.0]], 3, output_dtype=tf.int32).dtype == tf.int32


def test_lin_space():
    close(v1.lin_space(0.0, 1.0, 5), np.linspace(0, 1, 5))


# ------------------------------------------------------------------------------ strings
def test_string_names():
    got = v1.string_join([["a", "b"], "c"], separator="-")
    assert [s.decode() if isinstance(s, bytes) else s for s in np.asarray(got).tolist()] == ["a-c", "b-c"]
    stripped = np.asarray(v1.string_strip(["  hi ", "x\n"])).tolist()
    assert [s.decode() if isinstance(s, bytes) else s for s in stripped] == ["hi", "x"]
    num = v1.string_to_number(["1.5", "-2"])
    assert num.dtype == tf.float32
    close(num, [1.5, -2.0])
    assert v1.string_to_number(["7"], out_type=tf.int32).dtype == tf.int32
    # TF's documented values
    np.testing.assert_array_equal(v1.string_to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3), [0, 2, 2])
    np.testing.assert_array_equal(v1.string_to_hash_bucket_strong(["Hello", "TF"], 3, [1, 2]), [2, 0])


# ------------------------------------------------------------------------------ variables
def test_assign_assign_sub_and_initialization_reports():
    v = tf.Variable([1.0, 2.0])
    v1.assign(v, [5.0, 6.0])
    close(v, [5.0, 6.0])
    v1.assign_sub(v, [1.0, 1.0])
    close(v, [4.0, 5.0])
    op = v1.assert_variables_initialized([v])
    assert type(op) is type(tf.no_op())
    report = v1.report_uninitialized_variables()
    assert np.asarray(report).shape == (0,)


def test_py_func():
    got = v1.py_func(lambda a, b: (a * b).astype(np.float32), [np.array([1.0, 2.0]), np.array([3.0, 4.0])],
                     tf.float32)
    close(got, [3.0, 8.0])


# ------------------------------------------------------------------------------ sparse
def test_sparse_add_threshold_and_thresh():
    a = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 0.05], [2, 2])
    b = tf.SparseTensor([[0, 0], [1, 0]], [1.0, 3.0], [2, 2])
    close(tf.sparse.to_dense(v1.sparse_add(a, b)), [[2.0, 0.0], [3.0, 0.05]])
    c = tf.SparseTensor([[0, 0], [1, 1]], [-0.95, 0.0], [2, 2])
    want = tf.sparse.add(a, c, 0.1)  # the sums 0.05 at [0, 0], 0.05 at [1, 1] vanish
    for got in (v1.sparse_add(a, c, thresh=0.1), v1.sparse_add(a, c, threshold=0.1)):
        np.testing.assert_array_equal(got.indices, want.indices)
        close(got.values, want.values)
    assert np.asarray(want.indices).shape == (0, 2)
    close(v1.sparse_add(np.ones((2, 2), np.float32), a), [[2.0, 1.0], [1.0, 1.05]])
    with pytest.raises(ValueError, match="thresh"):
        v1.sparse_add(a, b, threshold=0.1, thresh=0.1)


# ------------------------------------------------------------------------------ nn
IMG = RNG.normal(size=(2, 6, 6, 3)).astype(np.float32)
VOL = RNG.normal(size=(1, 4, 4, 4, 2)).astype(np.float32)
SEQ = RNG.normal(size=(2, 7, 3)).astype(np.float32)


def _nchw(x):
    return torch.as_tensor(x).permute(0, 3, 1, 2)


def test_pool_v2_names():
    got = nn.avg_pool_v2(IMG, ksize=2, strides=2, padding="VALID")
    close(got, IMG.reshape(2, 3, 2, 3, 2, 3).mean(axis=(2, 4)))
    got = nn.max_pool_v2(IMG, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", data_format="NHWC")
    close(got, IMG.reshape(2, 3, 2, 3, 2, 3).max(axis=(2, 4)))
    close(nn.max_pool_v2(SEQ, 2, 1, "SAME"), tf.nn.max_pool(SEQ, 2, 1, "SAME"))


def test_conv1d_and_conv3d_tf1_names():
    w1 = RNG.normal(size=(3, 3, 4)).astype(np.float32)
    got = nn.conv1d(value=SEQ, filters=w1, stride=1, padding="VALID")
    want = torch.nn.functional.conv1d(torch.as_tensor(SEQ).permute(0, 2, 1), torch.as_tensor(w1).permute(2, 1, 0))
    close(got, want.permute(0, 2, 1))
    close(nn.conv1d(input=SEQ, filters=w1, stride=2, padding="SAME"), tf.nn.conv1d(SEQ, w1, 2, "SAME"))
    w3 = RNG.normal(size=(2, 2, 2, 2, 3)).astype(np.float32)
    got = nn.conv3d(VOL, filter=w3, strides=[1, 1, 1, 1, 1], padding="VALID")
    want = torch.nn.functional.conv3d(torch.as_tensor(VOL).permute(0, 4, 1, 2, 3),
                                      torch.as_tensor(w3).permute(4, 3, 0, 1, 2))
    close(got, want.permute(0, 2, 3, 4, 1), tol=1e-4)


def test_conv_transposes_tf1_names():
    w = RNG.normal(size=(3, 3, 4, 3)).astype(np.float32)  # [h, w, out, in]
    got = nn.conv2d_transpose(IMG, w, [2, 8, 8, 4], [1, 1, 1, 1], padding="VALID")
    want = torch.nn.functional.conv_transpose2d(_nchw(IMG), torch.as_tensor(w).permute(3, 2, 0, 1))
    close(got, want.permute(0, 2, 3, 1), tol=1e-4)
    close(nn.conv2d_transpose(input=IMG, filters=w, output_shape=[2, 12, 12, 4], strides=2),
          tf.nn.conv2d_transpose(IMG, w, [2, 12, 12, 4], 2, padding="SAME"), tol=1e-4)
    w3 = RNG.normal(size=(2, 2, 2, 3, 2)).astype(np.float32)
    got = nn.conv3d_transpose(VOL, w3, [1, 5, 5, 5, 3], [1, 1, 1, 1, 1], padding="VALID")
    want = torch.nn.functional.conv_transpose3d(torch.as_tensor(VOL).permute(0, 4, 1, 2, 3),
                                                torch.as_tensor(w3).permute(4, 3, 0, 1, 2))
    close(got, want.permute(0, 2, 3, 4, 1), tol=1e-4)


def test_convolution_and_depthwise_tf1_names():
    w = RNG.normal(size=(2, 2, 3, 2)).astype(np.float32)
    got = nn.convolution(IMG, w, "VALID", dilation_rate=[2, 2])
    want = torch.nn.functional.conv2d(_nchw(IMG), torch.as_tensor(w).permute(3, 2, 0, 1), dilation=2)
    close(got, want.permute(0, 2, 3, 1), tol=1e-4)
    close(nn.convolution(IMG, filters=w, padding="SAME", strides=[2, 2]),
          tf.nn.convolution(IMG, w, strides=2, padding="SAME"), tol=1e-4)
    dw = RNG.normal(size=(2, 2, 3, 2)).astype(np.float32)  # [h, w, in, multiplier]
    got = nn.depthwise_conv2d(IMG, dw, [1, 1, 1, 1], "VALID", rate=[2, 2])
    torch_w = torch.as_tensor(dw).permute(2, 3, 0, 1).reshape(6, 1, 2, 2)
    want = torch.nn.functional.conv2d(_nchw(IMG), torch_w, dilation=2, groups=3)
    close(got, want.permute(0, 2, 3, 1), tol=1e-4)
    got = nn.depthwise_conv2d_native(IMG, dw, [1, 1, 1, 1], "VALID")
    want = torch.nn.functional.conv2d(_nchw(IMG), torch_w, groups=3)
    close(got, want.permute(0, 2, 3, 1), tol=1e-4)
    pw = RNG.normal(size=(1, 1, 6, 4)).astype(np.float32)
    got = nn.separable_conv2d(IMG, dw, pw, [1, 1, 1, 1], "VALID", rate=[2, 2])
    close(got, tf.nn.separable_conv2d(IMG, dw, pw, [1, 1, 1, 1], "VALID", dilations=[2, 2]), tol=1e-4)
    depth = torch.nn.functional.conv2d(_nchw(IMG), torch_w, dilation=2, groups=3)
    want = torch.nn.functional.conv2d(depth, torch.as_tensor(pw).permute(3, 2, 0, 1))
    close(got, want.permute(0, 2, 3, 1), tol=1e-4)


def test_log_softmax_softplus_relu_layer():
    close(nn.log_softmax(X34, dim=0), X34 - np.log(np.exp(X34).sum(0, keepdims=True)))
    close(nn.log_softmax(X34), X34 - np.log(np.exp(X34).sum(1, keepdims=True)))
    close(nn.softplus(X34), np.log1p(np.exp(X34)))
    w = RNG.normal(size=(4, 2)).astype(np.float32)
    b = np.array([0.5, -0.5], np.float32)
    close(nn.relu_layer(X34, w, b), np.maximum(X34 @ w + b, 0))


def _xent(labels, logits, axis=-1):
    return -(labels * (logits - np.log(np.exp(logits).sum(axis, keepdims=True)))).sum(axis)


def test_softmax_cross_entropy_with_logits_v1_and_v2():
    labels = np.abs(RNG.normal(size=(3, 4))).astype(np.float32)
    labels /= labels.sum(1, keepdims=True)
    close(nn.softmax_cross_entropy_with_logits(labels=labels, logits=X34), _xent(labels, X34))
    close(nn.softmax_cross_entropy_with_logits(labels=labels.T, logits=X34.T, dim=0), _xent(labels, X34))
    lab = torch.tensor(labels, requires_grad=True)
    logits = torch.tensor(X34, requires_grad=True)
    nn.softmax_cross_entropy_with_logits(labels=lab, logits=logits).sum().backward()
    assert lab.grad is None and logits.grad is not None  # v1: no gradient into the labels
    close(nn.softmax_cross_entropy_with_logits_v2(labels, X34), _xent(labels, X34))
    close(nn.softmax_cross_entropy_with_logits_v2(labels.T, X34.T, dim=0), _xent(labels, X34))
    lab = torch.tensor(labels, requires_grad=True)
    nn.softmax_cross_entropy_with_logits_v2(lab, torch.tensor(X34)).sum().backward()
    assert lab.grad is not None  # v2: gradients reach the labels


def test_weighted_cross_entropy_with_logits_targets():
    targets = (RNG.random(size=(3, 4)) > 0.5).astype(np.float32)
    sig = 1 / (1 + np.exp(-X34))
    want = -targets * np.log(sig) * 3.0 - (1 - targets) * np.log(1 - sig)
    close(nn.weighted_cross_entropy_with_logits(targets=targets, logits=X34, pos_weight=3.0), want, tol=1e-4)
    close(nn.weighted_cross_entropy_with_logits(targets, X34, 3.0), want, tol=1e-4)


def test_sufficient_statistics_and_weighted_moments_keep_dims():
    count, m_ss, v_ss, shift = nn.sufficient_statistics(X34, [0], keep_dims=True)
    assert float(count) == 3 and shift is None
    close(m_ss, X34.sum(0, keepdims=True))
    close(v_ss, (X34 ** 2).sum(0, keepdims=True))
    count, m_ss, v_ss, shift = nn.sufficient_statistics(X34, [1], shift=0.5)
    close(m_ss, (X34 - 0.5).sum(1))
    freq = np.array([[1.0], [2.0], [3.0]], np.float32)
    mean, var = nn.weighted_moments(X34, [0], freq, keep_dims=True)
    w_mean = (X34 * freq).sum(0, keepdims=True) / 6
    close(mean, w_mean)
    close(var, (freq * (X34 - w_mean) ** 2).sum(0, keepdims=True) / 6)
    mean, _ = nn.weighted_moments(X34, [0], freq)
    assert mean.shape == (4,)


def test_embedding_lookup_sparse_sharded():
    table = np.arange(10, dtype=np.float32).reshape(5, 2)
    shards = [table[0::2], table[1::2]]  # 'mod' strategy: row i in shard i % 2
    sp_ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 4, 3], tf.int64), [2, 2])
    got = nn.embedding_lookup_sparse(shards, sp_ids, None, combiner="sum")
    close(got, [table[1] + table[4], table[3]])
    got = nn.embedding_lookup_sparse([table], sp_ids, None)  # TF1's default combiner: mean
    close(got, [(table[1] + table[4]) / 2, table[3]])
    div_shards = [table[:3], table[3:]]
    close(nn.embedding_lookup_sparse(div_shards, sp_ids, None, partition_strategy="div", combiner="sum"),
          [table[1] + table[4], table[3]])


def test_ctc_v2_names_match_tf2():
    logits = RNG.normal(size=(5, 2, 4)).astype(np.float32)
    labels = np.array([[1, 2], [3, 0]], np.int32)
    got = nn.ctc_loss_v2(labels, logits, [2, 1], [5, 5], blank_index=0)
    close(got, tf.nn.ctc_loss(labels, logits, [2, 1], [5, 5], blank_index=0))
    assert np.all(np.asarray(got) > 0)
    decoded, log_probs = nn.ctc_beam_search_decoder_v2(logits, [5, 5], beam_width=4, top_paths=2)
    want_decoded, want_log_probs = tf.nn.ctc_beam_search_decoder(logits, [5, 5], 4, 2)
    assert len(decoded) == 2
    for got_path, want_path in zip(decoded, want_decoded):
        np.testing.assert_array_equal(tf.sparse.to_dense(got_path), tf.sparse.to_dense(want_path))
    close(log_probs, want_log_probs)


# ------------------------------------------------------------------------------ layers
def _var(name):
    (variable,) = v1.global_variables(name)
    return torch.as_tensor(variable).detach().cpu()


def test_conv1d_conv3d_layers():
    with _scope():
        y1 = L.conv1d(SEQ, 4, 3, padding="same", name="c1", bias_initializer=tf.constant_initializer(0.5))
        k1 = _var("c1/kernel")
        y3 = L.conv3d(VOL, 2, 2, strides=(2, 2, 2), name="c3", use_bias=False)
        k3 = _var("c3/kernel")
    assert k1.shape == (3, 3, 4) and y1.shape == (2, 7, 4)
    want = torch.nn.functional.conv1d(torch.as_tensor(SEQ).permute(0, 2, 1), k1.permute(2, 1, 0), padding=1)
    close(y1.cpu(), want.permute(0, 2, 1) + 0.5, tol=1e-4)
    assert k3.shape == (2, 2, 2, 2, 2) and y3.shape == (1, 2, 2, 2, 2)
    want = torch.nn.functional.conv3d(torch.as_tensor(VOL).permute(0, 4, 1, 2, 3), k3.permute(4, 3, 0, 1, 2),
                                      stride=2)
    close(y3.cpu(), want.permute(0, 2, 3, 4, 1), tol=1e-4)


def test_conv2d_transpose_and_separable_conv2d_layers():
    with _scope():
        up = L.conv2d_transpose(IMG, 4, 3, strides=2, padding="same", name="up", activation=tf.nn.relu)
        k = _var("up/kernel")
        sep = L.separable_conv2d(IMG, 5, 3, depth_multiplier=2, name="sep")
        dk, pk, bias = _var("sep/depthwise_kernel"), _var("sep/pointwise_kernel"), _var("sep/bias")
    assert k.shape == (3, 3, 4, 3) and up.shape == (2, 12, 12, 4)
    close(up.cpu(), tf.nn.relu(tf.nn.conv2d_transpose(IMG, k.numpy(), [2, 12, 12, 4], 2, "SAME")), tol=1e-4)
    assert float(up.detach().min()) >= 0
    assert dk.shape == (3, 3, 3, 2) and pk.shape == (1, 1, 6, 5) and sep.shape == (2, 4, 4, 5)
    close(bias, np.zeros(5))
    close(sep.cpu(), tf.nn.separable_conv2d(IMG, dk.numpy(), pk.numpy(), [1, 1, 1, 1], "VALID"), tol=1e-4)


def test_1d_and_3d_pooling_layers():
    close(L.max_pooling1d(SEQ, 2, 2), SEQ[:, :6].reshape(2, 3, 2, 3).max(axis=2))
    close(L.average_pooling1d(SEQ, 2, 2), SEQ[:, :6].reshape(2, 3, 2, 3).mean(axis=2))
    close(L.average_pooling1d(SEQ, 2, 2, padding="same")[:, -1], SEQ[:, 6])
    blocks = VOL.reshape(1, 2, 2, 2, 2, 2, 2, 2)
    close(L.max_pooling3d(VOL, 2, 2), blocks.max(axis=(2, 4, 6)))
    close(L.average_pooling3d(VOL, (2, 2, 2), (2, 2, 2)), blocks.mean(axis=(2, 4, 6)))
    nchw = np.ascontiguousarray(SEQ.transpose(0, 2, 1))
    close(L.max_pooling1d(nchw, 2, 2, data_format="channels_first"),
          SEQ[:, :6].reshape(2, 3, 2, 3).max(axis=2).transpose(0, 2, 1))


# ------------------------------------------------------------------------------ losses
def test_softmax_and_sigmoid_cross_entropy_losses():
    onehot = np.eye(4, dtype=np.float32)[[0, 2, 3]]
    logits = torch.as_tensor(X34)
    per = _xent(onehot, X34)
    close(v1.losses.softmax_cross_entropy(onehot, logits), per.mean())
    w = np.array([1.0, 0.0, 2.0], np.float32)
    close(v1.losses.softmax_cross_entropy(onehot, logits, weights=w), (per * w).sum() / 2)  # nonzero weights
    smooth = onehot * 0.8 + 0.2 / 4
    close(v1.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.2), _xent(smooth, X34).mean())
    close(v1.losses.softmax_cross_entropy(onehot, logits, reduction=v1.losses.Reduction.NONE), per)
    # TF1 converts numpy arrays and lists as any op does
    close(v1.losses.softmax_cross_entropy(onehot.tolist(), X34), per.mean())
    close(v1.losses.sparse_softmax_cross_entropy([0, 2, 3], X34), per.mean())
    labels = (RNG.random(size=(3, 4)) > 0.5).astype(np.float32)

    def bce(t):
        return np.maximum(X34, 0) - X34 * t + np.log1p(np.exp(-np.abs(X34)))
    close(v1.losses.sigmoid_cross_entropy(labels, logits), bce(labels).mean())
    close(v1.losses.sigmoid_cross_entropy(labels, X34), bce(labels).mean())
    close(v1.losses.mean_squared_error(labels, X34), ((labels - X34) ** 2).mean())
    close(v1.losses.absolute_difference(labels, X34.tolist()), np.abs(labels - X34).mean())
    close(v1.losses.sigmoid_cross_entropy(labels, logits, label_smoothing=0.1),
          bce(labels * 0.9 + 0.05).mean())
    close(v1.losses.sigmoid_cross_entropy(labels, logits, weights=2.0, reduction=v1.losses.Reduction.SUM),
          2 * bce(labels).sum(), tol=1e-4)


# ------------------------------------------------------------------------------ metrics
def test_streaming_metrics_values():
    labels = np.array([1, 0, 1, 1, 0], np.float32)
    preds = np.array([0.9, 0.2, 0.4, 0.8, 0.6], np.float32)
    metric, value = v1.metrics.auc(labels, preds)
    close(value, 5 / 6, tol=1e-2)  # 5 of the 6 positive/negative pairs ordered right
    close(metric.result(), value)
    assert metric.name == "auc"
    hard = preds > 0.5
    _, value = v1.metrics.precision(labels, hard)
    close(value, 2 / 3)
    _, value = v1.metrics.recall(labels, hard)
    close(value, 2 / 3)
    _, value = v1.metrics.root_mean_squared_error(labels, preds)
    close(value, np.sqrt(((labels - preds) ** 2).mean()))
    _, value = v1.metrics.mean_absolute_error(labels, preds, weights=[1.0, 1.0, 0.0, 0.0, 2.0])
    close(value, (0.1 + 0.2 + 2 * 0.6) / 4)
    scope = ObjectScope()  # inside a model_fn, the batches of an evaluation accumulate
    for batch_labels, batch_preds in ((labels, preds), ([[0.0]], [[1.0]])):
        scope.context.begin_call("eval", 0)
        with scope:
            metric, value = v1.metrics.mean_absolute_error(batch_labels, batch_preds)
    close(value, (np.abs(labels - preds).sum() + 1) / 6)
    close(metric.result(), value)
    _, value = v1.metrics.mean_squared_error(labels[:, None], preds, weights=[[2.0], [0.0], [0.0], [0.0], [1.0]])
    close(value, (2 * 0.01 + 0.36) / 3)


# ------------------------------------------------------------------------------ initializers
def test_tf1_initializer_classes():
    tf.random.set_seed(0)
    vs = v1.variance_scaling_initializer(scale=2.0, mode="fan_in", distribution="uniform", seed=1)
    w = vs([200, 300])
    limit = np.sqrt(3 * 2.0 / 200)
    assert w.dtype == tf.float32 and float(w.abs().max()) <= limit
    close(float(w.std()), limit / np.sqrt(3), tol=0.01)
    assert v1.variance_scaling_initializer(dtype=tf.float64)([3, 3]).dtype == tf.float64
    assert vs([2, 2], dtype=tf.float64).dtype == tf.float64
    gn = v1.glorot_normal_initializer(seed=2)
    w = gn([300, 200])
    close(float(w.std()), np.sqrt(2 / 500), tol=0.003)  # truncated normal, variance-corrected
    np.testing.assert_array_equal(w, v1.glorot_normal_initializer(seed=2)([300, 200]))
    assert v1.glorot_normal_initializer(dtype=tf.float64)([2, 2]).dtype == tf.float64
    orth = v1.orthogonal_initializer(gain=2.0, seed=3)([6, 4])
    close(orth.T @ orth, 4 * np.eye(4), tol=1e-4)
    o64 = v1.orthogonal_initializer(dtype=tf.float64)([3, 3])
    assert o64.dtype == tf.float64
    close(o64.T @ o64, np.eye(3), tol=1e-6)


# ------------------------------------------------------------------------------ rnn
def test_static_state_saving_rnn_is_refused_with_guidance():
    cell = v1.nn.rnn_cell.BasicRNNCell(2)
    with pytest.raises(NotImplementedError, match="static_rnn"):
        v1.nn.static_state_saving_rnn(cell, [tf.zeros([1, 2])], state_saver=None, state_name="s")


def test_rnn_cell_base_class():
    class Abstract(v1.nn.rnn_cell.RNNCell):
        pass

    cell = Abstract()
    assert cell.name == "abstract"
    for attr in ("state_size", "output_size"):
        with pytest.raises(NotImplementedError):
            getattr(cell, attr)
    with pytest.raises(NotImplementedError):
        cell.call(tf.zeros([1, 2]), tf.zeros([1, 2]))

    class Doubler(v1.nn.rnn_cell.RNNCell):
        @property
        def state_size(self):
            return 2

        @property
        def output_size(self):
            return 2

        def build(self, inputs_shape):
            self.w = self.add_weight("w", [2, 2], initializer=tf.ones_initializer())

        def call(self, inputs, state):
            out = tf.matmul(inputs, self.w) + state
            return out, out

    v1.reset_default_graph()
    try:
        cell = Doubler(name="dbl")
        assert cell.name == "dbl"
        out, state = cell(tf.ones([1, 2]), cell.zero_state(1, tf.float32))
        close(out, [[2.0, 2.0]])
        assert cell.name == "dbl"
        assert [v.name.split(":")[0] for v in cell.weights] == ["dbl/w"]
        multi = v1.nn.rnn_cell.MultiRNNCell([v1.nn.rnn_cell.BasicRNNCell(3), v1.nn.rnn_cell.BasicRNNCell(2)])
        assert multi.weights == []
        out, _ = multi(tf.ones([1, 2]), multi.zero_state(1, tf.float32))
        assert out.shape == (1, 2)
        names = [v.name.split(":")[0] for v in multi.weights]
        assert names == ["multi_rnn_cell/cell_0/basic_rnn_cell/kernel", "multi_rnn_cell/cell_0/basic_rnn_cell/bias",
                         "multi_rnn_cell/cell_1/basic_rnn_cell/kernel", "multi_rnn_cell/cell_1/basic_rnn_cell/bias"]
        assert [tuple(w.shape) for w in multi.weights] == [(5, 3), (3,), (5, 2), (2,)]
    finally:
        v1.reset_default_graph()


def _tf1_auc(labels, preds, thresholds, curve, method):
    """TF1's metrics_impl.auc in numpy: confusion counts at [-eps] + thresholds + [1 + eps]."""
    edges = np.array([-1e-7, *thresholds, 1 + 1e-7])
    pos = preds[None, :] > edges[:, None]
    tp = (pos & (labels[None] == 1)).sum(1).astype(np.float64)
    fp = (pos & (labels[None] == 0)).sum(1).astype(np.float64)
    fn = (~pos & (labels[None] == 1)).sum(1).astype(np.float64)
    tn = (~pos & (labels[None] == 0)).sum(1).astype(np.float64)
    eps = 1e-6
    rec = (tp + eps) / (tp + fn + eps)
    x, y = (fp / (fp + tn + eps), rec) if curve == "ROC" else (rec, (tp + eps) / (tp + fp + eps))
    heights = {"trapezoidal": (y[:-1] + y[1:]) / 2, "careful_interpolation": (y[:-1] + y[1:]) / 2,
               "minoring": np.minimum(y[:-1], y[1:]), "majoring": np.maximum(y[:-1], y[1:])}[method]
    return float(((x[:-1] - x[1:]) * heights).sum())


AUC_LABELS = np.array([1, 0, 1, 1, 0, 0, 1, 0], np.float32)
AUC_PREDS = np.array([0.9, 0.2, 0.4, 0.8, 0.6, 0.3, 0.35, 0.1], np.float32)


@pytest.mark.parametrize("curve,method", [("ROC", "trapezoidal"), ("PR", "trapezoidal"),
                                          ("ROC", "careful_interpolation"), ("ROC", "minoring"),
                                          ("PR", "majoring")])
def test_auc_follows_tf1_summation_methods(curve, method):
    thresholds = [(i + 1) / 199 for i in range(198)]
    want = _tf1_auc(AUC_LABELS, AUC_PREDS, thresholds, curve, method)
    _, value = v1.metrics.auc(AUC_LABELS, AUC_PREDS, curve=curve, summation_method=method)
    close(value, want, tol=1e-5)
    coarse = [0.25, 0.5, 0.75]  # explicit thresholds replace num_thresholds
    _, value = v1.metrics.auc(AUC_LABELS, AUC_PREDS, curve=curve, summation_method=method, thresholds=coarse)
    close(value, _tf1_auc(AUC_LABELS, AUC_PREDS, coarse, curve, method), tol=1e-5)


def test_auc_pr_careful_interpolation_and_bad_method():
    _, value = v1.metrics.auc(AUC_LABELS, AUC_PREDS, curve="PR", summation_method="careful_interpolation")
    keras = tf.keras.metrics.AUC(curve="PR")  # Davis & Goadrich, TF1's careful interpolation
    keras.update_state(AUC_LABELS, AUC_PREDS)
    close(value, keras.result())
    _, trapezoid = v1.metrics.auc(AUC_LABELS, AUC_PREDS, curve="PR")
    assert abs(float(trapezoid) - float(value)) > 1e-3  # TF1's default PR sum is the plain trapezoid
    with pytest.raises(ValueError, match="summation_method: 'interpolation'"):
        v1.metrics.auc(AUC_LABELS, AUC_PREDS, summation_method="interpolation")


def test_compat_v1_initializers_namespace_is_tf1s():
    init = v1.initializers
    assert init.variance_scaling is v1.variance_scaling_initializer
    assert init.glorot_normal is v1.glorot_normal_initializer
    assert init.orthogonal is v1.orthogonal_initializer
    uniform = init.random_uniform(seed=1)([2000])  # TF1's default range [0, 1), not Keras' +-0.05
    assert float(uniform.min()) >= 0.0 and float(uniform.max()) > 0.9
    close(float(init.random_normal(seed=1)([4000]).std()), 1.0, tol=0.05)  # TF1's stddev 1.0
    assert init.glorot_uniform(dtype=tf.float64)([2, 2]).dtype == tf.float64
    close(init.identity(gain=2.0)([2, 3]), 2 * np.eye(2, 3))
    close(init.constant(0.5)([2]), [0.5, 0.5])
    close(float(init.he_uniform(seed=1)([400, 300]).abs().max()), np.sqrt(6 / 400), tol=1e-3)
    close(float(init.lecun_normal(seed=1)([400, 300]).std()), np.sqrt(1 / 400), tol=2e-3)
    close(float(init.he_normal(seed=1)([400, 300]).std()), np.sqrt(2 / 400), tol=3e-3)
    assert float(init.lecun_uniform(seed=1)([400, 300]).abs().max()) <= np.sqrt(3 / 400)
    assert type(init.global_variables()) is type(tf.no_op())


def test_two_unnamed_error_metrics_in_a_model_fn_stay_apart():
    scope = ObjectScope()
    for _ in range(2):  # two evaluation batches
        scope.context.begin_call("eval", 0)
        with scope:
            first, _ = v1.metrics.mean_absolute_error([0.0, 0.0], [1.0, 1.0])
            second, _ = v1.metrics.mean_absolute_error([0.0, 0.0], [3.0, 3.0])
            squared, _ = v1.metrics.mean_squared_error([0.0], [2.0])
    assert first is not second
    close(first.result(), 1.0)
    close(second.result(), 3.0)
    close(squared.result(), 4.0)
    assert (first.name, squared.name) == ("mean_absolute_error", "mean_squared_error")
