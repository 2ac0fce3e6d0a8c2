"""`tf.compat.v1.layers`: persistent layers with TF1's names (against names recorded from
TF 2.15 in `fixtures/tf1.json`), TF1's defaults and reuse rules, and the layers' math."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.layers import on_default_device
from torchestimator._engine.object_scope import ObjectScope

v1 = tf.compat.v1
L = v1.layers

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf1.json"), encoding="utf-8") as _f:
    NAMES = json.load(_f)["names"]

X = torch.from_numpy(np.random.default_rng(0).normal(size=(2, 4)).astype(np.float32))
IMG = torch.from_numpy(np.random.default_rng(1).normal(size=(2, 8, 8, 3)).astype(np.float32))


def _scope(mode="train"):
    scope = ObjectScope()
    scope.context.begin_call(mode, 0)
    return scope


def two_dense():
    h = L.dense(X, 3, activation=tf.nn.relu)
    return L.dense(h, 2)


def scoped_layers():
    with v1.variable_scope("encoder"):
        h = L.dense(X, 3)
        h = L.dense(h, 3)
    with v1.variable_scope("decoder"):
        L.dense(h, 4, name="out")
    return L.dense(h, 1)


def reentered_scope():
    with v1.variable_scope("model"):
        a = L.dense(X, 3)
    with v1.variable_scope("model", reuse=True):
        b = L.dense(X, 3)
    torch.testing.assert_close(a, b)
    return a


def conv_bn():
    y = L.conv2d(IMG, 4, 3, padding="same")
    y = L.batch_normalization(y, training=True)
    y = L.max_pooling2d(y, 2, 2)
    y = L.conv2d(y, 2, (3, 3))
    y = L.flatten(y)
    return L.dense(y, 2)


PATTERNS = {"two_dense": two_dense, "scoped_layers": scoped_layers,
            "reentered_scope": reentered_scope, "conv_bn": conv_bn}


def _names(variables):
    return [v._keras_name for v in variables]


@pytest.mark.parametrize("key", sorted(PATTERNS))
def test_variable_names_match_tf1(key):
    scope = _scope()
    for _ in range(2):  # the second model_fn call reuses the layers: same names, no errors
        with scope:
            PATTERNS[key]()
            assert _names(v1.global_variables()) == NAMES[key]
            assert _names(v1.trainable_variables()) == NAMES[key + ":trainable"]


def test_layers_are_created_once_and_reused_across_calls():
    scope = _scope()
    outputs, weights = [], []
    for _ in range(2):
        with scope:
            outputs.append(two_dense())
            weights.append(v1.trainable_variables())
    assert all(a is b for a, b in zip(weights[0], weights[1]))
    torch.testing.assert_close(outputs[0], outputs[1])
    kernel, bias, kernel_1, bias_1 = weights[0]
    expected = torch.relu(on_default_device(X) @ kernel + bias) @ kernel_1 + bias_1
    torch.testing.assert_close(outputs[0], expected)
    assert torch.all(bias == 0)  # TF1's bias_initializer: zeros


def test_same_name_twice_needs_reuse():
    with _scope():
        a = L.dense(X, 3, name="shared")
        with pytest.raises(ValueError, match="Variable shared/kernel already exists, disallowed"):
            L.dense(X, 3, name="shared")
        b = L.dense(X, 3, name="shared", reuse=True,
                    kernel_initializer=v1.zeros_initializer())  # initializers act at creation only
        torch.testing.assert_close(a, b)
        c = L.dense(X, 3, name="auto", reuse=v1.AUTO_REUSE)
        d = L.dense(X, 3, name="auto", reuse=v1.AUTO_REUSE)
        torch.testing.assert_close(c, d)
        with pytest.raises(ValueError, match="Variable missing/kernel does not exist"):
            L.dense(X, 3, name="missing", reuse=True)
        L.max_pooling2d(IMG, 2, 2, name="pool")
        L.max_pooling2d(IMG, 2, 2, name="pool")  # no variables: TF1 does not object


def test_reuse_in_reusing_scope_keeps_unique_default_names():
    with _scope():
        with v1.variable_scope("m"):
            h = L.dense(X, 3)
            L.dense(h, 2)
        with v1.variable_scope("m", reuse=True):
            h = L.dense(X, 3)
            L.dense(h, 2)
        assert _names(v1.global_variables()) == ["m/dense/kernel", "m/dense/bias",
                                                 "m/dense_1/kernel", "m/dense_1/bias"]


def test_keras_layers_and_tf1_layers_share_default_names():
    with _scope():
        L.dense(X, 3)
        tf.keras.layers.Dense(2)(X)
        L.dense(X, 1)
        names = sorted({name.split("/")[0] for name in _names(v1.global_variables())})
    assert names == ["dense", "dense_1", "dense_2"]


def test_variable_scope_initializer_and_input_dtype():
    with _scope():
        with v1.variable_scope("c", initializer=v1.constant_initializer(0.25)):
            y = L.dense(X.double(), 2)
        kernel = v1.global_variables("c/dense/kernel")[0]
    assert kernel.dtype == torch.float64 and y.dtype == torch.float64  # TF1: the input's dtype
    assert torch.all(kernel == 0.25)


def test_dropout_defaults_to_inference():
    with _scope():
        torch.testing.assert_close(L.dropout(X), X)  # TF1's default training=False
        ones = torch.ones(1000, 10)
        y = L.dropout(ones, rate=0.25, training=True)
    values = np.unique(y.numpy())
    np.testing.assert_allclose(values, [0.0, 1 / 0.75], rtol=1e-6)
    assert 0.2 < float((y == 0).float().mean()) < 0.3


def test_batch_normalization_defaults_and_moving_statistics():
    x = on_default_device(torch.arange(12, dtype=torch.float32).reshape(4, 3))
    scope = _scope()
    with scope:
        y = L.batch_normalization(x)  # TF1's default training=False: moving statistics (0, 1)
        torch.testing.assert_close(y, x / np.sqrt(1 + 1e-3))
        L.batch_normalization(x, training=True, name="bn")
        mean, var = v1.global_variables("bn/moving_")
    torch.testing.assert_close(mean, 0.01 * x.mean(0))  # updated in place (TF1: UPDATE_OPS)
    torch.testing.assert_close(var, 0.99 + 0.01 * x.var(0, unbiased=False))
    with scope:
        y = L.batch_normalization(x, training=True, name="bn")  # the same layer on the next call
        batch = (x - x.mean(0)) / torch.sqrt(x.var(0, unbiased=False) + 1e-3)
        torch.testing.assert_close(y, batch, atol=1e-5, rtol=1e-5)
        with pytest.raises(ValueError, match="'bn' is used again with a different configuration"):
            L.batch_normalization(x, training=True, name="bn", reuse=True, momentum=0.5)


def test_conv_and_pooling_shapes_and_values():
    with _scope():
        same = L.conv2d(IMG, 5, 3, padding="same", use_bias=False)
        valid = L.conv2d(IMG, 5, (3, 3), strides=2)
        kernel = v1.global_variables("conv2d/kernel")[0]
        pooled = L.max_pooling2d(IMG, pool_size=2, strides=2)
        averaged = L.average_pooling2d(IMG, 2, 2, padding="same")
        flat = L.flatten(IMG)
    assert same.shape == (2, 8, 8, 5) and valid.shape == (2, 3, 3, 5)
    image = on_default_device(IMG)  # where the layers' weights are (a GPU's)
    expected = torch.nn.functional.conv2d(image.permute(0, 3, 1, 2), kernel.permute(3, 2, 0, 1), padding=1)
    torch.testing.assert_close(same, expected.permute(0, 2, 3, 1), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(pooled, IMG.reshape(2, 4, 2, 4, 2, 3).amax(dim=(2, 4)))
    torch.testing.assert_close(averaged, IMG.reshape(2, 4, 2, 4, 2, 3).mean(dim=(2, 4)))
    assert flat.shape == (2, 192)


def test_outside_model_fn_layers_are_eager_and_named_per_process():
    v1.reset_default_graph()
    try:
        a = L.dense(X, 3)
        b = L.dense(X, 3)
        assert a.shape == b.shape == (2, 3)
        assert _names(v1.global_variables()) == ["dense/kernel", "dense/bias", "dense_1/kernel",
                                                 "dense_1/bias"]
        with pytest.raises(ValueError, match="already exists"):
            L.dense(X, 3, name="dense")
    finally:
        v1.reset_default_graph()


def test_layer_classes_are_keras_layers():
    # TF1's classes are subclasses of the Keras layers (with TF1's arguments), as in TF
    assert issubclass(L.Dense, tf.keras.layers.Dense) and issubclass(L.Conv2D, tf.keras.layers.Conv2D)
    assert issubclass(L.BatchNormalization, tf.keras.layers.BatchNormalization)
    assert issubclass(L.Dropout, L.Layer)
