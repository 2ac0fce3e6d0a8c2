"""`tf.compat.v1.layers.Conv3DTranspose` / `SeparableConv1D` and the functions
`conv3d_transpose` / `separable_conv1d`: TF1 names (`<layer>/kernel`, ...), TF1 defaults (zero
bias), reuse across `model_fn` calls, shapes and values as the Keras layers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

v1 = tf.compat.v1
L = v1.layers

VOL = torch.from_numpy(np.random.default_rng(0).normal(size=(2, 3, 2, 3, 2)).astype(np.float32))
SEQ = torch.from_numpy(np.random.default_rng(1).normal(size=(2, 7, 3)).astype(np.float32))


def _scope():
    scope = ObjectScope()
    scope.context.begin_call("train", 0)
    return scope


def test_classes_are_the_keras_layers():
    assert issubclass(L.Conv3DTranspose, tf.keras.layers.Conv3DTranspose)
    assert issubclass(L.SeparableConv1D, tf.keras.layers.SeparableConv1D)
    assert {"Conv3DTranspose", "SeparableConv1D", "conv3d_transpose", "separable_conv1d"} <= set(L.__all__)


def test_conv3d_transpose_names_shapes_and_reuse():
    scope = _scope()
    outputs = []
    for _ in range(2):
        with scope:
            y = L.conv3d_transpose(VOL, 4, 2, strides=2, padding="same")
            outputs.append(y)
            names = [v._keras_name for v in v1.global_variables()]
            assert names == ["conv3d_transpose/kernel", "conv3d_transpose/bias"]
            kernel, bias = v1.trainable_variables()
    assert tuple(outputs[0].shape) == (2, 6, 4, 6, 4)
    assert tuple(kernel.shape) == (2, 2, 2, 4, 2)
    assert torch.all(bias == 0)
    torch.testing.assert_close(outputs[0], outputs[1])
    layer = tf.keras.layers.Conv3DTranspose(4, 2, strides=2, padding="same")
    layer(VOL)
    layer.set_weights([kernel.detach().numpy(), bias.detach().numpy()])
    torch.testing.assert_close(layer(VOL), outputs[0])


def test_separable_conv1d_names_shapes_and_values():
    with _scope():
        y = L.separable_conv1d(SEQ, 4, 3, depth_multiplier=2, padding="same", name="sep")
        names = [v._keras_name for v in v1.global_variables()]
        weights = v1.trainable_variables()
    assert names == ["sep/depthwise_kernel", "sep/pointwise_kernel", "sep/bias"]
    assert [tuple(w.shape) for w in weights] == [(3, 3, 2), (1, 6, 4), (4,)]
    layer = tf.keras.layers.SeparableConv1D(4, 3, depth_multiplier=2, padding="same")
    layer(SEQ)
    layer.set_weights([w.detach().numpy() for w in weights])
    torch.testing.assert_close(layer(SEQ), y)


def test_default_names_count_up():
    with _scope():
        L.separable_conv1d(SEQ, 2, 2)
        L.separable_conv1d(SEQ, 2, 2)
        names = [v._keras_name for v in v1.global_variables()]
    assert names[0] == "separable_conv1d/depthwise_kernel"
    assert names[3] == "separable_conv1d_1/depthwise_kernel"


def test_same_name_twice_needs_reuse():
    with _scope():
        L.conv3d_transpose(VOL, 2, 2, name="up")
        with pytest.raises(ValueError, match="already exists"):
            L.conv3d_transpose(VOL, 2, 2, name="up")
