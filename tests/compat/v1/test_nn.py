"""`tf.compat.v1.nn`: TF1's argument names and orders, against TF 2.15's `tf.compat.v1.nn`
(fixtures/tf1_nn.json, recorded with tensorflow-cpu 2.15.1 on the same inputs)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
import torch

import torchestimator as tf

nn = tf.compat.v1.nn
TF = json.loads((pathlib.Path(__file__).parent / "fixtures" / "tf1_nn.json").read_text())
X, W = np.asarray(TF["x"], "float32"), np.asarray(TF["w"], "float32")


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, "float32"), rtol=tol, atol=tol)


def test_convolutions_and_pools_take_tf1_argument_names():
    close(nn.conv2d(X, filter=W, strides=[1, 1, 1, 1], padding="VALID"), TF["conv2d"])
    close(nn.atrous_conv2d(X, W, 2, "SAME"), TF["atrous"])
    close(nn.max_pool(value=X, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"), TF["max_pool"])
    dy = np.asarray(TF["dy"], "float32")
    close(nn.conv2d_backprop_input([2, 5, 5, 3], W, dy, [1, 1, 1, 1], "VALID"), TF["backprop_input"])


def test_fused_batch_norm_as_tf1():
    scale, offset = np.array([1.0, 2.0, 3.0], "float32"), np.array([0.0, 1.0, 0.0], "float32")
    y, mean, variance = nn.fused_batch_norm(X, scale, offset)
    close(y, TF["fbn"][0], 1e-4)
    close(mean, TF["fbn"][1])
    close(variance, TF["fbn"][2])
    close(nn.fused_batch_norm(X, scale, offset, mean=mean, variance=variance, is_training=False)[0],
          TF["fbn_inf"], 1e-4)


def test_sharded_embedding_lookup_with_tfs_partition_strategies():
    shards = [np.asarray(s, "float32") for s in TF["shards_mod"]]
    close(nn.embedding_lookup(shards, tf.constant([0, 1, 2, 3, 4, 5])), TF["lookup_mod"])
    table = np.arange(12, dtype="float32").reshape(6, 2)
    close(nn.embedding_lookup([table[0:2], table[2:4], table[4:6]], tf.constant([0, 3, 5]),
                              partition_strategy="div"), TF["lookup_div"])


def test_renamed_and_reordered_arguments():
    assert nn.in_top_k([[0.1, 0.9], [0.8, 0.2]], [1, 1], 1).tolist() == TF["in_top_k"]
    mean, variance = nn.moments(tf.constant([[1.0, 2.0], [3.0, 5.0]]), [0], keep_dims=True)
    close(mean, TF["moments"][0])
    close(variance, TF["moments"][1])
    close(nn.softmax([[1.0, 2.0], [3.0, 5.0]], dim=0), TF["softmax_dim0"])
    close(nn.xw_plus_b(tf.constant([[1.0, 2.0]]), tf.constant([[1.0], [1.0]]), tf.constant([0.5])), [[3.5]])
    assert nn.relu is tf.nn.relu  # names TF1 shares with TF2 are the same function


def test_dropout_keep_prob():
    torch.manual_seed(0)
    out = nn.dropout(tf.ones([10000]), keep_prob=0.8)
    kept = out[out != 0]
    assert abs(float((out != 0).float().mean()) - 0.8) < 0.02
    np.testing.assert_allclose(kept.numpy(), 1 / 0.8, rtol=1e-6)
    with pytest.raises(ValueError, match="Cannot specify both 'rate' and 'keep_prob'"):
        nn.dropout(tf.ones([2]), keep_prob=0.5, rate=0.5)
