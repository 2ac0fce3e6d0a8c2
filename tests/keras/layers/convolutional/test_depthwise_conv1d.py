"""`DepthwiseConv1D`: a per-channel 1D convolution with Keras' `(k, in, multiplier)` kernel and
output channel `c * multiplier + m`; config and `.keras` round trips, errors. Values against
TF 2.15: tests/keras/parity/test_parity_layers_31.py."""

import pytest
import torch
import torch.nn.functional as F

import torchestimator as tf
from _harness import check_layer
from _harness.layers import on_default_device

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh():
    tf.keras.backend.clear_session()
    torch.manual_seed(0)


def test_weights_and_channel_order():
    layer = layers.DepthwiseConv1D(3, depth_multiplier=2, use_bias=False)
    x = on_default_device(torch.randn(2, 7, 3))
    y = layer(x)
    assert [tuple(w.shape) for w in layer.weights] == [(3, 3, 2)]
    assert tuple(y.shape) == (2, 5, 6)
    k = layer.depthwise_kernel.detach()
    for c in range(3):
        for m in range(2):
            ref = F.conv1d(x[:, :, c:c + 1].transpose(1, 2), k[:, c, m].reshape(1, 1, 3))
            torch.testing.assert_close(y[:, :, c * 2 + m], ref[:, 0])


def test_same_padding_strides_and_shapes():
    layer = layers.DepthwiseConv1D(3, strides=2, padding="same", depth_multiplier=3)
    assert tuple(layer(torch.randn(1, 8, 2)).shape) == (1, 4, 6)
    assert layer.compute_output_shape((None, 8, 2)) == (None, 4, 6)
    assert tuple(layer.bias.shape) == (6,)


def test_config_and_keras_round_trip(tmp_path):
    layer = layers.DepthwiseConv1D(2, dilation_rate=2, activation="tanh")
    config = layer.get_config()
    assert "filters" not in config and config["depth_multiplier"] == 1
    check_layer(layers.DepthwiseConv1D, {"kernel_size": 2, "dilation_rate": 2, "activation": "tanh"}, (2, 6, 3),
                expected_output_shape=(2, 4, 3), tmp_dir=tmp_path)
    check_layer(layers.DepthwiseConv1D, {"kernel_size": 3, "depth_multiplier": 2}, (2, 6, 3),
                expected_output_shape=(2, 4, 6), tmp_dir=tmp_path)


def test_errors():
    with pytest.raises(ValueError, match="padding"):
        layers.DepthwiseConv1D(3, padding="causal")
    with pytest.raises(ValueError, match="depth_multiplier"):
        layers.DepthwiseConv1D(3, depth_multiplier=0)
    with pytest.raises(ValueError, match="rank 3"):
        layers.DepthwiseConv1D(3)(torch.zeros(1, 4, 4, 2))
