"""`SeparableConv1D` (and `SeparableConvolution1D`): depthwise then pointwise 1D convolution
with Keras' kernel layouts, causal padding, config and `.keras` round trips. Values against
TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch

import torchestimator as tf
from _harness import check_layer

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_alias_and_weights():
    assert layers.SeparableConvolution1D is layers.SeparableConv1D
    layer = layers.SeparableConv1D(4, 3, depth_multiplier=2)
    y = layer(torch.randn(2, 7, 3))
    assert [tuple(w.shape) for w in layer.weights] == [(3, 3, 2), (1, 6, 4), (4,)]
    assert tuple(y.shape) == (2, 5, 4)


def test_equals_depthwise_then_pointwise():
    x = torch.randn(2, 9, 2)
    sep = layers.SeparableConv1D(3, 3, padding="same", depth_multiplier=2, use_bias=False)
    y = sep(x)
    depth = layers.DepthwiseConv1D(3, padding="same", depth_multiplier=2, use_bias=False)
    point = layers.Conv1D(3, 1, use_bias=False)
    depth(x)
    point(depth(x))
    depth.set_weights([sep.get_weights()[0]])
    point.set_weights([sep.get_weights()[1]])
    torch.testing.assert_close(point(depth(x)), y, rtol=1e-5, atol=1e-5)


def test_causal_output_does_not_see_the_future():
    layer = layers.SeparableConv1D(2, 3, padding="causal", dilation_rate=2)
    x = torch.randn(1, 9, 2)
    y = layer(x)
    assert tuple(y.shape) == (1, 9, 2)
    x2 = x.clone()
    x2[:, 6:] = 5.0
    torch.testing.assert_close(layer(x2)[:, :6], y[:, :6])


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.SeparableConv1D(3, 2, strides=2, activation="relu")
    config = layer.get_config()
    assert "kernel_initializer" not in config and config["pointwise_initializer"]["class_name"] == "GlorotUniform"
    check_layer(layers.SeparableConv1D, {"filters": 3, "kernel_size": 2, "strides": 2, "activation": "relu"},
                (2, 6, 2), expected_output_shape=(2, 3, 3), tmp_dir=tmp_path)
    check_layer(layers.SeparableConv1D, {"filters": 2, "kernel_size": 3, "padding": "causal"}, (2, 6, 2),
                expected_output_shape=(2, 6, 2), tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="padding"):
        layers.SeparableConv1D(2, 3, padding="full")
    with pytest.raises(ValueError, match="ndim=3"):
        layers.SeparableConv1D(2, 3)(torch.zeros(1, 4, 4, 2))
